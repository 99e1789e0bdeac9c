"""The performance floor: the real action endpoint beside the bare DRF endpoint of
``../shared/bench-reference`` (its README), in one run, in alternating rounds.

    .venv/bin/python -m bench.floor [--rounds 4] [--seconds 12] [--clients 8] [--workers 2]
        [--threads 2] [--reads 300] [--long-seconds 40]

Run by hand, never as a test; it needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
auth). Both servers run the same way (granian, ``--workers`` processes × ``--threads`` threads,
persistent connections, DEBUG off) on the same PostgreSQL; each round gives each the same load in
turn, so the machine's drift (a third within minutes on these shared machines) falls on both:

1. **project**: ``--clients`` threads play 2-player valenciano matches through HTTP as
   bench/http_load.py does (each action with the reads its client needs to know the legal
   actions: a view is read when the last answer it holds is stale);
2. **project reads**: the same clients only read their games in full (200), to price a read;
3. **bare**: ``--clients`` threads POST the bare action (the reference's ``/games/<id>/actions``),
   each cycling over its own share of ``--bare-games`` games reseeded first to 60 events each, so
   every bare game stays near the size its README prescribes (60 events, plus one for every
   pass of its client over its share; the size reached is printed with each round). One game a
   client, as before, grew to several hundred events in a phase, and the bare action then read
   and folded several times the events it should: the floor was flattering the project.

For each it takes the CPU of the server's processes and of PostgreSQL's backends serving its
database (``/proc``), and the requests answered. It reports per round: CPU per bare action; CPU
per project action with its reads, and with the reads' CPU (priced by phase 2) taken out; the
ratios of CPU per action and of throughput. Then, on the project only: a 304 against a full read
(CPU per request, by phases of each, and latency, alternating), and the first hand's latency
against the last hands' (bench/http_load.py's ``first_vs_last_hands``).

Targets (issue 12): action CPU ≤ 1.25× the bare's; a 304 ≥ 3× cheaper than a full read; last-hand
latency ≤ 1.2× the first hand's. Figures in bench/README.md, "The floor".
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from bench import http_load as load  # the clients, the servers, the CPU accounting

REFERENCE = load.ROOT.parent / "shared" / "bench-reference"
GRANIAN = str(Path(sys.executable).parent / "granian")
BARE_ACTION = {"type": "play_card", "card": "1E"}


@dataclass
class Phase:
    requests: int  # answered 2xx
    actions: int
    seconds: float
    cpu_ms: float  # server and PostgreSQL, milliseconds in all
    errors: int

    @property
    def rate(self) -> float:
        return self.actions / self.seconds


def measure(server: Any, database: str, seconds: float, work: Any) -> Phase:
    """Run ``work(stop, counts)`` in the clients while ``seconds`` are measured."""
    stop = threading.Event()
    counts = {"requests": 0, "actions": 0, "errors": 0}
    lock = threading.Lock()
    threads = work(stop, counts, lock)
    time.sleep(1.0)  # warm-up: connections opened, the caches filled
    with lock:
        start = dict(counts)
    before = load.cpu_snapshot(server.pid, database)
    time.sleep(seconds)
    after = load.cpu_snapshot(server.pid, database)
    with lock:
        end = dict(counts)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    shares = load.cpu_shares(before, after)
    wall = after.at - before.at
    cpu_ms = (shares["server"] + shares["postgres"]) / 100 * wall * 1000
    done = {key: end[key] - start[key] for key in end}
    return Phase(done["requests"], done["actions"], wall, cpu_ms, done["errors"])


def project_play(port: int, tokens: list[str], pool: dict[int, load.Match], clients: int) -> Any:
    def work(stop: threading.Event, counts: dict[str, int], lock: threading.Lock) -> list[Any]:
        def client(index: int) -> None:
            stats = load.Stats()
            http = load.Http(port)
            player = load.Player(
                http, (tokens[2 * index], tokens[2 * index + 1]), random.Random(index), stats
            )
            while not stop.is_set():
                match = pool.get(index)
                if match is None or match.over:
                    match = pool[index] = player.new_match(load.LONG_MATCH)
                reads, actions = len(stats.reads), len(stats.actions)
                with contextlib.suppress(RuntimeError):  # counted below, as an error
                    player.step(match)
                ok = [s for s in stats.actions[actions:] if s.status == 201]
                with lock:
                    counts["actions"] += len(ok)
                    counts["requests"] += len(stats.reads) - reads + len(ok)
                    counts["errors"] += len(stats.actions) - actions - len(ok)
            http.close()

        return _start(client, clients)

    return work


def project_reads(port: int, pool: dict[int, load.Match], clients: int) -> Any:
    def work(stop: threading.Event, counts: dict[str, int], lock: threading.Lock) -> list[Any]:
        def client(index: int) -> None:
            match = pool[index]
            http = load.Http(port)
            while not stop.is_set():
                status = http.call("GET", f"/api/games/{match.id}", match.tokens[0])[0]
                with lock:
                    counts["requests" if status == 200 else "errors"] += 1
            http.close()

        return _start(client, clients)

    return work


def project_polls(port: int, match: load.Match, clients: int, tag: str | None) -> Any:
    """Full reads (``tag`` None) or polls answered 304 of one game."""

    def work(stop: threading.Event, counts: dict[str, int], lock: threading.Lock) -> list[Any]:
        def client(index: int) -> None:
            http = load.Http(port)
            headers = {"If-None-Match": tag} if tag else None
            expected = 304 if tag else 200
            while not stop.is_set():
                status = http.call("GET", f"/api/games/{match.id}", match.tokens[0], None, headers)
                with lock:
                    counts["requests" if status[0] == expected else "errors"] += 1
            http.close()

        return _start(client, clients)

    return work


def bare_actions(port: int, games: list[tuple[str, str]], clients: int) -> Any:
    """Each client cycles over its own share of ``games`` (one client a game: the row lock
    serialises a game's actions), so each game grows by one event a pass, not by the phase's."""

    def work(stop: threading.Event, counts: dict[str, int], lock: threading.Lock) -> list[Any]:
        def client(index: int) -> None:
            share = itertools.cycle(games[index::clients])
            http = load.Http(port)
            while not stop.is_set():
                game, token = next(share)
                status = http.call("POST", f"/games/{game}/actions", token, BARE_ACTION)[0]
                with lock:
                    if status == 201:
                        counts["actions"] += 1
                        counts["requests"] += 1
                    else:
                        counts["errors"] += 1
            http.close()

        return _start(client, clients)

    return work


def _start(client: Any, clients: int) -> list[threading.Thread]:
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    return threads


# --- the bare reference: a copy of its folder (its seed writes beside it), its database -------


def bare_setup(folder: Path, database: str, games: int) -> dict[str, str]:
    shutil.copytree(REFERENCE, folder, dirs_exist_ok=True)
    load.recreate_database(database)
    env = {**os.environ, "BARE_DB": database, "DJANGO_SETTINGS_MODULE": "trucoperf.settings"}
    env.pop("DATABASE_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=folder, env=env, check=True)
    bare_seed(folder, env, games)
    return env


def bare_seed(folder: Path, env: dict[str, str], games: int) -> list[tuple[str, str]]:
    subprocess.run(
        [sys.executable, "seed.py", str(games), "60"],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    lines = (folder / "tokens.txt").read_text().split()
    return list(zip(lines[::2], lines[1::2], strict=True))


def bare_sizes(database: str) -> tuple[int, int]:
    """The fewest and the most events a bare game holds: what its action read and folded."""
    with psycopg.connect(dbname=database, **load.PG) as conn:
        row = conn.execute(
            "SELECT min(n), max(n) FROM (SELECT count(*) AS n FROM bare_event GROUP BY game_id) s"
        ).fetchone()
    return (row[0], row[1]) if row and row[0] is not None else (0, 0)


def start_bare(folder: Path, env: dict[str, str], port: int, args: Any, log: Any) -> Any:
    command = [GRANIAN, "--interface", "wsgi", "--workers", str(args.workers)]
    command += ["--blocking-threads", str(args.threads), "--host", "127.0.0.1"]
    command += ["--port", str(port), "trucoperf.wsgi:application"]
    server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/ping_plain")
            if conn.getresponse().status == 200:
                conn.close()
                time.sleep(1)
                return server
        time.sleep(0.2)
    server.terminate()
    raise SystemExit(f"the bare server did not answer; see {log.name}")


# --- the run ----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=12.0, help="measured seconds a phase")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--bare-games", type=int, default=800, help="bare games the clients cycle over"
    )
    parser.add_argument("--reads", type=int, default=300, help="200 and 304 latency samples")
    parser.add_argument("--long-seconds", type=float, default=40.0, help="first vs last hands")
    parser.add_argument("--db", default="truc_bench_floor")
    parser.add_argument("--bare-db", default="truc_bench_bare")
    args = parser.parse_args(argv)

    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"# bench/floor.py {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; {uptime}")
    print(
        f"# {os.cpu_count()} cores, Python {sys.version.split()[0]}, granian {args.workers} x "
        f"{args.threads}, {args.clients} clients, {args.seconds:g} s a phase, code "
        f"{load._git_describe()}"
    )
    print(f"# machine speed at the start: {load.machine_speed():,.0f} engine actions/s")
    scratch = Path(tempfile.mkdtemp(prefix="floor-"))
    bare_env = bare_setup(scratch / "bare", args.bare_db, args.bare_games)
    load.recreate_database(args.db)
    env = load.server_env(f"postgres://postgres@127.0.0.1:5432/{args.db}")
    tokens = load.migrate_and_make_tokens(env, 2 * args.clients + 2)
    ports = load.free_port(), load.free_port()
    logs = [open(scratch / name, "w") for name in ("project.log", "bare.log")]  # noqa: SIM115
    command = load.server_command("granian", ports[0], args.workers, "", args.threads)
    project = load.start_server(command, env, ports[0], logs[0])
    bare = start_bare(scratch / "bare", bare_env, ports[1], args, logs[1])
    pool: dict[int, load.Match] = {}
    rows = []
    try:
        print()
        print(
            "round | bare ms/act  act/s | project ms/req  reqs/act  act/s | read ms | "
            "action ms (reads out) | CPU ratio with reads, reads out | throughput ratio | "
            "bare game events"
        )
        for number in range(1, args.rounds + 1):
            played = measure(
                project, args.db, args.seconds, project_play(ports[0], tokens, pool, args.clients)
            )
            reads = measure(
                project, args.db, args.seconds / 2, project_reads(ports[0], pool, args.clients)
            )
            games = bare_seed(scratch / "bare", bare_env, args.bare_games)
            barely = measure(
                bare, args.bare_db, args.seconds, bare_actions(ports[1], games, args.clients)
            )
            row = _row(number, played, reads, barely, bare_sizes(args.bare_db))
            rows.append(row)
        ratios = [row["ratio"] for row in rows]
        out = [row["ratio_out"] for row in rows]
        rates = [row["rate_ratio"] for row in rows]
        print(
            f"median | CPU per action {statistics.median(ratios):.2f}x the bare's with its reads, "
            f"{statistics.median(out):.2f}x with the reads out; throughput "
            f"{statistics.median(rates):.2f}x (target CPU <= 1.25x: "
            f"{load.verdict(statistics.median(out) <= 1.25)})"
        )
        _polls(ports[0], project, args, pool)
        _hands(ports[0], tokens, args)
    finally:
        load.stop_server(project)
        load.stop_server(bare)
        for log in logs:
            log.close()
        print(f"# logs in {scratch}; machine speed at the end: {load.machine_speed():,.0f}")


def _row(
    number: int, played: Phase, reads: Phase, barely: Phase, sizes: tuple[int, int]
) -> dict[str, float]:
    bare_ms = barely.cpu_ms / max(barely.actions, 1)
    per_request = played.cpu_ms / max(played.requests, 1)
    read_ms = reads.cpu_ms / max(reads.requests, 1)
    reads_a_action = (played.requests - played.actions) / max(played.actions, 1)
    with_reads = played.cpu_ms / max(played.actions, 1)
    action_ms = with_reads - reads_a_action * read_ms
    row = {
        "ratio": with_reads / bare_ms,
        "ratio_out": action_ms / bare_ms,
        "rate_ratio": played.rate / max(barely.rate, 1e-9),
    }
    errors = played.errors + reads.errors + barely.errors
    print(
        f"{number:5d} | {bare_ms:7.2f} {barely.rate:7.0f} | {per_request:9.2f} "
        f"{1 + reads_a_action:9.2f} {played.rate:6.0f} | {read_ms:7.2f} | {action_ms:9.2f} "
        f"| {row['ratio']:5.2f}x {row['ratio_out']:5.2f}x | {row['rate_ratio']:5.2f}x | "
        f"{sizes[0]}-{sizes[1]}" + (f" ({errors} errors)" if errors else "")
    )
    return row


def _polls(port: int, server: Any, args: Any, pool: dict[int, load.Match]) -> None:
    match = next(m for m in pool.values() if not m.over)
    status, headers, _, _, _ = load.Http(port).call(
        "GET", f"/api/games/{match.id}", match.tokens[0]
    )
    tag = headers.get("etag")
    full = measure(server, args.db, args.seconds / 2, project_polls(port, match, 4, None))
    cached = measure(server, args.db, args.seconds / 2, project_polls(port, match, 4, tag))
    full_ms = full.cpu_ms / max(full.requests, 1)
    cached_ms = cached.cpu_ms / max(cached.requests, 1)
    latency_full, latency_304 = load.conditional_reads(port, match.tokens[0], match.id, args.reads)
    print(
        f"polls: CPU per full read {full_ms:.2f} ms, per 304 {cached_ms:.2f} ms: "
        f"{full_ms / cached_ms:.1f}x cheaper (target >= 3x: "
        f"{load.verdict(full_ms / cached_ms >= 3)}); latency p50 {load.pct(latency_full, 50):.2f} "
        f"against {load.pct(latency_304, 50):.2f} ms "
        f"({load.pct(latency_full, 50) / load.pct(latency_304, 50):.1f}x)"
    )


def _hands(port: int, tokens: list[str], args: Any) -> None:
    first, longs, errors = load.first_vs_last_hands(
        port, (tokens[-2], tokens[-1]), args.long_seconds, 0
    )
    ok_first = [s for s in first if s.status == 201]
    last = []
    for match in longs:
        top = max((s.hand for s in match), default=0)
        last += [s for s in match if s.hand >= 0.9 * top and s.status == 201]
    if not ok_first or not last:
        print("last hands against the first: no samples")
        return
    paired = [load._nearest(ok_first, sample).ms for sample in last]
    ratio = statistics.median(s.ms for s in last) / statistics.median(paired)
    print(
        f"last hands (top 10 % of {len(longs)} long matches) p50 "
        f"{statistics.median(s.ms for s in last):.2f} ms against the first hands' next to them "
        f"{statistics.median(paired):.2f} ms: {ratio:.2f}x (target <= 1.2x: "
        f"{load.verdict(ratio <= 1.2)})" + (f"; {len(errors)} errors" if errors else "")
    )


if __name__ == "__main__":
    main()
