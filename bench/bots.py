"""Benchmark of the bots: seeded bot-vs-bot matches, win rates with 95 % confidence intervals.

    python -m bench.bots [--pairs strong:basic,basic:random | --pool] [--presets P,...]
                         [--players 2,4] [--matches N] [--seed S] [--jobs J] [--by-preset]

For each pair ``A:B`` and table size it plays N whole matches (``bot_matches.play_match``), the
presets taken in turn (match ``i`` under preset ``i mod len(presets)``); side 0 is A in even
matches and B in odd ones, so A and B take turns at being the first mano, and with 4 players both
partners of a side are the same bot. A and B are levels of the API (``random``, ``basic``,
``strong``) or styles of ``bench/bot_styles.py`` (``cautious``, ``aggressive``, ``bluffer``,
``accepts``); ``--pool`` is ``strong`` against each of ``POOL``. Deals are shuffled from a seed
per match, so a run is reproducible. It reports A's share of matches won with its Wilson 95 %
interval, the hands per match, A's net envido and truco points per match (points A's side scored
minus points B's side scored, from the matches' ``hand_ended`` events), and the time A's
decisions take (those with a choice: one legal action costs nothing): the mean and p95 of the
CPU time (the machine is shared: CPU time is the steadier figure) and the p95 of the wall time.
``--jobs`` plays matches in that many processes. ``--by-preset`` adds a row per preset.
See bench/README.md, section "Bots", for the figures and the targets.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Any

from bench import bot_matches
from bench import bot_styles as styles
from games import engine as E
from games.engine.events import HandEnded

PRESETS = ("valenciano", "argentino", "argentino_clasico")
POOL = ("basic", "random", "cautious", "aggressive", "bluffer", "accepts")


@dataclass
class Result:
    preset: str
    won: bool  # A won the match
    hands: int
    envido: int = 0  # A's side's envido points minus B's
    truco: int = 0
    wall_ms: list[float] = field(default_factory=list)  # A's decisions with a choice
    cpu_ms: list[float] = field(default_factory=list)


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def opponent(name: str) -> bot_matches.Player:
    """A level of the API or a style of ``bench.bot_styles``."""
    if name in styles.STYLES:
        return lambda view, history, rng: styles.choose(name, view, rng)
    return bot_matches.player(name)


def timed(player: bot_matches.Player, result: Result) -> bot_matches.Player:
    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> Any:
        if len(view["legal_actions"]) < 2:
            return player(view, history, rng)
        wall, cpu = time.perf_counter(), time.process_time()
        action = player(view, history, rng)
        result.wall_ms.append((time.perf_counter() - wall) * 1000)
        result.cpu_ms.append((time.process_time() - cpu) * 1000)
        return action

    return choose


def play(job: tuple[str, str, str, int, int, int]) -> Result:
    a, b, preset, players, seed, index = job
    rules = E.resolve_rules(preset, {"players": players})
    rng = random.Random(f"{seed}:{preset}:{players}:{index}")
    a_side = index % 2
    result = Result(preset, won=False, hands=0)
    a_player, b_player = timed(opponent(a), result), opponent(b)
    seats = [a_player if seat % 2 == a_side else b_player for seat in range(players)]
    state, events = bot_matches.play_match(rules, seats, rng)
    result.won = state.winner == a_side
    assert state.hand is not None
    result.hands = state.hand.number
    for event in events:
        if isinstance(event, HandEnded):
            for kind, side, points in event.points:
                signed = points if side == a_side else -points
                if kind == "envido":
                    result.envido += signed
                elif kind == "truco":
                    result.truco += signed
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="basic:random,strong:basic")
    parser.add_argument("--pool", action="store_true", help="strong against each of POOL")
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--players", default="2")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--by-preset", action="store_true")
    args = parser.parse_args()
    pairs = (
        [("strong", b) for b in POOL]
        if args.pool
        else [tuple(pair.split(":")) for pair in args.pairs.split(",")]
    )
    presets = args.presets.split(",")
    print(
        f"{'pair':<22} {'preset':<18} {'n':>2} {'matches':>7} {'A wins':>7} {'95% CI':>15} "
        f"{'hands':>5} {'envido':>6} {'truco':>6} {'cpu ms':>6} {'p95':>6} {'wall p95':>8}"
    )
    with Pool(args.jobs) as pool:
        for players in map(int, args.players.split(",")):
            for a, b in pairs:
                jobs = [
                    (a, b, presets[index % len(presets)], players, args.seed, index)
                    for index in range(args.matches)
                ]
                results = pool.map(play, jobs, chunksize=4)
                if args.by_preset and len(presets) > 1:
                    for preset in presets:
                        report(
                            f"{a} v {b}",
                            preset,
                            players,
                            [r for r in results if r.preset == preset],
                        )
                report(f"{a} v {b}", "all" if len(presets) > 1 else presets[0], players, results)


def report(pair: str, preset: str, players: int, results: list[Result]) -> None:
    wins = sum(result.won for result in results)
    n = len(results)
    low, high = wilson(wins, n)
    wall = [ms for result in results for ms in result.wall_ms]
    cpu = [ms for result in results for ms in result.cpu_ms]
    print(
        f"{pair:<22} {preset:<18} {players:>2} {n:>7} {wins / n:>7.1%} "
        f"{f'[{low:.1%}, {high:.1%}]':>15} {statistics.mean(r.hands for r in results):>5.1f} "
        f"{statistics.mean(r.envido for r in results):>+6.2f} "
        f"{statistics.mean(r.truco for r in results):>+6.2f} "
        f"{mean(cpu):>6.2f} {p95(cpu):>6.2f} {p95(wall):>8.2f}",
        flush=True,
    )


def mean(values: list[float]) -> float:
    return statistics.mean(values) if values else float("nan")


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


if __name__ == "__main__":
    main()
