"""Benchmark of the whole server over HTTP: granian + Django/DRF + PostgreSQL, under load.

    .venv/bin/python -m bench.http_load [--seconds 20] [--levels 8,16,32] [--warmup 3]
        [--long-seconds 60] [--reads 300] [--server granian] [--workers 2] [--threads 2]
        [--cache-url redis://127.0.0.1:6379/5]

Run by hand, never as a test. It needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
auth) and nothing else (Redis too with ``--cache-url``, where the throttles then count, as in
docker-compose.yml; by default each server process counts in its own memory). Each run:

1. drops and recreates the database ``truc_bench`` (``--db``), runs ``migrate``, and creates the
   players and their knox tokens directly through Django;
2. starts the server as docker-compose.yml does (granian, ``--workers`` processes of
   ``--threads`` threads; or gunicorn, ``--server gunicorn``, for comparison) on a free loopback
   port (DEBUG off, the bench database, ``CELERY_BROKER_URL=memory://``, throttles raised to
   1000000/min);
3. for each level N of ``--levels``: N client threads, each with its own keep-alive HTTP/1.1
   connection (a small client on a socket: ``Http``), each playing its own 2-player valenciano
   matches (long ones: ``camas_to_win`` 5, ``target`` 60) with both seats' tokens: it reads the
   view of the seat to move, picks a random legal action (cards weighted ×3, the mazo ×¼, as
   bench/engine.py does), and POSTs it with ``expected_version`` and a fresh
   ``Idempotency-Key``. ``--warmup`` seconds, then ``--seconds`` measured; each client keeps its
   matches from one level to the next;
4. the first hand against the last hands: one client alternates, action by action, between a
   long match played to its end and fresh matches played through their first hand only, so
   both kinds of sample are taken at the same moments (``--long-seconds`` bounds it);
5. a conditional read answered 304 against a full 200 read of the same game, alternately,
   sequentially, ``--reads`` times each;
6. stops the server (the database stays for inspection, until the next run drops it).

See bench/README.md, section "HTTP load", for what it reports, the targets and the figures.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import http.client
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypedDict

import orjson

ROOT = Path(__file__).resolve().parent.parent


class Postgres(TypedDict):
    host: str
    port: int
    user: str


PG: Postgres = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}
WEIGHTS = {"play": 3.0, "mazo": 0.25}  # as bench/engine.py: hands run to their bazas
LONG_MATCH = {"preset": "valenciano", "players": 2, "options": {"camas_to_win": 5, "target": 60}}
TARGET_RATE, TARGET_P99_MS, TARGET_CLIENTS = 250.0, 100.0, 16
TARGET_HAND_RATIO = 1.2
TARGET_304_SPEEDUP = 3.0
TICK = os.sysconf("SC_CLK_TCK")


# --- setup: database, players, server ----------------------------------------------------------


def recreate_database(name: str) -> None:
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True, **PG) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def server_env(database_url: str, cache_url: str = "") -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DEBUG="false",
        CELERY_BROKER_URL="memory://",
        THROTTLE_RATE_USER="1000000/min",
        THROTTLE_RATE_ANON="1000000/min",
        DJANGO_SETTINGS_MODULE="truc_api.settings",
    )
    env.pop("CACHE_URL", None)  # the throttles count in each process's memory, unless:
    if cache_url:
        env["CACHE_URL"] = cache_url  # as docker-compose.yml has them count, in Redis
    return env


def migrate_and_make_tokens(env: dict[str, str], count: int) -> list[str]:
    """``migrate``, then ``count`` players with one knox token each, straight through Django."""
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections
    from knox.models import AuthToken

    from players.models import Player

    call_command("migrate", verbosity=0, interactive=False)
    tokens = []
    for index in range(count):
        player = Player(username=f"bench{index:03d}", display_name=f"Bench {index}")
        player.set_unusable_password()
        player.save()
        tokens.append(AuthToken.objects.create(player)[1])
    connections.close_all()
    return tokens


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(
    server: str, port: int, workers: int, worker_class: str, threads: int
) -> list[str]:
    """The deployment's server (granian, as in docker-compose.yml) or gunicorn, for comparison."""
    if server == "granian":
        return [
            str(Path(sys.executable).parent / "granian"),
            *("--interface", "wsgi", "--workers", str(workers)),
            *("--blocking-threads", str(threads), "--host", "127.0.0.1", "--port", str(port)),
            "truc_api.wsgi:application",
        ]
    return [
        *(sys.executable, "-m", "gunicorn", "truc_api.wsgi", "-w", str(workers)),
        *("-k", worker_class, "--threads", str(threads), "-b", f"127.0.0.1:{port}"),
    ]


