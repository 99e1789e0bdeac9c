"""The ``strong`` bot: determinized search over the legal actions (perfect-information playouts).

1. **The other side's model.** ``opponents="auto"`` (the default) reads the match so far: in the
   hands where an opponent played all three cards its whole hand is known, so ``model_fit`` can
   tell whether it played as ``basic`` would have, or more like a random player; ``basic`` is
   favoured a priori (``PRIOR``). ``"basic"`` or ``"random"`` fix the model.
2. **Deals.** ``samples`` deals of the unseen cards consistent with what the seat has seen
   (``determinize``: the cards it saw where they were, an accepted envido's announcement; with
   ``infer``, deals in which ``basic`` would have acted as its partner, and basic-like opponents,
   did are kept ten times as often as the others: a truco call or a quiero says something about
   the cards behind it).
3. **Playouts.** For each deal and legal action it applies the action to the rebuilt state and
   plays the hand to its end ``playouts`` times: its own side with ``basic``, the other side with
   its model. Each end of hand is scored by ``utility``: the estimated chance that the bot's side
   wins the match from the scores and camas reached, so that a point counts for more near the
   target and a falta or joc fora is weighed by what it does to the match, not by its size.
4. The action with the best mean wins (the same deals for every action; ties go to what
   ``basic`` would do). A seat with one legal action, or whose history does not lead to its
   view, does not search.

The defaults (``SAMPLES``: 12 deals with 2 players, 8 with 4; one playout each) keep a decision's
CPU time around 20-25 ms on average and its p95 under 50 ms on a shared 2-core machine
(bench/README.md, "Bots").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any

from games.engine import (
    Action,
    EngineError,
    Rules,
    State,
    decide,
    evolve,
    turn,
    view_for,
)

from . import basic, random_bot
from .determinize import Knowledge, Model, model_fit

#: Deals a decision by table size: a 4-player playout is about twice as long.
SAMPLES = {2: 12, 4: 8}
PLAYOUTS = 1

#: The points one side scores in a hand, for the match-chance model of ``utility``: roughly what
#: bot matches show (most hands are worth 1 to 3 points to the winner, few more).
HAND_POINTS = {0: 0.40, 1: 0.25, 2: 0.18, 3: 0.09, 4: 0.05, 5: 0.03}

Policy = Callable[[dict[str, Any], random.Random], Action]


def _basic_policy(view: dict[str, Any], rng: random.Random) -> Action:
    return basic.choose(view)


#: How the other side is assumed to play, in the playouts and to read its actions: like
#: ``basic``, at random, or (``auto``) whichever explains its revealed hands better.
OPPONENTS = ("auto", "basic", "random")
POLICIES: dict[str, Policy] = {"basic": _basic_policy, "random": random_bot.choose}
#: ``auto``'s prior log-odds for ``basic`` against ``random``: one action unlike basic's
#: (log 0.05, about -3) outweighs it, a hand played like basic's confirms it.
PRIOR = 2.0


def choose(
    view: dict[str, Any],
    history: Sequence[Mapping[str, Any]],
    rng: random.Random,
    samples: int | None = None,
    playouts: int = PLAYOUTS,
    opponents: str = "auto",
    infer: bool = True,
) -> Action:
    """The best legal action by the search above; ``infer=False`` samples the deals without
    reading the other seats' actions."""
    legal = [Action.from_json(data) for data in view["legal_actions"]]
    if not legal:
        raise ValueError("the seat has no legal action in this view")
    if len(legal) == 1:
        return legal[0]
    fallback = basic.choose(view)
    seat, side = view["seat"], view["side"]
    if opponents == "auto":
        basic_like = PRIOR + model_fit(view, history, basic.choose) > 0
        opponents = "basic" if basic_like else "random"
    # The bot's own side plays basic in the playouts; so does its partner in its reading.
    policies = [
        POLICIES["basic" if other % 2 == side else opponents]
        for other in range(view["rules"]["players"])
    ]
    models: dict[int, Model] = {}
    if infer:
        models = {
            other: basic.choose
            for other, policy in enumerate(policies)
            if other != seat and policy is POLICIES["basic"]
        }
    try:
        knowledge = Knowledge.of(view, history, models=models)
        count = SAMPLES[view["rules"]["players"]] if samples is None else max(1, samples)
        states = [knowledge.state(knowledge.sample(rng)) for _ in range(count)]
    except (ValueError, EngineError):
        return fallback  # the history does not lead to this view: no search
    totals = [0.0] * len(legal)
    rules = _Rules.of(knowledge.before.rules)
    for sample in states:
        state = replace(sample, rules=rules)
        for index, action in enumerate(legal):
            after = apply(state, seat, action)
            for _ in range(playouts):
                totals[index] += utility(play_out(after, policies, rng), side)
    best = max(
        range(len(legal)), key=lambda index: (round(totals[index], 9), legal[index] == fallback)
    )
    return legal[best]


@dataclass(frozen=True, slots=True)
class _Rules(Rules):
    """The same rules, serialised once: ``view_for`` serialises the rules at every step of a
    playout, and ``dataclasses.asdict`` took about a fifth of a decision."""

    def to_json(self) -> dict[str, Any]:
        return _rules_json(self)

    @classmethod
    def of(cls, rules: Rules) -> _Rules:
        return cls(**{field.name: getattr(rules, field.name) for field in fields(Rules)})


@cache
def _rules_json(rules: _Rules) -> dict[str, Any]:
    return Rules.to_json(rules)


def apply(state: State, seat: int, action: Action) -> State:
    for event in decide(state, seat, action):
        state = evolve(state, event)
    return state


def play_out(state: State, policies: Sequence[Policy], rng: random.Random) -> State:
    """Play the hand to its end, each seat choosing with its policy over its own view."""
    while (seat := turn(state)) is not None:
        state = apply(state, seat, policies[seat](view_for(state, seat), rng))
    return state


def utility(state: State, side: int) -> float:
    """The estimated chance that ``side`` wins the match from ``state`` (between hands)."""
    if state.match_over:
        return 0.5 if state.winner is None else float(state.winner == side)
    rules = state.rules
    scores = (0, 0) if state.cama_won else state.scores
    cama = _cama_chance(rules.target)[rules.target - scores[side]][rules.target - scores[1 - side]]
    match = _match_chance(rules.camas_to_win)
    camas = state.camas
    won, lost = camas[side], camas[1 - side]
    return cama * match[won + 1][lost] + (1 - cama) * match[won][lost + 1]


@cache
def _cama_chance(target: int) -> list[list[float]]:
    """``chance[a][b]``: a side that needs ``a`` points wins the cama against one needing ``b``,
    when each hand gives each side points drawn from ``HAND_POINTS`` (envido first: a tie, both
    reaching the target in one hand, counts half)."""
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


@cache
def _match_chance(camas_to_win: int) -> list[list[float]]:
    """``chance[won][lost]``: the match from these camas, each later cama an even chance."""
    size = camas_to_win + 2
    chance = [[0.0] * size for _ in range(size)]
    for won in range(size - 1, -1, -1):
        for lost in range(size - 1, -1, -1):
            if won >= camas_to_win or lost >= camas_to_win:
                chance[won][lost] = float(won >= camas_to_win)
            else:
                chance[won][lost] = 0.5 * (chance[won + 1][lost] + chance[won][lost + 1])
    return chance
