"""How many overdue turns one sweep applies per second (games/timeouts.py).

    python -m bench.sweep [--games 1000] [--rounds 3] [--subscribed 0.5] [--db truc_bench_sweep]

Makes its own PostgreSQL database (``--db``, ``truc_bench_sweep`` by default, on
127.0.0.1:5432, dropped and made anew), starts --games 2-player matches (a fraction
``--subscribed`` of them with a webhook subscription for one player, so the outbox writes
deliveries), moves every deadline into the past and times one ``timeouts.sweep()``: chunks of
500 games locked together (``SKIP LOCKED``), their states folded, each timed out (a card played
for the player, the hand records, the outbox), the writes sent together. The process has a cold
cache of recent states, as after an outage. Prints games per second.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time
from datetime import timedelta
from pathlib import Path

from bench.in_process import setup_django


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--subscribed", type=float, default=0.5)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N functions")
    parser.add_argument("--db", default="truc_bench_sweep", help="dropped and recreated")
    args = parser.parse_args()

    # The deliveries' tasks are queued, not sent.
    setup_django(args.db, CELERY_TASK_ALWAYS_EAGER="false")
    rates = [_round(args.games, args.subscribed, args.profile) for _ in range(args.rounds)]
    print(f"sweep: {args.games} overdue games a round, {args.rounds} rounds")
    print("games/s per round: " + ", ".join(f"{rate:.0f}" for rate in rates))
    median = statistics.median(rates)
    print(f"median: {median:.0f} games/s ({1000 / median:.1f} ms a game)")


def _round(count: int, subscribed: float, profile: int = 0) -> float:
    from django.utils import timezone

    from games import services, timeouts
    from games.models import Game, Seat
    from games.store import recent
    from notifications.models import Delivery, Subscription
    from players.models import Player

    stamp = time.monotonic_ns()
    ids = []
    for number in range(count):
        a, b = (Player.objects.create(username=f"s{stamp}-{number}-{side}") for side in "ab")
        game = services.create_game(
            a, preset="valenciano", options={}, players=2, visibility="public"
        )
        services.join_game(b, game.pk)
        ids.append(game.pk)
        if number < subscribed * count:
            url, kinds = "https://hooks.example/truc", ["your_turn", "hand_ended", "match_ended"]
            Subscription.objects.create(player=b, url=url, kinds=kinds, secret="s")
    Seat.objects.filter(game_id__in=ids).update(has_acted=True)
    Game.objects.filter(pk__in=ids).update(deadline=timezone.now() - timedelta(seconds=1))
    recent.forget_recent_states()  # as after an outage: nothing in memory
    deliveries = Delivery.objects.count()
    profiler = cProfile.Profile() if profile else None
    backend = _backend_pid()
    cpu = time.process_time(), _cpu_of(backend)
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    applied = timeouts.sweep(limit=count)
    elapsed = time.perf_counter() - started
    spent = time.process_time() - cpu[0], _cpu_of(backend) - cpu[1]
    if profiler:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)
    assert applied == count, f"applied {applied} of {count}"
    written = Delivery.objects.count() - deliveries
    print(
        f"  {applied} games in {elapsed:.2f} s ({applied / elapsed:.0f}/s), {written} deliveries"
        f" written; CPU {spent[0]:.2f} s here + {spent[1]:.2f} s PostgreSQL:"
        f" {applied / sum(spent):.0f} games per CPU second"
    )
    return applied / elapsed


def _backend_pid() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _cpu_of(pid: int) -> float:
    """utime + stime of a process (the PostgreSQL backend), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