def start_server(command: list[str], env: dict[str, str], port: int, log: Any) -> Any:
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}; see {log.name}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/health/live")
            if conn.getresponse().status == 200:
                conn.close()
                time.sleep(1)  # let the other workers finish booting
                return server
        time.sleep(0.2)
    server.terminate()
    raise SystemExit(f"the server did not answer within 60 s; see {log.name}")


def stop_server(server: Any) -> None:
    server.send_signal(signal.SIGTERM)  # the master stops its own workers
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


# --- CPU accounting: the driver, the server, PostgreSQL, the machine --------------------------


def _proc_cpu(pid: int) -> float:
    """utime + stime of one process, in seconds (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _postgres_backends(database: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if cmdline.startswith("postgres: ") and f" {database} " in cmdline:
                found.append(int(entry.name))
    return found


def _machine_busy() -> float:
    """CPU seconds the whole machine spent busy (every process, every core) since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / TICK


@dataclass
class CpuSnapshot:
    at: float
    driver: float
    server: dict[int, float]
    postgres: dict[int, float]
    machine: float


def cpu_snapshot(server_pid: int, database: str) -> CpuSnapshot:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    server = [server_pid, *_children(server_pid)]
    return CpuSnapshot(
        at=time.monotonic(),
        driver=usage.ru_utime + usage.ru_stime,
        server={pid: _proc_cpu(pid) for pid in server},
        postgres={pid: _proc_cpu(pid) for pid in _postgres_backends(database)},
        machine=_machine_busy(),
    )


def cpu_shares(before: CpuSnapshot, after: CpuSnapshot) -> dict[str, float]:
    """Each consumer's CPU as a percentage of one core (200 % = both cores busy)."""
    wall = after.at - before.at

    def spent(old: dict[int, float], new: dict[int, float]) -> float:
        return sum(cpu - old.get(pid, 0.0) for pid, cpu in new.items())

    shares = {
        "driver": after.driver - before.driver,
        "server": spent(before.server, after.server),
        "postgres": spent(before.postgres, after.postgres),
        "machine": after.machine - before.machine,
    }
    shares["other"] = max(
        0.0, shares["machine"] - shares["driver"] - shares["server"] - shares["postgres"]
    )
    return {key: 100 * value / wall for key, value in shares.items()}


# --- the clients ------------------------------------------------------------------------------


class Client(Protocol):
    """What plays: ``Http`` over a socket, or request_cost.py's ``InProcess``."""

    def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes, float, float]: ...

    def close(self) -> None: ...


class Http:
    """One keep-alive HTTP/1.1 connection, spoken directly on a socket.

    The load generator shares the server's two cores, so it should cost little: http.client
    parses every answer's headers with the email package, which made this driver the third
    consumer of CPU (bench/README.md). A closed connection (gunicorn's sync workers close every
    one) is opened again on the next request."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.reader: Any = None
        self.reconnects = 0

    def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes, float, float]:
        """(status, headers, body, seconds, started) of one request; one retry on a connection
        the server had closed (safe for the actions too: the retry carries the same key)."""
        data = b"" if body is None else orjson.dumps(body)
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Token {token}"]
        lines += ["Accept: application/json", f"Content-Length: {len(data)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + data
        for attempt in (0, 1):
            started = time.perf_counter()
            try:
                status, answer_headers, payload = self._exchange(request, method)
            except (ConnectionError, ValueError):
                self.close()
                if attempt:
                    raise
                self.reconnects += 1
                continue
            return status, answer_headers, payload, time.perf_counter() - started, started
        raise AssertionError("unreachable")

    def _exchange(self, request: bytes, method: str) -> tuple[int, dict[str, str], bytes]:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.reader = self.sock.makefile("rb")
        self.sock.sendall(request)
        status_line = self.reader.readline()
        if not status_line:
            raise ConnectionError("closed by the server")
        status = int(status_line.split()[1])
        headers = {}
        while (line := self.reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            payload = b""
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            payload = self._chunks()
        else:
            payload = self.reader.read(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, payload

    def _chunks(self) -> bytes:
        parts = []
        while size := int(self.reader.readline().split(b";")[0], 16):
            parts.append(self.reader.read(size))
            self.reader.readline()
        while self.reader.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(parts)

    def close(self) -> None:
        if self.sock is not None:
            self.reader.close()
            self.sock.close()
        self.sock = self.reader = None


@dataclass
class Match:
    """One 2-player match driven by one client holding both seats' tokens."""

    id: str
    tokens: tuple[str, str]
    version: int
    views: list[dict[str, Any] | None]  # the last game payload each seat got
    over: bool = False

    def fresh(self, seat: int) -> dict[str, Any] | None:
        view = self.views[seat]
        return view if view is not None and view["version"] == self.version else None


