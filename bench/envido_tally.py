"""Where the envido points go between two bots, hand by hand (a diagnosis for bench/bots.py's rows).

    python -m bench.envido_tally [--pair strong:bluffer] [--players 4] [--matches N] [--seed S]

It plays the same matches as ``bench.bots`` (same seeds, presets in turn, sides alternating) and
reads each hand's envido from the full events (every seat's dealt cards): who opened, each answer,
the points each way, and the seats' and sides' true envido values (RULES.md §3, a side's is the
best of its members'). It prints A's net envido points per match split by who opened and how it
ended, and A's answers to B's calls and A's own openings by the envido of the seat that acted and
by whether its side's envido (its partner's included) beat the other side's.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool

from bench import bot_matches
from games import engine as E
from games.engine.cards import envido_of
from games.engine.events import (
    EnvidoAccepted,
    EnvidoCalled,
    EnvidoRefused,
    HandDealt,
    HandEnded,
)

from .bots import PRESETS, opponent

#: A seat's envido in the buckets ``strong`` uses (games/bots/strong.py, ENVIDO_EDGES).
BUCKETS: tuple[tuple[int, int, str], ...] = (
    (0, 19, "<20"),
    (20, 23, "20-23"),
    (24, 25, "24-25"),
    (26, 27, "26-27"),
    (28, 29, "28-29"),
    (30, 31, "30-31"),
    (32, 40, "32+"),
)


@dataclass
class Row:
    hands: int = 0
    points: int = 0  # A's net envido points
    won: int = 0  # hands in which A's side had the better envido

    def add(self, points: int, better: bool) -> None:
        self.hands += 1
        self.points += points
        self.won += better


@dataclass
class Tally:
    matches: int = 0
    rows: dict[tuple[str, ...], Row] = field(default_factory=lambda: defaultdict(Row))

    def add(self, key: tuple[str, ...], points: int, better: bool) -> None:
        self.rows[key].add(points, better)


def bucket(value: int) -> str:
    return next(name for low, high, name in BUCKETS if low <= value <= high)


def tally_match(events: Sequence[E.Event], a_side: int, players: int, tally: Tally) -> None:
    """Adds each hand's envido of one match to ``tally``."""
    values: list[int] = []
    mano = 0
    calls: list[tuple[int, str]] = []
    end: tuple[int, str] | None = None  # (seat, "quiero" | "no_quiero")
    for event in events:
        if isinstance(event, HandDealt):
            values = [envido_of(cards) for cards in event.hands]
            mano = (event.dealer + 1) % players
            calls, end = [], None
        elif isinstance(event, EnvidoCalled):
            calls.append((event.seat, event.call))
        elif isinstance(event, EnvidoAccepted):
            end = (event.seat, "quiero")
        elif isinstance(event, EnvidoRefused):
            end = (event.seat, "no_quiero")
        elif isinstance(event, HandEnded) and calls:
            points = sum(p if s == a_side else -p for k, s, p in event.points if k == "envido")
            best = [max(values[s] for s in range(players) if s % 2 == side) for side in (0, 1)]
            tie_to = _tie_side(values, best, mano, players)
            better = best[a_side] > best[1 - a_side] or (
                best[a_side] == best[1 - a_side] and tie_to == a_side
            )
            _add_hand(tally, calls, end, values, a_side, points, better)


def _tie_side(values: list[int], best: list[int], mano: int, players: int) -> int:
    """The side that wins a tie of the sides' best: the seat nearest the mano (RULES.md §5.2)."""
    for step in range(players):
        seat = (mano + step) % players
        if values[seat] == max(best):
            return seat % 2
    return 0


def _add_hand(
    tally: Tally,
    calls: list[tuple[int, str]],
    end: tuple[int, str] | None,
    values: list[int],
    a_side: int,
    points: int,
    better: bool,
) -> None:
    opener, first = calls[0]
    who = "A" if opener % 2 == a_side else "B"
    ending = "none" if end is None else f"{'A' if end[0] % 2 == a_side else 'B'} {end[1]}"
    chain = " ".join(f"{'A' if s % 2 == a_side else 'B'}:{c}" for s, c in calls)
    tally.add(("opened", who, ending), points, better)
    tally.add(("chain", chain, ending), points, better)
    if who == "A":
        tally.add(("A opens", first, bucket(values[opener])), points, better)
    answers = [(s, c) for s, c in calls[1:]] + ([end] if end is not None else [])
    for index, (seat, action) in enumerate(answers):
        if seat % 2 == a_side and (calls[index][0] % 2 != a_side):
            asked = calls[index][1]
            tally.add(("A answers", asked, action, bucket(values[seat])), points, better)
            partners = [values[s] for s in range(len(values)) if s % 2 == a_side and s != seat]
            if partners:
                partner = f"partner {bucket(max(partners))}"
                tally.add(("A answers, partner", asked, action, partner), points, better)


def play(job: tuple[str, str, int, int, int]) -> Tally:
    """One match of ``bench.bots``'s (same seed, preset and sides), tallied."""
    a, b, players, seed, index = job
    preset = PRESETS[index % len(PRESETS)]
    rules = E.resolve_rules(preset, {"players": players})
    rng = random.Random(f"{seed}:{preset}:{players}:{index}")
    a_side = index % 2
    seats = [opponent(a) if s % 2 == a_side else opponent(b) for s in range(players)]
    _, events = bot_matches.play_match(rules, seats, rng)
    tally = Tally()
    tally_match(events, a_side, players, tally)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="strong:bluffer")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=911)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    a, b = args.pair.split(":")
    tally = Tally()
    jobs = [(a, b, args.players, args.seed, index) for index in range(args.matches)]
    with Pool(args.jobs) as pool:
        for match in pool.map(play, jobs, chunksize=4):
            for key, row in match.rows.items():
                merged = tally.rows[key]
                merged.hands += row.hands
                merged.points += row.points
                merged.won += row.won
            tally.matches += 1
    print(f"{a} (A) v {b} (B), {args.players} players, {tally.matches} matches, seed {args.seed}")
    total = sum(row.points for key, row in tally.rows.items() if key[0] == "opened")
    print(f"A's net envido points per match: {total / tally.matches:+.2f}")
    print(f"{'what':<60} {'hands':>6} {'A net':>7} {'/match':>7} {'/hand':>6} {'A better':>8}")
    for key in sorted(tally.rows):
        row = tally.rows[key]
        print(
            f"{' | '.join(key):<60} {row.hands:>6} {row.points:>+7} "
            f"{row.points / tally.matches:>+7.2f} {row.points / row.hands:>+6.2f} "
            f"{row.won / row.hands:>8.0%}"
        )


if __name__ == "__main__":
    main()
