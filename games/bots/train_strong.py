"""Train ``strong``'s strategy by self-play: external-sampling Monte Carlo CFR over its abstraction.

    python -m games.bots.train_strong [--iterations N] [--seed S] [--out PATH] [--save-every K]

Each iteration deals one hand through the real referee (a preset and a table size taken in turn,
scores drawn at random so that the calls near the target are learned too) and walks it once for
each traverser (Lanctot et al. 2009, external sampling; in a team game one seat of each side,
``traversers``): at the traverser's decisions every abstract action is tried, each with the same
random numbers for what follows (so that the regrets compare the actions, not their samples'
luck); at everyone else's, one action is sampled from the current strategy; the deal is the
chance sample. A decision's value is the traverser's side's chance of winning the cama once the
hand is over (``utility``): a point counts for more near the target, and a falta is weighed by
what it does to the cama. Regrets are floored at zero (regret matching+); the average strategy,
accumulated at the sampled seats' decisions, weighs iteration ``t`` by ``t`` (linear averaging).
Cards are played by ``basic.choose_card``'s rule and the decisions outside the abstraction by
``basic.choose``: the self-play's environment (the shipped file was trained so). At play
``strong`` chooses its cards by its own search instead (``card_play``).

The run is deterministic given ``--seed`` and ``--iterations`` (one ``random.Random``, dictionaries
in insertion order, the file written with sorted keys): the same arguments write the same bytes.
Keys seen fewer than ``MIN_VISITS`` times are left out: ``strong`` falls back to ``basic`` there
rather than trust a strategy that has barely moved from uniform.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from games import engine as E

from . import basic, strong

#: (preset, players) in the order iterations cycle through them: the 2-player table twice as
#: often (most games), the team table of each deck once.
TABLES = (
    ("argentino", 2),
    ("valenciano", 2),
    ("argentino_clasico", 2),
    ("argentino", 4),
    ("valenciano", 2),
    ("argentino", 2),
    ("valenciano", 4),
    ("argentino_clasico", 4),
    ("argentino_clasico", 2),
)
#: The share of hands dealt at 0-0 (every match starts there); the others at random scores.
FRESH = 0.3
MIN_VISITS = 30
ITERATIONS = 14_000  # the shipped strong_policy.json: seed 16, 14,000 hands
SEED = 16

#: The points one side scores in a hand, for the cama-chance model of ``utility``: roughly what
#: bot matches show (most hands are worth 1 to 3 points to the winner, few more).
HAND_POINTS = {0: 0.40, 1: 0.25, 2: 0.18, 3: 0.09, 4: 0.05, 5: 0.03}


@dataclass
class Tables:
    regrets: dict[str, list[float]] = field(default_factory=dict)
    average: dict[str, list[float]] = field(default_factory=dict)
    visits: dict[str, int] = field(default_factory=dict)


def train(
    iterations: int,
    seed: int,
    log_every: int = 0,
    save: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The strategy file's content after ``iterations`` self-play hands from ``seed``.

    With ``save``, every ``log_every`` hands it is also given the content so far: the content after
    ``n`` hands does not depend on ``iterations``, so a save is what a run of ``n`` would write.
    """
    rng = random.Random(seed)
    tables = Tables()
    started = time.process_time()
    for t in range(1, iterations + 1):
        preset, players = TABLES[t % len(TABLES)]
        state = fresh_hand(E.resolve_rules(preset, {"players": players}), rng)
        for traverser in traversers(players, rng):
            walk(state, traverser, t, tables, rng)
        if log_every and t % log_every == 0:
            elapsed = time.process_time() - started
            print(f"{t} hands, {len(tables.regrets)} keys, {elapsed:.0f} s", flush=True)
            if save is not None:
                save(content(tables, seed, t))
    return content(tables, seed, iterations)


def content(tables: Tables, seed: int, iterations: int) -> dict[str, Any]:
    return {
        "about": "games/bots/strong.py's calling strategy, written by games/bots/train_strong.py",
        "seed": seed,
        "iterations": iterations,
        "min_visits": MIN_VISITS,
        "strategies": average_strategy(tables),
    }