@dataclass
class Sample:
    started: float  # perf_counter
    ms: float
    hand: int
    status: int


@dataclass
class Stats:
    actions: list[Sample] = field(default_factory=list)
    reads: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # a description of each
    matches_started: int = 0
    matches_ended: int = 0


class Player:
    """Plays matches through HTTP; ``step`` makes one action, reading views as needed."""

    def __init__(
        self, http: Client, tokens: tuple[str, str], rng: random.Random, stats: Stats
    ) -> None:
        self.http = http
        self.tokens = tokens
        self.rng = rng
        self.stats = stats

    def new_match(self, create: dict[str, Any]) -> Match:
        status, _, body, _, _ = self.http.call("POST", "/api/games", self.tokens[0], create)
        if status != 201:
            raise RuntimeError(f"create: {status} {body[:300]!r}")
        game = orjson.loads(body)
        status, _, body, _, _ = self.http.call(
            "POST", f"/api/games/{game['id']}/join", self.tokens[1], {"seat": 1}
        )
        if status != 200:
            raise RuntimeError(f"join: {status} {body[:300]!r}")
        joined = orjson.loads(body)
        self.stats.matches_started += 1
        return Match(game["id"], self.tokens, joined["version"], [None, joined])

    def read(self, match: Match, seat: int) -> dict[str, Any]:
        status, _, body, elapsed, started = self.http.call(
            "GET", f"/api/games/{match.id}", match.tokens[seat]
        )
        view: dict[str, Any] | None = orjson.loads(body) if status == 200 else None
        hand = _hand(view) if view else 0
        self.stats.reads.append(Sample(started, elapsed * 1000, hand, status))
        if view is None:
            self.stats.errors.append(f"GET {status} {body[:200]!r}")
            raise RuntimeError(f"read: {status}")
        match.views[seat] = view
        match.version = max(match.version, view["version"])
        return view

    def view_of(self, match: Match, seat: int) -> dict[str, Any]:
        return match.fresh(seat) or self.read(match, seat)

    def mover(self, match: Match) -> tuple[int, dict[str, Any]] | None:
        """The seat to act and its fresh view; None when the match is over."""
        known = match.fresh(0) or match.fresh(1) or self.read(match, 1)
        if known["status"] != "active":
            return None
        turn = known["state"]["turn"]
        order = [turn, 1 - turn] if turn is not None else [0, 1]
        for seat in order:
            view = self.view_of(match, seat)
            if view["status"] != "active":
                return None
            if view["state"]["legal_actions"]:
                return seat, view
        raise RuntimeError(f"match {match.id} at version {match.version}: nobody may act")

    def step(self, match: Match) -> int | None:
        """One action in ``match``: the hand it was taken in (None when the match is over)."""
        found = self.mover(match)
        if found is None:
            match.over = True
            self.stats.matches_ended += 1
            return None
        seat, view = found
        legal = view["state"]["legal_actions"]
        action = self.rng.choices(legal, [WEIGHTS.get(a["type"], 1.0) for a in legal])[0]
        hand = _hand(view)
        status, _, body, elapsed, started = self.http.call(
            "POST",
            f"/api/games/{match.id}/actions",
            match.tokens[seat],
            {**action, "expected_version": match.version},
            {"Idempotency-Key": str(uuid.uuid4())},
        )
        self.stats.actions.append(Sample(started, elapsed * 1000, hand, status))
        if status == 201:
            result = orjson.loads(body)
            match.version = result["version"]
            match.views[seat] = result["game"]
        else:
            self.stats.errors.append(f"POST {action} at v{match.version}: {status} {body[:200]!r}")
            match.views = [None, None]  # read both seats again
            match.version = 0
        return hand


