"""Benchmark of the live streams: thousands of open SSE streams on one ASGI process.

    .venv/bin/python -m bench.streams [--levels 1000,5000] [--rate 100] [--seconds 30]
        [--idle-seconds 35] [--rest-seconds 20] [--rest-clients 8] [--redis redis://...]
        [--prefix bench] [--asgi-options "--loop uvloop"]

Run by hand, never as a test. It needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``) and
Redis (``--redis``, a database of its own; the channel prefix is this run's own). Each run:

1. drops and recreates the database ``truc_i14_bench_streams`` (``--db``), migrates, makes
   players and tokens;
2. starts the production shape of docker-compose.yml on loopback ports: the REST API on granian
   WSGI (2 processes x 2 threads) and the streams on granian ASGI (ONE process: every stream of
   a level on that one process), both publishing/subscribing through Redis pub/sub, each served
   through bench/delivery_clock.py (the application wrapped from outside, to clock deliveries);
3. creates, through the API, one 2-player match per ``--per-game`` streams of the largest level;
4. for each level N, on its N / ``--per-game`` matches (one that ended replaced by a new one):
   measures REST action throughput with no stream open (``--rest-clients`` closed-loop clients
   playing those matches as fast as they can, ``--rest-seconds``), then opens N streams,
   ``--per-game`` a match (its two seats, each with its own token and projection, and
   spectators of the public game), and measures
   - memory: the streams process's RSS before and after, per open stream;
   - idle CPU: the streams process's CPU (and PostgreSQL's, for the checks) over
     ``--idle-seconds`` with every stream open and nothing happening (heartbeats and checks);
   - delivery: ``--rate`` actions/s paced over the matches for ``--seconds``, each event's
     arrival on each of its match's streams against the action's POST: from the answer (the commit
     happened before it: a latency no larger than the one from the commit) and from the request
     (no smaller than it); p50/p99, and whether every stream got every event once;
   - REST throughput with the N streams open (the same closed loop);
   - the server's part of each delivery, from the commit to the bytes handed to granian, and its
     parts (Redis, the wake, the read, the send), from the streams process's delivery log
     (``STREAM_DELIVERY_LOG``, bench/delivery_clock.py), beside the same events' arrival at the
     clients from the same publish time, the clients' event-loop lag, and the streams process's
     garbage collections;
   - in each measured phase, each part's CPU per delivery and per action (``Meter``): the streams
     process (and how much of it in the kernel), the REST server, PostgreSQL's backends, the
     stream clients' process, this process, the whole machine. What a shared machine changes
     least; the streams' CPU a delivery is also given less the idle cost (heartbeats, checks);
   then closes the streams and measures REST throughput without streams again on the same
   matches: the two "without" runs bracket the "with" one (the machine drifts);
5. stops the servers.

See bench/README.md, "Streams", for the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http_load import (
    LONG_MATCH,
    Http,
    Match,
    Player,
    Stats,
    _children,
    _machine_busy,
    _postgres_backends,
    _proc_cpu,
    free_port,
    migrate_and_make_tokens,
    recreate_database,
    server_env,
    start_server,
    stop_server,
)

ROOT = Path(__file__).resolve().parent.parent
TARGET_STREAMS, TARGET_P99_MS, TARGET_REST_RATIO = 5000, 100.0, 0.80
PAGE = os.sysconf("SC_PAGE_SIZE")
LAG_TICK = 0.01


def rss(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


def worker_of(pid: int) -> int:
    """granian runs the app in a child process: that is the one holding the streams."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        children = _children(pid)
        if children:
            return children[0]
        time.sleep(0.2)
    raise SystemExit("the streams server has no worker process")


# --- the stream clients: asyncio, one socket each ----------------------------------------------


@dataclass
class Delivery:
    game: str
    seq: int
    at: float  # perf_counter


