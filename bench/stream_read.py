"""What one gathered read of the streams costs: the statements of ``game_stream.read_many`` (the
games with their seats, and each key's events), the ORM's way (``get_games`` then
``load_event_ranges``, SQLite's path) against ``store.batch_read.read_games_and_events`` (one
pipeline, rows made by ``Model.from_db``), in turns on the same keys.

    .venv/bin/python -m bench.stream_read [--games 64] [--keys 32] [--moves 12] [--reads 300]
        [--db truc_bench_stream_read]

Run by hand, never as a test. It makes ``--db`` anew, plays ``--games`` 2-player matches
``--moves`` actions each through the API (in process), then ``--reads`` times each way, in turns,
reads ``--keys`` games, each from three events before its version (a move's readers): the CPU of
this thread (``time.thread_time``: what the machine's other work changes least) and the wall
time, each read's; PostgreSQL's own CPU is not in either. See bench/README.md, "streams".
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from bench.in_process import setup_django


def play(games: int, moves: int) -> list[uuid.UUID]:
    from django.test import Client
    from knox.models import AuthToken

    from players.models import Player

    rng = random.Random(7)
    found = []
    for number in range(games):
        clients = []
        for seat in range(2):
            player = Player.objects.create(username=f"p{number}-{seat}")
            token = AuthToken.objects.create(player)[1]
            clients.append(Client(HTTP_AUTHORIZATION=f"Token {token}"))
        body = {"preset": "valenciano", "players": 2}
        game_id = clients[0].post("/api/games", body, "application/json").json()["id"]
        clients[1].post(f"/api/games/{game_id}/join", {}, "application/json")
        for _ in range(moves):
            views = [client.get(f"/api/games/{game_id}").json() for client in clients]
            if views[0]["status"] != "active":
                break
            seat = next(i for i, view in enumerate(views) if view["state"]["legal_actions"])
            action = rng.choice(views[seat]["state"]["legal_actions"])
            body = {**action, "expected_version": views[seat]["version"]}
            answer = clients[seat].post(
                f"/api/games/{game_id}/actions", body, "application/json",
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            )  # fmt: skip
            assert answer.status_code == 201, answer.content
        found.append(uuid.UUID(game_id))
    return found


def before(keys: list[tuple[uuid.UUID, int]]) -> int:
    """The ORM's statements of ``read_many`` (SQLite's): ``get_games`` (games, then seats), then
    ``load_event_ranges`` up to each game's version."""
    from games.store.batch_read import get_games, load_event_ranges

    games = {game.pk: game for game in get_games([game_id for game_id, _ in keys])}
    ranges = [(pk, after, min(games[pk].version, after + 500)) for pk, after in keys]
    return sum(len(rows) for rows in load_event_ranges(ranges).values())


def after(keys: list[tuple[uuid.UUID, int]]) -> int:
    from games.store.batch_read import read_games_and_events

    games, events = read_games_and_events(keys, 500)
    versions = {game.pk: game.version for game in games}
    return sum(len([r for r in rows if r.seq <= versions[pk]]) for pk, rows in events.items())


def timed(read: Callable[[list[tuple[uuid.UUID, int]]], int], keys: Any) -> tuple[float, float]:
    cpu, wall = time.thread_time(), time.perf_counter()
    read(keys)
    return time.thread_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--keys", type=int, default=32)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--db", default="truc_bench_stream_read")
    args = parser.parse_args()
    print(f"# bench/stream_read.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# uptime: {os.getloadavg()}")
    setup_django(args.db)
    from games.models import Game

    ids = play(args.games, args.moves)
    versions = dict(Game.objects.filter(pk__in=ids).values_list("pk", "version"))
    rng = random.Random(11)
    ways: dict[str, Callable[[Any], int]] = {"before": before, "after": after}
    took: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for round_ in range(args.reads + 10):
        chosen = rng.sample(ids, args.keys)
        keys = [(pk, max(0, versions[pk] - 3)) for pk in chosen]
        assert before(keys) == after(keys)  # the same events either way
        for name, read in ways.items():
            measured = timed(read, keys)
            if round_ >= 10:  # the first few prepare the statements
                took[name].append(measured)
    for name, figures in took.items():
        cpu = [c * 1000 for c, _ in figures]
        wall = [w * 1000 for _, w in figures]
        print(
            f"{name}: a read of {args.keys} games, CPU median {statistics.median(cpu):.3f} ms,"
            f" wall median {statistics.median(wall):.3f} ms, p90"
            f" {statistics.quantiles(wall, n=10)[-1]:.3f} ms"
        )
    print(f"# uptime at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