def _hand(view: dict[str, Any]) -> int:
    state = view.get("state")
    hand = state and state.get("hand")
    return int(hand["number"]) if hand else 0


# --- the phases -------------------------------------------------------------------------------


@dataclass
class Level:
    clients: int
    seconds: float
    stats: Stats
    cpu: dict[str, float]
    load: tuple[float, float, float]
    reconnects: int

    def measured(self, samples: list[Sample], start: float) -> list[Sample]:
        return [
            s
            for s in samples
            if start <= s.started and s.started + s.ms / 1000 <= start + self.seconds
        ]


def run_level(
    port: int,
    clients: int,
    tokens: list[str],
    pool: dict[int, Match],
    warmup: float,
    seconds: float,
    server_pid: int,
    database: str,
    seed: int,
) -> tuple[Level, float]:
    stop = threading.Event()
    barrier = threading.Barrier(clients + 1)
    stats = [Stats() for _ in range(clients)]
    https = [Http(port) for _ in range(clients)]

    def client(index: int) -> None:
        player = Player(
            https[index],
            (tokens[2 * index], tokens[2 * index + 1]),
            random.Random(f"{seed}:{clients}:{index}"),
            stats[index],
        )
        barrier.wait()
        try:
            while not stop.is_set():
                match = pool.get(index)
                if match is None or match.over:
                    match = pool[index] = player.new_match(LONG_MATCH)
                player.step(match)
        except Exception as error:  # noqa: BLE001 - reported, and the level goes on without it
            stats[index].errors.append(f"client {index} stopped: {error!r}")

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    time.sleep(warmup)
    start = time.perf_counter()
    before = cpu_snapshot(server_pid, database)
    time.sleep(seconds)
    after = cpu_snapshot(server_pid, database)
    load = os.getloadavg()
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    merged = Stats()
    for one in stats:
        merged.actions += one.actions
        merged.reads += one.reads
        merged.errors += one.errors
        merged.matches_started += one.matches_started
        merged.matches_ended += one.matches_ended
    reconnects = sum(h.reconnects for h in https)
    for h in https:
        h.close()
    level = Level(clients, seconds, merged, cpu_shares(before, after), load, reconnects)
    return level, start


def first_vs_last_hands(
    port: int, tokens: tuple[str, str], seconds: float, seed: int
) -> tuple[list[Sample], list[list[Sample]], list[str]]:
    """Alternate actions between long matches played to their end and fresh matches played
    through their first hand: (first-hand samples, each long match's samples, errors)."""
    stats = Stats()
    player = Player(Http(port), tokens, random.Random(f"{seed}:hands"), stats)
    first: list[Sample] = []
    longs: list[list[Sample]] = []
    deadline = time.monotonic() + seconds
    long_match = player.new_match(LONG_MATCH)
    fresh = player.new_match(LONG_MATCH)
    current: list[Sample] = []
    while time.monotonic() < deadline:
        if player.step(long_match) is not None:
            current.append(stats.actions[-1])
        else:  # the long match ended: keep it, start another
            longs.append(current)
            current = []
            long_match = player.new_match(LONG_MATCH)
        hand = player.step(fresh)
        if hand == 1:
            first.append(stats.actions[-1])
        if hand is None or hand > 1 or _hand(fresh.fresh(0) or fresh.fresh(1) or {}) > 1:
            fresh = player.new_match(LONG_MATCH)  # the first hand is over: a new match
    if current:
        longs.append(current)  # unfinished: its hands so far still count
    player.http.close()
    return first, longs, stats.errors