def traversers(players: int, rng: random.Random) -> tuple[int, ...]:
    """Every seat of a 2-player hand; one seat of each side, drawn, of a team hand (the partners
    share one strategy, so one of them learns for both and a hand costs half as much)."""
    if players == 2:
        return (0, 1)
    return (2 * rng.randrange(players // 2), 2 * rng.randrange(players // 2) + 1)


def fresh_hand(rules: E.Rules, rng: random.Random) -> E.State:
    state = E.start(E.start_match(rules))
    if rng.random() >= FRESH:
        scores = (rng.randrange(rules.target), rng.randrange(rules.target))
        state = replace(state, scores=scores)
    state = replace(state, next_dealer=rng.randrange(rules.players))
    deck = E.DECKS[rules.deck]
    return E.evolve(state, E.deal(state, rng.sample(deck, len(deck))))


def walk(
    state: E.State,
    traverser: int,
    t: int,
    tables: Tables,
    rng: random.Random,
    envido_decided: bool = False,
) -> float:
    """The traverser's value of ``state``, updating regrets at its decisions (external sampling).

    ``envido_decided``: the seat to act has just chosen no envido (``strong.infoset``'s first step).
    """
    while (seat := E.turn(state)) is not None:
        view = E.view_for(state, seat)
        legal = view["legal_actions"]
        found = strong.infoset(view, envido_decided) if len(legal) > 1 else None
        envido_decided = False
        if found is None:
            only = len(legal) == 1
            state = apply(state, seat, E.Action.from_json(legal[0]) if only else basic.choose(view))
            continue
        key, actions = found
        if len(actions) == 1:
            state, envido_decided = take_abstract(state, seat, view, actions[0])
            continue
        regrets = tables.regrets.setdefault(key, [0.0] * len(actions))
        sigma = regret_matching(regrets)
        if seat == traverser:
            # Common random numbers: every action's subtree samples the same way, so the
            # regrets compare the actions, not the luck of their samples.
            saved = rng.getstate()
            values = []
            for name in actions:
                rng.setstate(saved)
                after, decided = take_abstract(state, seat, view, name)
                values.append(walk(after, traverser, t, tables, rng, decided))
            node = sum(p * v for p, v in zip(sigma, values, strict=True))
            for index, value in enumerate(values):
                regrets[index] = max(0.0, regrets[index] + value - node)
            return node
        average = tables.average.setdefault(key, [0.0] * len(actions))
        for index, p in enumerate(sigma):
            average[index] += t * p
        tables.visits[key] = tables.visits.get(key, 0) + 1
        name = rng.choices(actions, weights=sigma)[0]
        state, envido_decided = take_abstract(state, seat, view, name)
    return utility(state, E.side_of(traverser))


def take_abstract(
    state: E.State, seat: int, view: dict[str, Any], name: str
) -> tuple[E.State, bool]:
    """The state after abstract action ``name``, and whether it was the first step's no envido."""
    if name == strong.NO_ENVIDO:
        return state, True
    return apply(state, seat, strong.concrete(view, name)), False


def regret_matching(regrets: list[float]) -> list[float]:
    positive = [max(0.0, r) for r in regrets]
    total = sum(positive)
    if total <= 0.0:
        return [1.0 / len(regrets)] * len(regrets)
    return [r / total for r in positive]


def apply(state: E.State, seat: int, action: E.Action) -> E.State:
    for event in E.decide(state, seat, action):
        state = E.evolve(state, event)
    return state


def utility(state: E.State, side: int) -> float:
    """The chance that ``side`` wins the cama from the scores the hand ended with."""
    if state.match_over:
        return float(state.winner == side)
    target = state.rules.target
    needs = [target - score for score in state.scores]
    return cama_chance(target)[needs[side]][needs[1 - side]]


@cache
def cama_chance(target: int) -> list[list[float]]:
    """``chance[a][b]``: a side that needs ``a`` points wins the cama against one needing ``b``,
    when each hand gives each side points drawn from ``HAND_POINTS`` (a tie counts half)."""
    chance = [[0.0] * (target + 1) for _ in range(target + 1)]
    stay = HAND_POINTS[0] ** 2
    for a in range(target + 1):
        for b in range(target + 1):
            if a == 0 or b == 0:
                chance[a][b] = 0.5 if a == b else float(b > 0)
                continue
            total = 0.0
            for mine, p in HAND_POINTS.items():
                for theirs, q in HAND_POINTS.items():
                    if mine or theirs:
                        total += p * q * chance[max(0, a - mine)][max(0, b - theirs)]
            chance[a][b] = total / (1.0 - stay)
    return chance


def average_strategy(tables: Tables) -> dict[str, list[int]]:
    """Per key seen ``MIN_VISITS`` times, the average strategy in thousandths (at least one > 0)."""
    strategies: dict[str, list[int]] = {}
    for key, sums in tables.average.items():
        total = sum(sums)
        if tables.visits[key] < MIN_VISITS or total <= 0.0:
            continue
        shares = [round(1000 * s / total) for s in sums]
        if not any(shares):
            shares[sums.index(max(sums))] = 1
        strategies[key] = shares
    return strategies


def write(data: dict[str, Any], path: Path) -> None:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=strong.POLICY_PATH)
    parser.add_argument(
        "--save-every", type=int, default=0, help="also write OUT.<n> every n hands"
    )
    args = parser.parse_args()

    def save(data: dict[str, Any]) -> None:
        write(data, args.out.with_name(f"{args.out.name}.{data['iterations']}"))

    every = args.save_every or 1000
    write(train(args.iterations, args.seed, every, save if args.save_every else None), args.out)


if __name__ == "__main__":
    main()
