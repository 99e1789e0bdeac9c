"""Benchmark of the referee: random full matches, and the cost of replaying them.

    python -m bench.engine [--matches N] [--seed S] [--rounds R] [--plain]

For each preset and table size (2, 4 and 6 players), and for the optional rules (``FEATURE_ROWS``:
the flor, pica-pica), it plays N random matches in this process, with the loop the server
runs for every request: ``legal_actions`` before every action, then ``decide``, then ``evolve`` of
each event. It reports actions per second of CPU time (the best and the median of R rounds of N
matches: the machines are shared and noisy), then replays each match of the first round from its
events (and from their stored JSON, as the server reads them) and reports the median and p95 time
per match and the events per match. See bench/README.md for what the figures mean and the targets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from games import engine as E  # noqa: E402

#: How a random player weighs the kinds of legal action: mostly cards, seldom the mazo, so that
#: hands run to their bazas (the first style of tests/engine/test_properties.py).
WEIGHTS = {"play": 3.0, "mazo": 0.25}
TARGET_ACTIONS_PER_SECOND = 10_000  # 2 players, one core
TARGET_REPLAY_MS = 10.0  # a whole 2-player match
#: The optional rules of RULES.md §5.3 and §9, as extra rows: (preset, players, options).
FEATURE_ROWS: tuple[tuple[str, int, dict[str, bool]], ...] = (
    ("argentino", 2, {"flor": True}),
    ("argentino_clasico", 4, {"flor": True}),
    ("argentino", 6, {"pica_pica": True}),
    ("argentino_clasico", 6, {"flor": True, "pica_pica": True}),
)


@dataclass
class Row:
    preset: str
    players: int
    options: str  # the options beyond the preset, e.g. "flor"
    matches: int
    rates: list[float]  # actions per CPU second, one a round
    events_per_match: list[int]
    replay_ms: list[float]
    replay_json_ms: list[float]
    longest_events: int
    longest_replay_ms: float

    @property
    def best_rate(self) -> float:
        return max(self.rates)


def play_match(rules: E.Rules, rng: random.Random) -> tuple[list[E.Event], int]:
    """One random match: its events, and how many actions the players took."""
    deck = E.DECKS[rules.deck]
    events: list[E.Event] = [E.start_match(rules)]
    state = E.replay(events)
    actions = 0
    while not state.match_over:
        if state.needs_deal:
            new: tuple[E.Event, ...] = (E.deal(state, rng.sample(deck, len(deck))),)
        else:
            seat = E.turn(state)
            assert seat is not None
            legal = E.legal_actions(state, seat)
            action = rng.choices(legal, [WEIGHTS.get(a.type, 1.0) for a in legal])[0]
            new = E.decide(state, seat, action)
            actions += 1
        for event in new:
            state = E.evolve(state, event)
        events.extend(new)
    return events, actions


def best_ms(run: Callable[[], object], repeat: int = 3) -> float:
    """The best of ``repeat`` timings of ``run()``, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def replay_ms(events: list[E.Event]) -> float:
    """A whole match replayed from its events."""
    return best_ms(lambda: E.replay(events))


def replay_json_ms(events: list[E.Event]) -> float:
    """The same from the events' stored JSON, as the server reads them: parse each, then fold."""
    stored = [event.to_json() for event in events]
    return best_ms(lambda: E.replay([E.event_from_json(data) for data in stored]))


def play_round(
    rules: E.Rules, rng: random.Random, matches: int
) -> tuple[list[list[E.Event]], float]:
    """``matches`` random matches: their events, and the actions per second of CPU time."""
    played: list[list[E.Event]] = []
    actions = 0
    start = time.process_time()
    for _ in range(matches):
        events, taken = play_match(rules, rng)
        played.append(events)
        actions += taken
    return played, actions / (time.process_time() - start)