def conditional_reads(
    port: int, token: str, game_id: str, repeats: int
) -> tuple[list[float], list[float]]:
    """Full reads (200) and conditional reads (304) of one game, alternately: (200 ms, 304 ms)."""
    http = Http(port)
    path = f"/api/games/{game_id}"
    status, headers, _, _, _ = http.call("GET", path, token)
    tag = headers.get("etag")
    if status != 200 or not tag:
        raise RuntimeError(f"no ETag on GET {path}: {status}")
    full, cached = [], []
    for _ in range(repeats):
        status, _, body, elapsed, _ = http.call("GET", path, token)
        if status != 200 or not body:
            raise RuntimeError(f"full read: {status}")
        full.append(elapsed * 1000)
        status, _, body, elapsed, _ = http.call("GET", path, token, headers={"If-None-Match": tag})
        if status != 304:
            raise RuntimeError(f"conditional read: {status}")
        cached.append(elapsed * 1000)
    http.close()
    return full, cached


# --- report -----------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q / 100 * len(ordered) + 0.5)) - 1))]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def level_row(level: Level, start: float) -> dict[str, Any]:
    actions = level.measured(level.stats.actions, start)
    reads = level.measured(level.stats.reads, start)
    ok = [s.ms for s in actions if s.status == 201]
    hands = [s.hand for s in actions]
    top = max(hands, default=0)
    first = [s.ms for s in actions if s.hand == 1 and s.status == 201]
    last = [s.ms for s in actions if s.hand >= 0.9 * top and s.status == 201]
    return {
        "clients": level.clients,
        "rate": len(ok) / level.seconds,
        "p50": pct(ok, 50),
        "p99": pct(ok, 99),
        # non-201 actions and non-200 reads in the window, and clients that gave up
        "errors": sum(1 for s in actions if s.status != 201)
        + sum(1 for s in reads if s.status != 200)
        + sum(1 for e in level.stats.errors if e.startswith("client ")),
        "reads": len(reads) / level.seconds,
        "read_p50": pct([s.ms for s in reads], 50),
        "top": top,
        # server + PostgreSQL CPU per action (its reads included), and what two idle cores
        # would then serve with no driver on them: a figure the other load on the machine
        # disturbs far less than the rate itself
        "cpu_ms": cpu_seconds(level) * 1000 / max(1, len(ok)),
        "first": statistics.median(first) if first else float("nan"),
        "last": statistics.median(last) if last else float("nan"),
    }


def cpu_seconds(level: Level) -> float:
    """CPU seconds the server and its PostgreSQL backends spent in the measured window."""
    return (level.cpu["server"] + level.cpu["postgres"]) / 100 * level.seconds


def print_levels(levels: list[tuple[Level, float]]) -> list[dict[str, Any]]:
    print()
    print(
        f"{'clients':>7} {'actions/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
        f"{'reads/s':>7} {'read p50':>8} | {'hand 1':>6} {'top hands':>9} {'max':>4} | "
        f"{'driver':>6} {'server':>6} {'pg':>5} {'other':>5} {'idle':>5} | "
        f"{'CPU ms':>6} {'ceiling':>7} | load"
    )
    print(
        f"{'':>7} {'':>9} {'(201)':>7} {'(201)':>7} {'':>6} {'':>7} {'ms':>8} | "
        f"{'p50 ms':>6} {'p50 ms':>9} {'hand':>4} | {'CPU % of one core (200 = both)':>33} | "
        f"{'/action':>6} {'act/s':>7} |"
    )
    print("-" * 146)
    rows = []
    for level, start in levels:
        row = level_row(level, start)
        rows.append(row)
        cpu = level.cpu
        idle = max(0.0, 200 - cpu["machine"])
        print(
            f"{row['clients']:>7} {row['rate']:>9.1f} {row['p50']:>7.1f} {row['p99']:>7.1f} "
            f"{row['errors']:>6} {row['reads']:>7.1f} {row['read_p50']:>8.1f} | "
            f"{row['first']:>6.1f} {row['last']:>9.1f} {row['top']:>4} | "
            f"{cpu['driver']:>6.0f} {cpu['server']:>6.0f} {cpu['postgres']:>5.0f} "
            f"{cpu['other']:>5.0f} {idle:>5.0f} | {row['cpu_ms']:>6.1f} "
            f"{2000 / row['cpu_ms']:>7.0f} | {level.load[0]:.2f}"
        )
    for level, _ in levels:
        for error in level.stats.errors[:5]:
            print(f"  error at {level.clients} clients: {error}")
        if len(level.stats.errors) > 5:
            print(f"  ... {len(level.stats.errors) - 5} more errors at {level.clients} clients")
    return rows


