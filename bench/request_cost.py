"""What one action costs the server, in process: CPU per action with its reads, no HTTP server.

    .venv/bin/python -m bench.request_cost [--rounds 6] [--actions 400] [--profile N]
        [--statements]

Run by hand, never as a test. It needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
auth). It drops and recreates the database ``truc_bench`` (``--db``), then plays 2-player
valenciano matches exactly as ``http_load.py``'s clients do (read the view of the seat to move
unless the last answer is still fresh, POST a random legal action with ``expected_version`` and
an ``Idempotency-Key``), but hands each request straight to the WSGI application of
``truc_api/wsgi.py`` in this process: no socket, no HTTP server, one thread.

Each round measures, over ``--actions`` actions:

- **app ms**: this thread's CPU time inside the application (requests and their answers' bodies);
- **pg ms**: the CPU time of the PostgreSQL backend serving this process's connection;
- **speed**: the machine's speed just before, by ``http_load.py``'s probe (``engine.py``'s
  random playouts, which never change, in actions per CPU-second): these shared machines drift
  by a third within minutes, so compare code in alternating runs, not against an old figure.

``--against DIR`` compares this checkout's server code with another checkout's (``git worktree
add DIR <commit>``; the same ``.venv``): each runs in a process of its own with its own database,
they take rounds in turn (the order alternating), and the report gives each one's medians and,
round by round, the ratio of this checkout's CPU to the other's: the machine's drift falls on
both alike.

``--polls N`` prices a poll instead: one game of the session read ``N`` times in full and ``N``
times with ``If-None-Match`` (answered 304), in alternating blocks, and the CPU of each (the
application's and the PostgreSQL backend's) and their ratio; with ``--profile`` the profile is of
the 304s only. With ``--against`` both checkouts do so, round by round in turn: each one's ratio,
and this checkout's 304 and full read against the other's.

``--profile N`` runs one more round under cProfile (counting CPU time, not waits; its own cost
inflates the functions called most often) and prints the N most expensive functions by own time
and by cumulative time. ``--statements`` prints the SQL of three steps first.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import http_load

ROOT = Path(__file__).resolve().parent.parent


class InProcess:
    """``http_load.Http``'s interface, answered by calling the WSGI application directly."""

    def __init__(self, application: Any) -> None:
        self.application = application
        self.cpu = 0.0  # thread CPU seconds spent inside the application

    def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes, float, float]:
        data = b"" if body is None else json.dumps(body).encode()
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": f"Token {token}",
            "HTTP_ACCEPT": "application/json",
            "CONTENT_LENGTH": str(len(data)),
            "wsgi.input": io.BytesIO(data),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.version": (1, 0),
        }
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        answer: dict[str, Any] = {}

        def start_response(
            status: str, response_headers: list[tuple[str, str]], exc_info: Any = None
        ) -> None:
            answer["status"] = int(status.split()[0])
            answer["headers"] = {k.lower(): v for k, v in response_headers}

        started, cpu = time.perf_counter(), time.thread_time()
        chunks = self.application(environ, start_response)
        try:
            payload = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
        self.cpu += time.thread_time() - cpu
        elapsed = time.perf_counter() - started
        return answer["status"], answer["headers"], payload, elapsed, started

    def close(self) -> None:
        pass


def backend_cpu(pid: int) -> float:
    return http_load._proc_cpu(pid)


def play(player: http_load.Player, matches: list[http_load.Match], actions: int) -> None:
    """``actions`` actions spread over ``matches`` in turn; a finished match is replaced."""
    done = 0
    while done < actions:
        for index, match in enumerate(matches):
            if player.step(match) is None:
                matches[index] = player.new_match(http_load.LONG_MATCH)
            else:
                done += 1
    if player.stats.errors:
        raise SystemExit(f"errors: {player.stats.errors[:3]}")


