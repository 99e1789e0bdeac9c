"""How long pairing takes with 10,000 seekers waiting (lobby/seeks.py, lobby/pairing.py).

    python -m bench.pairing [--waiting 10000] [--arrivals 30] [--pairable 400] [--rounds 3]
                            [--reference 100]

Makes its own PostgreSQL database (``truc_bench_pairing`` on 127.0.0.1:5432, dropped and made
anew) and fills one 2-player pool with --waiting open seeks that cannot pair with one another
(each accepts only the rating one above its own; ratings spread over 1000-2000), so every pass
must look at all of them, and another pool with --reference such seeks, measured the same way in
the same run (the ratio is what to compare: the machine's speed drifts). Then it times, in one
process:

- **arrival**: ``create_seek`` of a newcomer whose default window (±100) holds ~2,000 of the
  waiting ratings and whom some of them accept: its insert, its pairing pass (lock the window's
  seeks with SKIP LOCKED, match, create and start the game), the commit. --arrivals of them.
- **sweep, nothing to pair**: one ``pair_pool`` over the whole pool (LOBBY_PAIRING_BATCH set to
  hold all of them): lock every open seek, find no table.
- **match only**: ``pairing.find_tables`` over the same units in memory (no database).
- **sweep, all pairable**: --pairable seekers with default windows in a pool of their own, paired
  by one ``pair_pool``: tables per second, game creation included.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from datetime import timedelta

from bench.in_process import setup_django

DB = os.environ.get("BENCH_PAIRING_DB", "truc_bench_pairing")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=10_000)
    parser.add_argument("--arrivals", type=int, default=30)
    parser.add_argument("--pairable", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--reference", type=int, default=100, help="Seekers waiting in the reference pool."
    )
    args = parser.parse_args()

    batch = max(args.waiting, args.pairable) + args.arrivals
    setup_django(DB, LOBBY_PAIRING_BATCH=str(batch))
    rng = random.Random(15)
    # The reference: the same measures with few seekers waiting, in the same run (the machine's
    # speed drifts; the ratio is what to compare).
    small, small_ratings = _fill_waiting(args.reference, rng, "argentino")
    pool, ratings = _fill_waiting(args.waiting, rng, "valenciano")
    print(f"pairing: {args.waiting} seekers waiting in one pool, none pairable with another")
    print(f"reference: {args.reference} waiting in another pool, measured alongside")
    for name, where, rates in (("reference", small, small_ratings), ("waiting", pool, ratings)):
        arrivals = _arrivals(args.arrivals, rates, rng, where)
        sweeps = [_sweep_nothing(where) for _ in range(args.rounds)]
        print(
            f"{name:>9}: arrival (insert + pairing pass + game) median"
            f" {statistics.median(arrivals):.1f} ms, p90 {_p90(arrivals):.1f} ms, of"
            f" {len(arrivals)}; sweep with nothing to pair: "
            + ", ".join(f"{sweep:.0f}" for sweep in sweeps)
            + " ms"
        )
    matches = [_match_only(pool) for _ in range(args.rounds)]
    print("match only, in memory (ms per round): " + ", ".join(f"{m:.0f}" for m in matches))
    paired = [_sweep_pairable(args.pairable, rng, round_) for round_ in range(args.rounds)]
    print(
        f"sweep, {args.pairable} pairable seekers (tables/s per round): "
        + ", ".join(f"{rate:.0f}" for rate in paired)
    )


def _p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))]


def _fill_waiting(count: int, rng: random.Random, preset: str) -> tuple[str, list[int]]:
    from django.utils import timezone

    from games import engine
    from lobby import seeks
    from lobby.models import QueueEntry, Seek
    from players.models import Player

    players = Player.objects.bulk_create(
        Player(username=f"waiting-{preset}-{number}") for number in range(count)
    )
    rules = engine.resolve_rules(preset, {"players": 2})
    pool = seeks.pool_key(preset, 2, 86_400, True, rules)
    now = timezone.now()
    # Each accepts only the rating one above his own: A accepts B but B never A, so nobody pairs.
    ratings = [rng.randint(1000, 2000) for _ in range(count)]
    made = Seek.objects.bulk_create(
        Seek(
            player=player,
            preset=preset,
            players=2,
            turn_seconds=86_400,
            rated=True,
            pool=pool,
            rating=rating,
            rating_min=rating + 1,
            rating_max=rating + 1,
            created_at=now,
            expires_at=now + timedelta(days=1),
        )
        for player, rating in zip(players, ratings, strict=True)
    )
    QueueEntry.objects.bulk_create(QueueEntry(player=seek.player, seek=seek) for seek in made)
    return pool, [seek.rating for seek in made]


def _arrivals(count: int, ratings: list[int], rng: random.Random, pool: str) -> list[float]:
    from lobby import seeks
    from players.models import Player

    preset = pool.split("/")[0]
    timings = []
    for number, rating in enumerate(rng.sample(ratings, count)):
        newcomer = Player.objects.create(username=f"newcomer-{preset}-{number}")
        newcomer.ratings.create(family=preset, size="1v1", value=rating + 1)
        request = seeks.SeekRequest(preset, 2, 86_400, True)
        started = time.perf_counter()
        seek = seeks.create_seek(newcomer, request)
        timings.append((time.perf_counter() - started) * 1000)
        assert seek.status == "matched", "the arrival should have found its one partner"
    return timings


def _sweep_nothing(pool: str) -> float:
    from lobby import seeks

    started = time.perf_counter()
    made = seeks.pair_pool(pool)
    assert made == 0
    return (time.perf_counter() - started) * 1000


def _match_only(pool: str) -> float:
    from django.utils import timezone

    from lobby import pairing, seeks
    from lobby.models import Seek

    units = [seeks._unit(seek) for seek in Seek.objects.filter(pool=pool, status="open")]
    started = time.perf_counter()
    found = pairing.find_tables(units, 2, timezone.now(), seeks.widening())
    assert found == []
    return (time.perf_counter() - started) * 1000


def _sweep_pairable(count: int, rng: random.Random, round_: int) -> float:
    from lobby import seeks
    from players.models import Player

    players = Player.objects.bulk_create(
        Player(username=f"pairable{round_}-{number}") for number in range(count)
    )
    request = seeks.SeekRequest("argentino", 2, 86_400, False)  # a pool of its own (casual)
    made = [seeks._insert(player, request) for player in players]
    started = time.perf_counter()
    tables = seeks.pair_pool(made[0].pool)
    elapsed = time.perf_counter() - started
    assert tables == count // 2, tables
    return tables / elapsed


if __name__ == "__main__":
    main()