def hand_buckets(first: list[Sample], longs: list[list[Sample]]) -> None:
    edges = [(1, 1), (2, 10), (11, 25), (26, 50), (51, 75), (76, 100), (101, 10_000)]
    samples = [s for match in longs for s in match if s.status == 201]
    cells = []
    for low, high in edges:
        chosen = [s.ms for s in samples if low <= s.hand <= high]
        if chosen:
            name = f"{low}" if low == high else (f"{low}-{high}" if high < 10_000 else f"{low}+")
            cells.append(f"hand {name}: {statistics.median(chosen):.1f} ms (n={len(chosen)})")
    print("  long matches, median by hand: " + "; ".join(cells))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds a level")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--levels", default="8,16,32", help="concurrent clients, comma-separated")
    parser.add_argument("--server", default="granian", choices=("granian", "gunicorn"))
    parser.add_argument("--workers", type=int, default=2, help="server processes")
    parser.add_argument("--threads", type=int, default=2, help="threads a process runs the app on")
    parser.add_argument("--worker-class", default="gthread", help="gunicorn -k (sync, gthread)")
    parser.add_argument("--long-seconds", type=float, default=60.0, help="first vs last hands")
    parser.add_argument("--reads", type=int, default=300, help="200 and 304 reads, each")
    parser.add_argument("--db", default="truc_bench", help="dropped and recreated")
    parser.add_argument("--cache-url", default="", help="the throttles' cache (CACHE_URL)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.levels.split(",") if n.strip()]

    print(f"# bench/http_load.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(
        f"# {os.cpu_count()} cores, Python {sys.version.split()[0]}, {args.server}, "
        f"{args.workers} processes x {args.threads} threads; levels {levels}, "
        f"{args.seconds:g} s each after {args.warmup:g} s of warm-up"
    )
    print(f"# server code: {_git_describe()}")
    print(f"# throttles count in: {args.cache_url or 'each process memory (locmem)'}")
    print(f"# machine speed at the start: {machine_speed():,.0f} engine actions/s (one core)")
    database_url = f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{args.db}"
    recreate_database(args.db)
    env = server_env(database_url, args.cache_url)
    tokens = migrate_and_make_tokens(env, 2 * max(levels, default=1) + 2)
    port = free_port()
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in the finally below
        "w", prefix="http_load-server-", suffix=".log", delete=False
    )
    command = server_command(args.server, port, args.workers, args.worker_class, args.threads)
    server = start_server(command, env, port, log)
    print(f"# {args.server} pid {server.pid} on 127.0.0.1:{port}, log {log.name}")
    try:
        pool: dict[int, Match] = {}
        results = []
        for clients in levels:
            results.append(
                run_level(
                    port,
                    clients,
                    tokens,
                    pool,
                    args.warmup,
                    args.seconds,
                    server.pid,
                    args.db,
                    args.seed,
                )
            )
        rows = print_levels(results)

        spare = (tokens[-2], tokens[-1])
        first, longs, errors = first_vs_last_hands(port, spare, args.long_seconds, args.seed)
        ok_first = [s for s in first if s.status == 201]
        last: list[Sample] = []
        reached = []
        for match in longs:
            top = max((s.hand for s in match), default=0)
            reached.append(top)
            last += [s for s in match if s.hand >= 0.9 * top and s.status == 201]
        print()
        print(
            f"first hand vs last hands ({args.long_seconds:g} s, one client alternating):"
            f" {len(longs)} long match(es) reaching hand {reached}; {len(first)} first-hand "
            f"actions in fresh matches"
        )
        hand_buckets(first, longs)
        for error in errors[:5]:
            print(f"  error: {error}")

        polled = _any_active_match(pool)
        full, cached = conditional_reads(port, polled.tokens[0], polled.id, args.reads)
        print(
            f"reads of one game, {args.reads} each, alternating: full 200 p50 "
            f"{pct(full, 50):.2f} ms (p90 {pct(full, 90):.2f}), 304 p50 {pct(cached, 50):.2f} "
            f"ms (p90 {pct(cached, 90):.2f})"
        )

        print()
        row = next((r for r in rows if r["clients"] == TARGET_CLIENTS), None)
        if row is None:
            print(
                f"target >= {TARGET_RATE:g} actions/s at {TARGET_CLIENTS} clients with p99 < "
                f"{TARGET_P99_MS:g} ms: not measured (no level of {TARGET_CLIENTS})"
            )
        else:
            ok = row["rate"] >= TARGET_RATE and row["p99"] < TARGET_P99_MS and not row["errors"]
            print(
                f"target >= {TARGET_RATE:g} actions/s at {TARGET_CLIENTS} clients with p99 < "
                f"{TARGET_P99_MS:g} ms: {row['rate']:.0f} actions/s, p99 {row['p99']:.0f} ms, "
                f"{row['errors']} errors -> {verdict(ok)}"
            )
        if ok_first and last:
            # Each last-hand action against the first-hand action taken next to it: the last
            # hands come late in each long match, and the machine's speed drifts meanwhile.
            paired = [_nearest(ok_first, sample).ms for sample in last]
            ratio = statistics.median(s.ms for s in last) / statistics.median(paired)
            print(
                f"target last-hand latency <= {TARGET_HAND_RATIO:g}x first-hand: last hands (top "
                f"10 % of each long match) p50 {statistics.median(s.ms for s in last):.2f} ms, "
                f"the first-hand actions next to them p50 {statistics.median(paired):.2f} ms "
                f"(all first-hand actions: {statistics.median(s.ms for s in ok_first):.2f} ms): "
                f"{ratio:.2f}x -> {verdict(ratio <= TARGET_HAND_RATIO)}"
            )
        else:
            print("target last-hand latency: not measured (no samples)")
        speedup = pct(full, 50) / pct(cached, 50)
        print(
            f"target 304 >= {TARGET_304_SPEEDUP:g}x faster than a full read: {speedup:.1f}x -> "
            f"{verdict(speedup >= TARGET_304_SPEEDUP)}"
        )
        print(
            f"# uptime at the end: "
            f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}"
        )
        print(f"# machine speed at the end: {machine_speed():,.0f} engine actions/s (one core)")
    finally:
        stop_server(server)
        log.close()