def print_statements(player: http_load.Player, matches: list[http_load.Match]) -> None:
    """The SQL statements of the next few steps (a step: an action with the reads it needs)."""
    from django.db import connection

    def show(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        print(f"    {' '.join(sql.split())[:150]}")
        return execute(sql, params, many, context)

    for match in matches[:3]:
        print(f"# statements of a step ({len(player.stats.reads)} reads so far):")
        with connection.execute_wrapper(show):
            player.step(match)


@dataclass
class Session:
    player: http_load.Player
    matches: list[http_load.Match]
    client: InProcess
    backend: int  # the PostgreSQL backend's pid

    def measure(self, actions: int) -> tuple[float, float, float]:
        """(app ms, pg ms, reads) per action over ``actions`` more actions."""
        cpu, pg_cpu, reads = (
            self.client.cpu,
            backend_cpu(self.backend),
            len(self.player.stats.reads),
        )
        play(self.player, self.matches, actions)
        return (
            (self.client.cpu - cpu) * 1000 / actions,
            (backend_cpu(self.backend) - pg_cpu) * 1000 / actions,
            (len(self.player.stats.reads) - reads) / actions,
        )


def start(database: str, seed: int, matches: int, warmup: int, tree: str = "") -> Session:
    """A fresh database, two players, ``matches`` matches warmed up by ``warmup`` actions. The
    log lines (structlog, stdout) go to a file, as the server's do; stdout stays the report's."""
    report = os.fdopen(os.dup(1), "w", buffering=1)
    log = open(f"/tmp/request_cost-{database}.log", "w")  # noqa: SIM115 - lives as long as the run
    os.dup2(log.fileno(), 1)
    if tree:  # the other checkout's server code, before this one's (http_load put it first)
        sys.path.insert(0, tree)
        os.chdir(tree)
    pg = http_load.PG
    http_load.recreate_database(database)
    env = http_load.server_env(f"postgres://{pg['user']}@{pg['host']}:{pg['port']}/{database}")
    # One backend for the whole run (not a new one each minute, CONN_MAX_AGE's default): its
    # CPU is read by its pid.
    env["CONN_MAX_AGE"] = "86400"
    tokens = http_load.migrate_and_make_tokens(env, 2)
    from django.db import connection

    from truc_api.wsgi import application

    sys.stdout = report  # the log handler keeps the stream it was given: the file
    client = InProcess(application)
    player = http_load.Player(
        client, (tokens[0], tokens[1]), random.Random(seed), http_load.Stats()
    )
    found = [player.new_match(http_load.LONG_MATCH) for _ in range(matches)]
    play(player, found, warmup)  # connections, caches, prepared plans
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    return Session(player, found, client, backend)


def serve(args: argparse.Namespace) -> None:
    """A side of ``--against``: a session that measures a round for each line read (with
    ``--polls``, a round of ``poll_round``)."""
    session = start(args.db, args.seed, args.matches, args.actions // 2, args.tree)
    poller = Poller(session) if args.polls else None
    print("ready")
    for line in sys.stdin:
        found = session.measure(int(line)) if poller is None else poller.round(int(line))
        print(json.dumps(found))


def compare(args: argparse.Namespace) -> None:
    sides = {}
    for name, tree in (("this", ""), ("other", os.path.abspath(args.against))):
        command = [sys.executable, "-m", "bench.request_cost", "--serve"]
        command += ["--db", f"{args.db}_{name}"]
        command += ["--actions", str(args.actions), "--matches", str(args.matches)]
        command += ["--seed", str(args.seed), *(["--tree", tree] if tree else [])]
        command += ["--polls", str(args.polls)] if args.polls else []
        side = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert side.stdout is not None and side.stdout.readline().strip() == "ready"
        sides[name] = side
    print(f"# bench/request_cost.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}: this checkout")
    print(f"# ({http_load._git_describe()}) against {args.against}, {args.rounds} rounds")
    found: dict[str, list[list[float]]] = {"this": [], "other": []}
    for number in range(args.rounds):
        for name in ("this", "other") if number % 2 == 0 else ("other", "this"):
            side = sides[name]
            assert side.stdin is not None and side.stdout is not None
            side.stdin.write(f"{args.polls or args.actions}\n")
            side.stdin.flush()
            found[name].append(json.loads(side.stdout.readline()))
    if args.polls:
        compare_polls(found)
    else:
        compare_actions(found)
    for side in sides.values():
        assert side.stdin is not None
        side.stdin.close()
        side.wait()


def compare_actions(found: dict[str, list[list[float]]]) -> None:
    for name, rounds in found.items():
        app, database = [r[0] for r in rounds], [r[1] for r in rounds]
        print(
            f"{name:>5}: app {statistics.median(app):.2f} ms (min {min(app):.2f}), "
            f"pg {statistics.median(database):.2f} ms (min {min(database):.2f})"
        )
    for column, label in ((0, "app"), (1, "pg")):
        ratios = [a[column] / b[column] for a, b in zip(found["this"], found["other"], strict=True)]
        each = " ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"this/other {label}: median {statistics.median(ratios):.3f} (rounds: {each})")


def compare_polls(found: dict[str, list[list[float]]]) -> None:
    """Each side's full read and 304 (application + PostgreSQL CPU, ms), round by round, and
    the ratio of the two in each round."""
    for name, rounds in found.items():
        each = " ".join(f"{r[0] + r[1]:.2f}/{r[2] + r[3]:.2f}" for r in rounds)
        ratios = [(r[0] + r[1]) / (r[2] + r[3]) for r in rounds]
        cheaper = " ".join(f"{ratio:.2f}" for ratio in ratios)
        print(
            f"{name:>5}: full/304 ms by round {each}; a 304 cheaper by {cheaper},"
            f" median {statistics.median(ratios):.2f}x"
        )
    for column, label in ((2, "304"), (0, "full read")):
        ratios = [
            (a[column] + a[column + 1]) / (b[column] + b[column + 1])
            for a, b in zip(found["this"], found["other"], strict=True)
        ]
        each = " ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"this/other {label}: median {statistics.median(ratios):.3f} (rounds: {each})")


class Poller:
    """One game of the session read in full and with ``If-None-Match`` (answered 304)."""

    def __init__(self, session: Session) -> None:
        self.session, self.client = session, session.client
        match = session.matches[0]
        self.path, self.token, self.version = (
            f"/api/games/{match.id}",
            match.tokens[0],
            match.version,
        )
        status, headers, _, _, _ = self.client.call("GET", self.path, self.token)
        assert status == 200, status
        self.poll = {"If-None-Match": headers["etag"]}

    def block(self, conditional: bool, count: int) -> tuple[float, float]:
        """(application, PostgreSQL) CPU seconds of ``count`` reads of one kind."""
        cpu, pg_cpu = self.client.cpu, backend_cpu(self.session.backend)
        for _ in range(count):
            headers = self.poll if conditional else None
            answer = self.client.call("GET", self.path, self.token, headers=headers)
            assert answer[0] == (304 if conditional else 200), answer[0]
        return self.client.cpu - cpu, backend_cpu(self.session.backend) - pg_cpu

    def round(self, reads: int) -> list[float]:
        """ms per request: [full app, full pg, 304 app, 304 pg], ``reads`` of each in blocks of
        50 taken in turn (the machine's drift falls on both)."""
        spent = {True: [0.0, 0.0], False: [0.0, 0.0]}
        for start in range(0, reads, 50):
            for conditional in (False, True) if start % 100 == 0 else (True, False):
                app, database = self.block(conditional, min(50, reads - start))
                spent[conditional][0] += app
                spent[conditional][1] += database
        return [value * 1000 / reads for value in (*spent[False], *spent[True])]


def polls(session: Session, rounds: int, reads: int, profile: int) -> None:
    """CPU of a full read against a 304 of the same game, ``reads`` of each a round."""
    poller = Poller(session)
    print(f"# bench/request_cost.py --polls {reads} {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# {http_load._git_describe()}; one game at version {poller.version}, {rounds} rounds")
    columns = ("round", 5), ("full app ms", 11), ("pg ms", 6), ("304 app ms", 10), ("pg ms", 6)
    print(" ".join(f"{name:>{width}}" for name, width in columns) + f" {'ratio':>6}")
    ratios = []
    for number in range(1, rounds + 1):
        each = poller.round(reads)
        ratios.append((each[0] + each[1]) / (each[2] + each[3]))
        print(
            f"{number:>5} {each[0]:>11.3f} {each[1]:>6.3f} {each[2]:>10.3f} {each[3]:>6.3f}"
            f" {ratios[-1]:>5.2f}x"
        )
    print(
        f"median: a 304 {statistics.median(ratios):.2f}x cheaper than a full read in CPU"
        " (application and PostgreSQL)"
    )
    if profile:
        profiler = cProfile.Profile(time.thread_time)
        profiler.enable()
        poller.block(True, reads)
        profiler.disable()
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(profile)
            print(out.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--actions", type=int, default=400, help="actions a round")
    parser.add_argument("--matches", type=int, default=8, help="matches played in turn")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N functions")
    parser.add_argument("--statements", action="store_true", help="print one action's SQL")
    parser.add_argument("--against", default="", metavar="DIR", help="another checkout")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default="", help=argparse.SUPPRESS)
    parser.add_argument("--db", default="truc_bench", help="dropped and recreated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--polls", type=int, default=0, metavar="N", help="price 304s instead")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args)
    if args.against:
        return compare(args)

    session = start(args.db, args.seed, args.matches, args.actions // 2)
    if args.polls:
        return polls(session, args.rounds, args.polls, args.profile)
    if args.statements:
        print_statements(session.player, session.matches)
    print(f"# bench/request_cost.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# {http_load._git_describe()}; {args.rounds} rounds of {args.actions} actions")
    print(f"{'round':>5} {'speed':>7} {'app ms':>7} {'pg ms':>6} {'reads':>6}")
    app_ms, pg_ms = [], []
    for number in range(1, args.rounds + 1):
        speed = http_load.machine_speed(1.0)
        app, database, reads = session.measure(args.actions)
        app_ms.append(app)
        pg_ms.append(database)
        print(f"{number:>5} {speed:>7,.0f} {app:>7.2f} {database:>6.2f} {reads:>6.2f}")
    print(
        f"median: app {statistics.median(app_ms):.2f} ms (min {min(app_ms):.2f}), pg "
        f"{statistics.median(pg_ms):.2f} ms (min {min(pg_ms):.2f}) an action with its reads"
    )
    if args.profile:
        profiler = cProfile.Profile(time.thread_time)  # CPU, not waits on PostgreSQL
        profiler.enable()
        play(session.player, session.matches, args.actions)
        profiler.disable()
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.profile)
            print(out.getvalue())


if __name__ == "__main__":
    main()
