"""What one action costs the server, in process: CPU per action with its reads, no HTTP server.

    .venv/bin/python bench/request_cost.py [--rounds 6] [--actions 400] [--profile N]
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
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import http_load  # noqa: E402 - bench/http_load.py, beside this file


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

        def start_response(status: str, response_headers: list, exc_info: Any = None) -> None:
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--actions", type=int, default=400, help="actions a round")
    parser.add_argument("--matches", type=int, default=8, help="matches played in turn")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N functions")
    parser.add_argument("--statements", action="store_true", help="print one action's SQL")
    parser.add_argument("--db", default="truc_bench", help="dropped and recreated")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    # The server's log lines (structlog, stdout) go to a file, as the server's do; the report
    # goes to the original stdout.
    report = os.fdopen(os.dup(1), "w", buffering=1)
    log = open(f"/tmp/request_cost-{os.getpid()}.log", "w")  # noqa: SIM115 - lives as long as the run
    os.dup2(log.fileno(), 1)
    pg = http_load.PG
    http_load.recreate_database(args.db)
    env = http_load.server_env(f"postgres://{pg['user']}@{pg['host']}:{pg['port']}/{args.db}")
    tokens = http_load.migrate_and_make_tokens(env, 2)
    from django.db import connection

    from truc_api.wsgi import application

    sys.stdout = report  # the log handler keeps the stream it was given: the file

    client = InProcess(application)
    player = http_load.Player(
        client, (tokens[0], tokens[1]), random.Random(args.seed), http_load.Stats()
    )
    matches = [player.new_match(http_load.LONG_MATCH) for _ in range(args.matches)]
    play(player, matches, args.actions // 2)  # warm-up: connections, caches, prepared plans
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]

    if args.statements:
        print_statements(player, matches)
    print(f"# bench/request_cost.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# {http_load._git_describe()}; {args.rounds} rounds of {args.actions} actions")
    print(f"{'round':>5} {'speed':>7} {'app ms':>7} {'pg ms':>6} {'reads':>6}")
    app_ms, pg_ms = [], []
    for number in range(1, args.rounds + 1):
        speed = http_load.machine_speed(1.0)
        cpu, pg_cpu, reads = client.cpu, backend_cpu(backend), len(player.stats.reads)
        play(player, matches, args.actions)
        app = (client.cpu - cpu) * 1000 / args.actions
        database = (backend_cpu(backend) - pg_cpu) * 1000 / args.actions
        per_action = (len(player.stats.reads) - reads) / args.actions
        app_ms.append(app)
        pg_ms.append(database)
        print(f"{number:>5} {speed:>7,.0f} {app:>7.2f} {database:>6.2f} {per_action:>6.2f}")
    print(
        f"median: app {statistics.median(app_ms):.2f} ms (min {min(app_ms):.2f}), pg "
        f"{statistics.median(pg_ms):.2f} ms (min {min(pg_ms):.2f}) an action with its reads"
    )
    if args.profile:
        profiler = cProfile.Profile(time.thread_time)  # CPU, not waits on PostgreSQL
        profiler.enable()
        play(player, matches, args.actions)
        profiler.disable()
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.profile)
            print(out.getvalue())


if __name__ == "__main__":
    main()
