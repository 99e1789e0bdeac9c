"""How many overdue turns one sweep applies per second (games/timeouts.py).

    python bench/sweep.py [--games 300] [--rounds 3]

Makes its own PostgreSQL database (``truc_bench_sweep`` on 127.0.0.1:5432, dropped and made
anew), starts --games 2-player matches, moves every deadline into the past and times
``timeouts.sweep()``: each game is locked, folded from its snapshot, timed out (a card played
for the player), appended to and saved, one transaction each. Prints games per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = "truc_bench_sweep"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    for sql in (f"DROP DATABASE IF EXISTS {DB}", f"CREATE DATABASE {DB}"):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    os.environ.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{DB}",
        CELERY_BROKER_URL="memory://",
        DJANGO_SETTINGS_MODULE="truc_api.settings",
        LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    rates = [_round(args.games) for _ in range(args.rounds)]
    print(f"sweep: {args.games} overdue games a round, {args.rounds} rounds")
    print("games/s per round: " + ", ".join(f"{rate:.0f}" for rate in rates))
    median = statistics.median(rates)
    print(f"median: {median:.0f} games/s ({1000 / median:.1f} ms a game)")


def _round(count: int) -> float:
    from django.utils import timezone

    from games import services, timeouts
    from games.models import Game, Seat
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
    Seat.objects.filter(game_id__in=ids).update(has_acted=True)
    Game.objects.filter(pk__in=ids).update(deadline=timezone.now() - timedelta(seconds=1))
    started = time.perf_counter()
    applied = timeouts.sweep(limit=count)
    elapsed = time.perf_counter() - started
    assert applied == count, f"applied {applied} of {count}"
    return applied / elapsed


if __name__ == "__main__":
    main()