def machine_speed(seconds: float = 2.0) -> float:
    """The machine's speed at this moment, by a workload that never changes: bench/engine.py's
    random 2-player valenciano playouts, in actions per second of CPU time. These shared machines
    drift by a third within an hour (bench/README.md); a run's figures are read against it."""
    # Imported when first measured, not with this module: ``request_cost.py --against`` puts
    # another checkout's server code first on the path after importing this module, and the
    # ``games`` package must then come from there.
    from bench import engine as playouts
    from games.engine import resolve_rules

    rules, rng = resolve_rules("valenciano", {"players": 2}), random.Random(0)
    actions, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        actions += playouts.play_match(rules, rng)[1]
    return actions / (time.process_time() - start)


def _git_describe() -> str:
    """The commit the server runs, and whether the working tree differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"commit {git('rev-parse', '--short', 'HEAD')}" + (
        " + uncommitted changes in the working tree" if dirty else ""
    )


def _nearest(samples: list[Sample], other: Sample) -> Sample:
    """The sample of ``samples`` (in the order they were taken) started nearest ``other``."""
    starts = [sample.started for sample in samples]
    at = bisect.bisect_left(starts, other.started)
    near = samples[max(0, at - 1) : at + 1]
    return min(near, key=lambda sample: abs(sample.started - other.started))


def _any_active_match(pool: dict[int, Match]) -> Match:
    for match in pool.values():
        if not match.over:
            return match
    raise RuntimeError("no active match left to read")


if __name__ == "__main__":
    main()
