"""What a delivery and a heartbeat cost the streams' own machinery, on one event loop, with no
database and no socket: the CPU left when the shared parts are taken away.

    .venv/bin/python -m bench.stream_wake [--streams 5000] [--per-game 20] [--rounds 5]
        [--heartbeat-seconds 0.5] [--idle-seconds 5]

Run by hand, never as a test. In one process, ``--streams`` game streams (``game_stream.live``,
each served by Django's ``ASGIHandler.send_response`` of its ``StreamingHttpResponse``, as under
granian) follow ``--streams / --per-game`` games through the real hub (``streams/hub.py``: its
watches, its gathered reads on its read threads, ``follow``, ``project``); only two edges are
replaced: the database read (``game_stream.read_many`` answers each (game, cursor) with a
``GameRead`` of one more event and a new view, made in memory on the read thread) and the socket
(the ASGI ``send`` counts the bytes). Then:

- delivery: ``--rounds`` times, each game in turn is poked as a move's notification would, and
  the next waits until its every stream has sent: the process's CPU (every thread's: the loop
  and the read threads) per delivery;
- heartbeats: with ``STREAM_HEARTBEAT_SECONDS`` set to ``--heartbeat-seconds``, the CPU per
  heartbeat sent over ``--idle-seconds``.

The process's CPU is ``time.process_time``: what the machine's other work changes least (it
still slows caches and memory). See bench/README.md, "streams", for the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

os.environ.update(
    DJANGO_SETTINGS_MODULE="truc_api.settings",
    STREAMS_REDIS_URL="",  # the in-process channel: no Redis
    STREAM_CHECK_SECONDS="3600",  # no check: it would ask the database
    LOG_LEVEL="WARNING",
)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402
from django.http import StreamingHttpResponse  # noqa: E402

from streams import bus, game_stream, hub, sse  # noqa: E402
from streams.limits import limits  # noqa: E402

EVENT = {"seq": 0, "type": "card_played", "seat": 0, "card": "1e", "at": "2026-12-01T16:00:00Z"}
VIEW = {"version": 0, "status": "active", "state": {"legal_actions": [{"type": "play"}] * 3}}


class Collections:
    """The cyclic garbage collector's pauses (``gc.callbacks``): by generation, their count and
    CPU time (of the thread that collects: a busy machine's waits left out), from ``reset``."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {}
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.thread_time()
        else:
            took = time.thread_time() - self._started
            self.pauses.setdefault(info["generation"], []).append(took)

    def reset(self) -> None:
        self.pauses = {}

    def line(self) -> str:
        return "; ".join(
            f"gen{generation} {len(took)} pauses, {sum(took) * 1000:.0f} ms in all,"
            f" longest {max(took) * 1000:.1f} ms of CPU"
            for generation, took in sorted(self.pauses.items())
        )


COLLECTIONS = Collections()


@dataclass(frozen=True)
class Reader:
    pk: int


def in_memory_read_many(keys: list[game_stream.Key]) -> dict[game_stream.Key, Any]:
    """A ``GameRead`` of one more event and a new view for each (game, cursor): what the database
    read hands the readers, made without it (its projections encoded here, as the read's are)."""
    found = {}
    for game_id, after in keys:
        seq = after + 1
        projections = {
            seat: game_stream.Projection(
                [sse.message({**EVENT, "seq": seq}, event="card_played", id=seq)],
                f"v{seq}-{seat}",
                sse.message({**VIEW, "version": seq}, event="view"),
            )
            for seat in (None, 0, 1)
        }
        found[(game_id, after)] = game_stream.GameRead(
            game_id, seq, True, False, (seq,), False, {1: 0, 2: 1}, projections
        )
    return found


async def run(args: argparse.Namespace) -> None:
    game_stream.read_many = in_memory_read_many  # the database's edge
    here, handler = hub.hub(), ASGIHandler()
    games = [uuid.uuid4() for _ in range(args.streams // args.per_game)]
    sent = {"bodies": 0, "heartbeats": 0}
    goal = {"bodies": 0}
    reached = asyncio.Event()

    async def send(message: Mapping[str, Any]) -> None:  # the socket's edge
        body = message.get("body", b"")
        if body == sse.HEARTBEAT:
            sent["heartbeats"] += 1
        elif body:
            sent["bodies"] += 1
            if sent["bodies"] >= goal["bodies"]:
                reached.set()

    async def until(count: int) -> None:
        goal["bodies"] = count
        while sent["bodies"] < count:
            reached.clear()
            await reached.wait()

    tasks = []
    for number in range(args.streams):
        game = games[number // args.per_game]
        claim = await limits(here).claim(number)
        body = game_stream.live(game_stream.Cursor(game, 0), Reader(number), "", claim)  # type: ignore[arg-type]
        response = StreamingHttpResponse(body, content_type=sse.CONTENT_TYPE)
        tasks.append(asyncio.create_task(handler.send_response(response, send)))
    await until(2 * args.streams)  # each stream's retry line and first step
    print(f"{args.streams} streams on {len(games)} games, {args.per_game} a game")

    started, cpu = time.perf_counter(), time.process_time()
    COLLECTIONS.reset()
    for _ in range(args.rounds):
        for game in games:  # one move at a time, each followed by its game's streams
            here.poke_many([bus.game_topic(game)])
            await until(sent["bodies"] + args.per_game)
    deliveries = args.rounds * args.streams
    spent, wall = time.process_time() - cpu, time.perf_counter() - started
    print(
        f"delivery: {deliveries} in {wall:.1f} s, CPU {spent * 1e6 / deliveries:.1f} µs a"
        f" delivery (every thread of the process)\n  garbage collector: {COLLECTIONS.line()}"
    )

    settings.STREAM_HEARTBEAT_SECONDS = args.heartbeat_seconds
    here.poke_all("heartbeat-test")  # every stream waits anew, on the short heartbeat
    await until(sent["bodies"] + args.streams)
    beats, cpu = sent["heartbeats"], time.process_time()
    COLLECTIONS.reset()
    await asyncio.sleep(args.idle_seconds)
    beats = sent["heartbeats"] - beats
    spent = time.process_time() - cpu
    print(f"heartbeats: {beats} in {args.idle_seconds:g} s, CPU {spent * 1e6 / beats:.1f} µs each")
    print(f"  garbage collector: {COLLECTIONS.line()}")
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--per-game", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--heartbeat-seconds", type=float, default=0.5)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(f"# bench/stream_wake.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# uptime: {os.getloadavg()}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
