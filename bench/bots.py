"""Benchmark of the bots: seeded bot-vs-bot matches, win rates with 95 % confidence intervals.

    python bench/bots.py [--pairs strong:basic,basic:random] [--presets P,...] [--players 2,4]
                         [--matches N] [--seed S] [--jobs J] [--samples K]
                         [--opponents auto|basic|random] [--no-infer]

For each pair ``A:B``, preset and table size it plays N whole matches (``games.bots.play_match``):
side 0 (seats 0 and 2) is A in even matches and B in odd ones, so A and B take turns at being
the first mano. Deals are shuffled from a seed per match, so a run is reproducible. It reports
A's share of matches won with its Wilson 95 % interval, the hands per match, and the time A's
decisions take (those with a choice: one legal action costs nothing): the mean and p95 of the
wall-clock time and of the CPU time (the machines are shared: CPU time is the steadier figure).
``--samples``, ``--opponents`` and ``--no-infer`` set ``strong``'s deals a decision, its model of
the other side and whether it reads their actions (games/bots/strong.py). ``--jobs`` plays
matches in that many processes.
See bench/README.md, section "Bots", for the figures and the targets.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import bots  # noqa: E402
from games import engine as E  # noqa: E402
from games.bots import strong  # noqa: E402

PRESETS = ("valenciano", "argentino", "argentino_clasico")


@dataclass
class Result:
    won: bool  # A won the match
    hands: int
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


@dataclass(frozen=True)
class Budget:
    """``strong``'s settings (see ``strong.choose``)."""

    samples: int | None = None  # strong.SAMPLES by table size
    opponents: str = "auto"
    infer: bool = True


def make_player(level: str, budget: Budget, result: Result | None) -> bots.Player:
    def decide(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> E.Action:
        if level == "strong":
            return strong.choose(
                view,
                history,
                rng,
                budget.samples,
                opponents=budget.opponents,
                infer=budget.infer,
            )
        return bots.choose(level, view, history, rng)

    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> E.Action:
        if result is None or len(view["legal_actions"]) < 2:
            return decide(view, history, rng)
        wall, cpu = time.perf_counter(), time.process_time()
        action = decide(view, history, rng)
        result.wall_ms.append((time.perf_counter() - wall) * 1000)
        result.cpu_ms.append((time.process_time() - cpu) * 1000)
        return action

    return choose


def play(job: tuple[str, str, str, int, int, int, Budget]) -> Result:
    a, b, preset, players, seed, index, budget = job
    rules = E.resolve_rules(preset, {"players": players})
    rng = random.Random(f"{seed}:{preset}:{players}:{index}")
    a_side = index % 2
    result = Result(won=False, hands=0)
    seats = [
        make_player(a, budget, result) if seat % 2 == a_side else make_player(b, budget, None)
        for seat in range(players)
    ]
    state, _ = bots.play_match(rules, seats, rng)
    result.won = state.winner == a_side
    assert state.hand is not None
    result.hands = state.hand.number
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="basic:random,strong:basic")
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--players", default="2")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--samples", type=int, default=None, help="strong's deals")
    parser.add_argument("--opponents", choices=strong.OPPONENTS, default="auto", help="strong's")
    parser.add_argument("--no-infer", action="store_true", help="strong reads no actions")
    args = parser.parse_args()
    print(
        f"{'pair':<16} {'preset':<18} {'n':>2} {'matches':>7} {'A wins':>7} {'95% CI':>15} "
        f"{'hands':>5} {'wall ms':>7} {'p95':>6} {'cpu ms':>6} {'p95':>6}"
    )
    budget = Budget(args.samples, args.opponents, not args.no_infer)
    with Pool(args.jobs) as pool:
        for pair in args.pairs.split(","):
            a, b = pair.split(":")
            for preset in args.presets.split(","):
                for players in map(int, args.players.split(",")):
                    jobs = [
                        (a, b, preset, players, args.seed, index, budget)
                        for index in range(args.matches)
                    ]
                    results = pool.map(play, jobs, chunksize=1)
                    report(f"{a} v {b}", preset, players, results)


def report(pair: str, preset: str, players: int, results: list[Result]) -> None:
    wins = sum(result.won for result in results)
    n = len(results)
    low, high = wilson(wins, n)
    wall = [ms for result in results for ms in result.wall_ms]
    cpu = [ms for result in results for ms in result.cpu_ms]
    print(
        f"{pair:<16} {preset:<18} {players:>2} {n:>7} {wins / n:>7.1%} "
        f"{f'[{low:.1%}, {high:.1%}]':>15} {statistics.mean(r.hands for r in results):>5.1f} "
        f"{mean(wall):>7.2f} {p95(wall):>6.2f} {mean(cpu):>6.2f} {p95(cpu):>6.2f}",
        flush=True,
    )


def mean(values: list[float]) -> float:
    return statistics.mean(values) if values else float("nan")


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


if __name__ == "__main__":
    main()