@dataclass
class Streams:
    port: int
    deliveries: list[Delivery] = field(default_factory=list)
    heartbeats: int = 0
    opened: int = 0
    failed: list[str] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    record: bool = False
    lags: list[float] = field(default_factory=list)  # the loop's lateness, seconds (``lag``)

    async def open(self, game: str, token: str, after: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**20)
        writer.write(
            (
                f"GET /api/games/{game}/stream?after={after} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Token {token}\r\nAccept: text/event-stream\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            self.failed.append(status.decode(errors="replace").strip())
            writer.close()
            return
        while await reader.readline() not in (b"\r\n", b""):
            pass
        self.opened += 1
        self.tasks.append(asyncio.create_task(self._read(game, reader, writer)))

    async def _read(self, game: str, reader: Any, writer: Any) -> None:
        """Chunked transfer coding around the SSE text; each message's id (the seq) is recorded."""
        buffer = b""
        try:
            while True:
                size = int((await reader.readline()).split(b";")[0] or b"0", 16)
                if size == 0:
                    return
                buffer += (await reader.readexactly(size + 2))[:-2]  # the chunk's CRLF
                *messages, buffer = buffer.split(b"\n\n")
                now = time.perf_counter()
                for message in messages:
                    if message.startswith(b": heartbeat"):
                        self.heartbeats += 1
                    elif message.startswith(b"id: ") and self.record:
                        seq = int(message[4 : message.index(b"\n")])
                        self.deliveries.append(Delivery(game, seq, now))
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def lag(self) -> None:
        """How late this loop wakes a task that asked to sleep ``LAG_TICK``: a delivery parsed
        by a late loop is measured that much later than its bytes arrived."""
        while True:
            before = time.perf_counter()
            await asyncio.sleep(LAG_TICK)
            if self.record:
                self.lags.append(time.perf_counter() - before - LAG_TICK)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks.clear()
        self.opened = 0


class Readers:
    """The stream clients in a process of their own (spawned), on one asyncio loop: the movers'
    threads and their GIL must not delay the reading, or the reader's lag would be measured as
    the server's. ``perf_counter`` is the system's monotonic clock, the same in both processes."""

    def __init__(self, port: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=_readers_main, args=(child, port), daemon=True)
        self.process.start()

    def ask(self, *command: Any) -> Any:
        self.pipe.send(command)
        return self.pipe.recv()

    def stop(self) -> None:
        self.ask("quit")
        self.process.join(10)


def _readers_main(pipe: Any, port: int) -> None:
    asyncio.run(_serve(pipe, port))


async def _serve(pipe: Any, port: int) -> None:
    loop = asyncio.get_running_loop()
    streams = Streams(port)
    probe = asyncio.create_task(streams.lag())  # noqa: F841 (held for the process's life)
    while True:
        command, *args = await loop.run_in_executor(None, pipe.recv)
        if command == "open":
            streams.failed.clear()
            await open_all(streams, args[0], parallel=100)
            answer: Any = (streams.opened, list(streams.failed[:3]), len(streams.failed))
        elif command == "heartbeats":
            answer = streams.heartbeats
        elif command == "record":
            streams.record, streams.deliveries = args[0], streams.deliveries if args[0] else []
            streams.lags = streams.lags if args[0] else []
            answer = None
        elif command == "deliveries":
            answer = ([(d.game, d.seq, d.at) for d in streams.deliveries], streams.lags)
            streams.deliveries, streams.lags = [], []
        elif command == "close":
            await streams.close()
            answer = None
        else:
            pipe.send(None)
            return
        pipe.send(answer)


async def open_all(streams: Streams, targets: list[tuple[str, str, int]], parallel: int) -> None:
    gate = asyncio.Semaphore(parallel)

    async def one(game: str, token: str, after: int) -> None:
        async with gate:
            try:
                await streams.open(game, token, after)
            except OSError as error:
                streams.failed.append(repr(error))

    await asyncio.gather(*(one(*target) for target in targets))


# --- the moves ---------------------------------------------------------------------------------


@dataclass
class Posted:
    game: str
    seqs: range
    sent: float  # perf_counter before the request
    answered: float  # after the answer


def paced_moves(
    port: int, matches: list[Match], rate: float, seconds: float, clients: int, seed: int
) -> tuple[list[Posted], Stats]:
    """``rate`` actions/s in all, over ``matches``, by ``clients`` threads each pacing its share."""
    posted: list[Posted] = []
    stats = Stats()
    stop_at = time.perf_counter() + seconds
    share = [matches[i::clients] for i in range(clients)]

    def client(index: int) -> None:
        http = Http(port)
        player = Player(http, ("", ""), random.Random(f"{seed}:{index}"), stats)
        interval = clients / rate
        next_at = time.perf_counter() + random.Random(index).random() * interval
        games = [m for m in share[index] if not m.over]
        turn = 0
        while games and time.perf_counter() < stop_at:
            pause = next_at - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            next_at += interval
            match = games[turn % len(games)]
            turn += 1
            before = match.version
            sent = time.perf_counter()
            player.step(match)
            if match.version > before:
                posted.append(Posted(match.id, range(before + 1, match.version + 1), sent,
                                     time.perf_counter()))  # fmt: skip
            games = [m for m in games if not m.over]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return posted, stats


def closed_loop(
    port: int, matches: list[Match], seconds: float, clients: int, meter: Meter
) -> dict[str, Any]:
    """REST action throughput: ``clients`` threads acting as fast as they can; and the REST
    server's CPU per action (what a busy shared machine changes least)."""
    stats = Stats()
    stop_at = time.perf_counter() + seconds
    share = [matches[i::clients] for i in range(clients)]
    counts = [0] * clients

    def client(index: int) -> None:
        player = Player(Http(port), ("", ""), random.Random(index), stats)
        games = [m for m in share[index] if not m.over]
        turn = 0
        while games and time.perf_counter() < stop_at:
            match = games[turn % len(games)]
            turn += 1
            before = match.version
            player.step(match)
            counts[index] += match.version > before
            games = [m for m in games if not m.over]

    started = time.perf_counter()
    meter.start()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    parts = meter.parts()
    actions = max(1, sum(counts))
    return {
        "actions/s": sum(counts) / wall,
        "cpu ms/action": parts["rest"] * 1000 / actions,
        "errors": len(stats.errors),
        "cpu": cpu_line(parts, actions, "action"),
    }


# --- measuring ---------------------------------------------------------------------------------


@dataclass
class Meter:
    """CPU seconds of each part of the run, between ``start`` and ``parts``: the streams
    process, the REST server's processes, PostgreSQL's backends of the bench database, the
    stream clients' process, this process (the movers or the closed loop's clients), and the
    whole machine (everyone's work on it included)."""

    streams: int
    rest: list[int]
    readers: int
    database: str
    before: dict[str, dict[int, float]] = field(default_factory=dict)

    def _now(self) -> dict[str, dict[int, float]]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "streams": {self.streams: _proc_cpu(self.streams)},
            "of which kernel": {self.streams: _system_cpu(self.streams)},
            "rest": {pid: _proc_cpu(pid) for pid in self.rest},
            "postgres": {pid: _proc_cpu(pid) for pid in _postgres_backends(self.database)},
            "clients": {self.readers: _proc_cpu(self.readers)},
            "driver": {0: usage.ru_utime + usage.ru_stime},
            "machine": {0: _machine_busy()},
        }

    def start(self) -> None:
        self.before = self._now()

    def parts(self) -> dict[str, float]:
        """Seconds of CPU each part spent since ``start`` (a backend born meanwhile from 0)."""
        now = self._now()
        return {
            name: sum(cpu - self.before[name].get(pid, 0.0) for pid, cpu in pids.items())
            for name, pids in now.items()
        }


def _system_cpu(pid: int) -> float:
    """stime of one process, in seconds: its system calls (socket writes) and what the kernel
    does on its behalf (on loopback, the receiving side's TCP processing too)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


def cpu_line(parts: dict[str, float], per: int, unit: str) -> str:
    return f"CPU ms per {unit}: " + ", ".join(
        f"{name} {seconds * 1000 / max(1, per):.2f}" for name, seconds in parts.items()
    )


def settle(pid: int, busy: float = 0.05, longest: float = 120.0) -> float:
    """Seconds until the process's CPU falls under ``busy`` of a core over one second: the
    streams process ends 5,000 closed streams for a while, and the next phase must not pay it."""
    started = time.perf_counter()
    while time.perf_counter() - started < longest:
        before = _proc_cpu(pid)
        time.sleep(1)
        if _proc_cpu(pid) - before < busy:
            break
    return time.perf_counter() - started


def cpu_of(pids: list[int]) -> float:
    return sum(_proc_cpu(pid) for pid in pids)


def latencies(posted: list[Posted], deliveries: list[Delivery], per_game: int) -> dict[str, Any]:
    sent = {(p.game, seq): p for p in posted for seq in p.seqs}
    arrived: dict[tuple[str, int], list[float]] = defaultdict(list)
    for delivery in deliveries:
        arrived[(delivery.game, delivery.seq)].append(delivery.at)
    after_answer, after_request, missing, repeated = [], [], 0, 0
    for key, post in sent.items():
        times = arrived.get(key, [])
        missing += max(0, per_game - len(times))
        repeated += max(0, len(times) - per_game)
        after_answer += [max(0.0, at - post.answered) * 1000 for at in times]
        after_request += [(at - post.sent) * 1000 for at in times]

    return {
        "events": len(sent),
        "deliveries": len(after_answer),
        "missing": missing,
        "repeated": repeated,
        "p50 after answer ms": pct(after_answer, 50),
        "p99 after answer ms": pct(after_answer, 99),
        "p50 after request ms": pct(after_request, 50),
        "p99 after request ms": pct(after_request, 99),
    }


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")


@dataclass(frozen=True)
class Stamped:
    """One line of the streams process's delivery log (bench/delivery_clock.py), wall clock."""

    published: float
    poked: float
    woke: float
    read: float
    sent: float
    topic: str
    seq: int | None


def collections(path: Path, since: float) -> str:
    """The streams process's garbage collections that ended since ``since`` (the log's ``gc``
    lines): by generation, how many, their CPU in all and the longest pause (wall clock: every
    thread of the process waits for it)."""
    pauses: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.startswith("gc "):
            _, generation, started, ended, cpu = line.split()
            if float(ended) >= since:
                pauses[generation].append((float(ended) - float(started), float(cpu)))
    return (
        "; ".join(
            f"gen{generation} {len(found)}, CPU {sum(c for _, c in found) * 1000:.0f} ms in all,"
            f" longest pause {max(wall for wall, _ in found) * 1000:.0f} ms"
            for generation, found in sorted(pauses.items())
        )
        or "none"
    )


def delivery_log(path: Path, since: float) -> list[Stamped]:
    """The game streams' lines of the log sent since ``since`` (wall clock)."""
    found = []
    for line in path.read_text().splitlines():
        if line.startswith("gc "):
            continue
        *times, topic, seq = line.split()
        if float(times[-1]) >= since and topic.startswith("game:"):
            published, poked, woke, read, sent = (float(value) for value in times)
            game, step = topic[len("game:") :], None if seq == "-" else int(seq)
            found.append(Stamped(published, poked, woke, read, sent, game, step))
    return found


def server_side(
    stamped: list[Stamped], deliveries: list[Delivery], wall_offset: float, lags: list[float]
) -> dict[str, float]:
    """Where a delivery's time goes, from the commit (the publisher's stamp, sent after it):
    the server's part (to the bytes handed to granian: Redis and the hub's wake, the read, the
    send), then, for the same events, the arrival parsed by the bench's clients (their socket
    and event loop added), and how late the clients' loop woke (``Streams.lag``)."""
    ms = 1000.0
    # (game, last seq of a step) -> the earliest publish that caused it
    commit: dict[tuple[str, int | None], float] = {}
    for line in stamped:
        key = (line.topic, line.seq)
        commit[key] = min(commit.get(key, line.published), line.published)
    at_client = [
        (d.at + wall_offset - commit[(d.game, d.seq)]) * ms
        for d in deliveries
        if (d.game, d.seq) in commit
    ]
    server = [(line.sent - line.published) * ms for line in stamped]
    parts = {
        "redis": [(line.poked - line.published) * ms for line in stamped],
        "wake": [(line.woke - line.poked) * ms for line in stamped],
        "read": [(line.read - line.woke) * ms for line in stamped],
        "send": [(line.sent - line.read) * ms for line in stamped],
    }
    found = {"server deliveries": float(len(server)),
             "server p50 ms": pct(server, 50), "server p99 ms": pct(server, 99)}  # fmt: skip
    for name, values in parts.items():
        found[f"{name} p50 ms"], found[f"{name} p99 ms"] = pct(values, 50), pct(values, 99)
    found["at client p50 ms"], found["at client p99 ms"] = pct(at_client, 50), pct(at_client, 99)
    lag_ms = [lag * ms for lag in lags]
    found["client loop lag p50 ms"], found["p99"] = pct(lag_ms, 50), pct(lag_ms, 99)
    found["max"] = max(lag_ms, default=float("nan"))
    return found


def figures(found: dict[str, Any]) -> str:
    return ", ".join(
        f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in found.items()
    )


def rest_line(result: dict[str, Any]) -> str:
    return (
        f"{result['actions/s']:.0f} actions/s, REST server {result['cpu ms/action']:.1f} ms CPU"
        f" an action ({result['errors']:.0f} errors)\n  {result['cpu']}"
    )


def git_describe() -> str:
    found = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    )
    return found.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1000,5000", help="open streams, comma-separated")
    parser.add_argument("--rate", type=float, default=100.0, help="actions/s while measuring")
    parser.add_argument("--seconds", type=float, default=30.0, help="paced moves a level")
    parser.add_argument("--idle-seconds", type=float, default=35.0)
    parser.add_argument("--rest-seconds", type=float, default=20.0)
    parser.add_argument("--rest-clients", type=int, default=8)
    parser.add_argument("--movers", type=int, default=8, help="threads pacing the moves")
    parser.add_argument(
        "--per-game", type=int, default=20, help="streams a match: its 2 seats + spectators"
    )
    parser.add_argument("--db", default="truc_i14_bench_streams", help="dropped and recreated")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--prefix", default="bench", help="channel prefix (a random part follows)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--asgi-options", default="", help="more granian options for the streams server"
    )
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.levels.split(",") if n.strip()]
    per_game = args.per_game
    pairs = max(levels) // per_game

    print(f"# bench/streams.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')} code {git_describe()}")
    print(f"# uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"# {os.cpu_count()} cores, Python {sys.version.split()[0]}; levels {levels}")
    database_url = f"postgres://postgres@127.0.0.1:5432/{args.db}"
    clock_log = Path(tempfile.mkstemp(prefix="streams-delivery-", suffix=".log")[1])
    recreate_database(args.db)
    env = server_env(database_url)
    env |= {
        "STREAMS_REDIS_URL": args.redis,
        "STREAMS_CHANNEL_PREFIX": f"{args.prefix}-{uuid.uuid4().hex[:8]}",
        "STREAMS_PER_PLAYER": str(max(levels)),
        "STREAMS_PER_PROCESS": str(2 * max(levels)),
        "LOG_LEVEL": "WARNING",
        "STREAM_DELIVERY_LOG": str(clock_log),
    }
    tokens = migrate_and_make_tokens(env, 2 * pairs + per_game - 2)
    spectators = tokens[2 * pairs :]
    rest_port, streams_port = free_port(), free_port()
    granian = str(Path(sys.executable).parent / "granian")
    logs = [
        tempfile.NamedTemporaryFile("w", prefix=f"streams-{name}-", suffix=".log", delete=False)  # noqa: SIM115
        for name in ("rest", "asgi")
    ]
    rest = start_server(
        [granian, "--interface", "wsgi", "--workers", "2", "--blocking-threads", "2",
         "--host", "127.0.0.1", "--port", str(rest_port),
         "--factory", "bench.delivery_clock:wsgi"],
        env, rest_port, logs[0],
    )  # fmt: skip
    asgi = start_server(
        [granian, "--interface", "asgi", "--workers", "1", "--no-ws", "--backpressure", "20000",
         *args.asgi_options.split(),
         "--host", "127.0.0.1", "--port", str(streams_port),
         "--factory", "bench.delivery_clock:asgi"],
        env, streams_port, logs[1],
    )  # fmt: skip
    worker = worker_of(asgi.pid)
    rest_workers = _children(rest.pid)
    print(f"# REST granian wsgi pid {rest.pid}, streams granian asgi worker pid {worker}")
    readers = Readers(streams_port)
    try:
        creator = Player(Http(rest_port), ("", ""), random.Random(args.seed), Stats())
        matches = []
        started = time.perf_counter()
        for pair in range(pairs):
            creator.tokens = (tokens[2 * pair], tokens[2 * pair + 1])
            matches.append(creator.new_match(LONG_MATCH))
        print(f"# {pairs} matches created in {time.perf_counter() - started:.0f} s")

        assert readers.process.pid is not None  # started
        meter = Meter(worker, rest_workers, readers.process.pid, args.db)

        def rest_run(pool: list[Match]) -> dict[str, Any]:
            return closed_loop(rest_port, pool, args.rest_seconds, args.rest_clients, meter)

        def live(count: int) -> list[Match]:
            """The first ``count`` matches, each that ended replaced by a new one of the same
            seats: a stream of an ended match is refused (204), and the closed loop skips it."""
            for index, match in enumerate(matches[:count]):
                # Over, or ended by its last action (the client learns it at its next step).
                if match.over or any(v and v["status"] != "active" for v in match.views):
                    creator.tokens = match.tokens
                    matches[index] = creator.new_match(LONG_MATCH)
            return matches[:count]

        ratios = []
        for level in levels:
            count = level // per_game
            # Without and with on the same matches: "without" runs right before the level's
            # streams open and right after they close (the machine drifts: the two bracket it).
            without = rest_run(live(count))
            print(f"\nREST without streams, {count} matches: {rest_line(without)}")
            chosen = live(count)
            targets = [
                (m.id, token, m.version) for m in chosen for token in (*m.tokens, *spectators)
            ]
            before = rss(worker)
            started = time.perf_counter()
            opened, failed, refused = readers.ask("open", targets)
            opened_in = time.perf_counter() - started
            time.sleep(3)  # let them catch up
            after = rss(worker)
            print(
                f"\n## {level} streams: {opened} open ({refused} refused"
                f"{': ' + failed[0] if failed else ''}) in {opened_in:.0f} s;"
                f" RSS {before / 2**20:.0f} -> {after / 2**20:.0f} MiB:"
                f" {(after - before) / max(1, opened) / 1024:.1f} KiB a stream"
            )
            pg = _postgres_backends(args.db)
            cpu_before, pg_before, beats = cpu_of([worker]), cpu_of(pg), readers.ask("heartbeats")
            time.sleep(args.idle_seconds)
            idle = (cpu_of([worker]) - cpu_before) / args.idle_seconds * 100
            idle_pg = (cpu_of(_postgres_backends(args.db)) - pg_before) / args.idle_seconds * 100
            print(
                f"idle: streams process {idle:.1f} % of a core, PostgreSQL {idle_pg:.1f} %,"
                f" {readers.ask('heartbeats') - beats} heartbeats in {args.idle_seconds:g} s"
            )
            readers.ask("record", True)
            cpu_before = cpu_of([worker])
            meter.start()
            since = time.time()
            posted, stats = paced_moves(
                rest_port, chosen, args.rate, args.seconds, args.movers, args.seed
            )
            time.sleep(2)  # the last deliveries
            got, lags = readers.ask("deliveries")
            deliveries = [Delivery(*d) for d in got]
            readers.ask("record", False)
            spent = cpu_of([worker]) - cpu_before
            parts = meter.parts()
            busy = spent / (args.seconds + 2) * 100
            found = latencies(posted, deliveries, per_game=per_game)
            found["streams cpu ms/delivery"] = spent * 1000 / max(1, found["deliveries"])
            # Less what holding the streams costs anyway (heartbeats, checks: the idle figure).
            above = spent - idle / 100 * (args.seconds + 2)
            found["above idle"] = above * 1000 / max(1, found["deliveries"])
            rate = len(posted) / args.seconds
            print(
                f"delivery at {rate:.0f} actions/s ({len(stats.errors)} errors), streams process"
                f" {busy:.0f} % of a core: {figures(found)}"
            )
            wall_offset = time.time() - time.perf_counter()
            split = server_side(delivery_log(clock_log, since), deliveries, wall_offset, lags)
            print(f"  from the commit: {figures(split)}")
            print(f"  the streams process's garbage collections: {collections(clock_log, since)}")
            print(f"  its RSS after the deliveries: {rss(worker) / 2**20:.0f} MiB")
            print(
                "  busy, % of a core: "
                + ", ".join(f"{k} {v * 100 / (args.seconds + 2):.0f}" for k, v in parts.items())
            )
            print(f"  {cpu_line(parts, found['deliveries'], 'delivery')}")
            print(f"  {cpu_line(parts, len(posted), 'action')}")
            with_streams = rest_run(chosen)
            print(f"REST with {level} streams open: {rest_line(with_streams)}")
            readers.ask("close")
            settled = settle(worker)
            print(f"closed; the streams process settled in {settled:.0f} s")
            again = rest_run(chosen)
            print(f"REST without streams again: {rest_line(again)}")
            ratios.append((level, with_streams, [without, again]))
        print()
        for level, result, bracket in ratios:
            base = statistics.mean(w["actions/s"] for w in bracket)
            cost = statistics.mean(w["cpu ms/action"] for w in bracket)
            print(
                f"REST with {level} streams / without (mean of both): throughput"
                f" {result['actions/s'] / base:.0%} (target >= {TARGET_REST_RATIO:.0%}),"
                f" CPU per action {result['cpu ms/action'] / cost:.0%} of without"
            )
        print(f"# uptime at the end: {os.getloadavg()}")
    finally:
        readers.stop()
        stop_server(asgi)
        stop_server(rest)
        for log in logs:
            log.close()


if __name__ == "__main__":
    main()