def bench(
    preset: str,
    players: int,
    matches: int,
    seed: int,
    rounds: int,
    options: dict[str, bool] | None = None,
) -> Row:
    options = options or {}
    rules = E.resolve_rules(preset, {"players": players, **options})
    named = "+".join(name for name, on in options.items() if on)
    rng = random.Random(f"{seed}:{preset}:{players}" + (f":{named}" if named else ""))
    played, rate = play_round(rules, rng, matches)
    rates = [rate] + [play_round(rules, rng, matches)[1] for _ in range(rounds - 1)]
    replays = [replay_ms(events) for events in played]
    from_json = [replay_json_ms(events) for events in played]
    longest = max(range(matches), key=lambda index: len(played[index]))
    return Row(
        preset,
        players,
        named or "-",
        matches,
        rates,
        [len(events) for events in played],
        replays,
        from_json,
        len(played[longest]),
        replays[longest],
    )


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


#: The table's columns: title, what its cells hold, width.
COLUMNS = (
    ("preset", "", -18),
    ("players", "", 7),
    ("options", "", 16),
    ("matches", "", 8),
    ("actions/s", "best / median", 18),
    ("events/match", "median (max)", 16),
    ("replay ms", "median / p95", 16),
    ("from JSON ms", "median / p95", 16),
    ("longest match", "events: ms", 16),
)


def line(cells: list[str]) -> str:
    return "".join(
        f"{cell:<{-width}}" if width < 0 else f"{cell:>{width}}"
        for cell, (_, _, width) in zip(cells, COLUMNS, strict=True)
    )


def report(rows: list[Row]) -> None:
    head = line([title for title, _, _ in COLUMNS])
    print(head)
    print(line([unit for _, unit, _ in COLUMNS]))
    print("-" * len(head))
    for row in rows:
        print(
            line(
                [
                    row.preset,
                    str(row.players),
                    row.options,
                    str(row.matches),
                    f"{row.best_rate:,.0f} / {statistics.median(row.rates):,.0f}",
                    f"{statistics.median(row.events_per_match):.0f} ({max(row.events_per_match)})",
                    f"{statistics.median(row.replay_ms):.2f} / {p95(row.replay_ms):.2f}",
                    f"{statistics.median(row.replay_json_ms):.2f} / {p95(row.replay_json_ms):.2f}",
                    f"{row.longest_events}: {row.longest_replay_ms:.2f}",
                ]
            )
        )
    two = [row for row in rows if row.players == 2 and row.options == "-"]
    slowest = min(statistics.median(row.rates) for row in two)
    longest = max(two, key=lambda row: row.longest_events)
    print()
    print(
        f"target >= {TARGET_ACTIONS_PER_SECOND:,} actions/s (2 players): slowest preset's median "
        f"{slowest:,.0f} -> {'met' if slowest >= TARGET_ACTIONS_PER_SECOND else 'MISSED'}"
    )
    print(
        f"target < {TARGET_REPLAY_MS:.0f} ms to replay a 2-player match: longest "
        f"({longest.preset}, {longest.longest_events} events) {longest.longest_replay_ms:.2f} ms"
        f" -> {'met' if longest.longest_replay_ms < TARGET_REPLAY_MS else 'MISSED'}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per preset and size")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random players")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of matches per row")
    parser.add_argument(
        "--plain", action="store_true", help="no rows for the optional rules (flor, pica-pica)"
    )
    args = parser.parse_args(argv)
    print(
        f"Python {sys.version.split()[0]}, matches per row: {args.rounds} rounds x {args.matches}, "
        f"seed {args.seed}"
    )
    rows = [
        bench(preset, players, args.matches, args.seed, args.rounds)
        for preset in E.PRESETS
        for players in (2, 4, 6)
    ]
    if not args.plain:
        rows += [
            bench(preset, players, args.matches, args.seed, args.rounds, options)
            for preset, players, options in FEATURE_ROWS
        ]
    report(rows)


if __name__ == "__main__":
    main()
