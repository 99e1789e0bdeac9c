"""How long webhook deliveries written in bursts wait, under the worker compose ships for them.

    python -m bench.webhook_burst [--subscribers 40] [--rounds 5] [--gap 0.5] [--db NAME]

Makes its own PostgreSQL database (``--db``, truc_bench_hooks by default, made anew) and uses
the Redis broker of ``CELERY_BROKER_URL`` (a queue of its own); starts a webhook worker with
docker-compose.yml's `webhook-worker` flags (the thread pool, its concurrency), a local receiver
that accepts every delivery but one receiver's (refused every time: its retries run meanwhile),
and the sweep every second as beat sends it. Then ``--rounds`` times, every ``--gap`` seconds, a
lobby notice to each of ``--subscribers`` players in one transaction: one delivery, one task
each. Prints the latency (written to received) of the deliveries to the accepting receivers:
p50, p95, max.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from bench.in_process import setup_django

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gap", type=float, default=0.5)
    parser.add_argument("--db", default="truc_bench_hooks", help="dropped and recreated")
    args = parser.parse_args()
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    queue = f"bench-hooks-{uuid.uuid4().hex[:8]}"
    setup_django(
        args.db,
        CELERY_BROKER_URL=broker,
        CELERY_TASK_ALWAYS_EAGER="false",
        WEBHOOK_QUEUE=queue,
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true",
        WEBHOOK_RETRY_DELAYS="30,30",
    )
    arrived: dict[str, float] = {}
    receiver = _receiver(arrived)
    port = receiver.server_address[1]
    owners = _subscribers(args.subscribers + 1, port)
    worker = _worker(queue)
    stop = threading.Event()
    threading.Thread(target=_beat, args=(stop, queue), daemon=True).start()
    try:
        latencies = _bursts(owners, args.rounds, args.gap, arrived)
    finally:
        stop.set()
        worker.kill()
        worker.wait(10)
        receiver.shutdown()
    latencies.sort()
    p95 = statistics.quantiles(latencies, n=20, method="inclusive")[-1]
    print(
        f"webhook_burst: {args.rounds} bursts of {args.subscribers} deliveries, {args.gap} s apart"
    )
    print(
        f"latency p50 {statistics.median(latencies):.2f} s, p95 {p95:.2f} s,"
        f" max {latencies[-1]:.2f} s ({len(latencies)} deliveries)"
    )


def _receiver(arrived: dict[str, float]) -> ThreadingHTTPServer:
    """Answers 200, but 500 on /refused; notes when each webhook-id first arrived."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            arrived.setdefault(self.headers["webhook-id"], time.time())
            self.send_response(500 if self.path == "/refused" else 200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _subscribers(count: int, port: int) -> list[int]:
    """``count`` players with a subscription each; the first one's URL refuses everything."""
    from notifications import signing
    from notifications.models import Kind, Subscription
    from players.models import Player

    stamp = time.monotonic_ns()
    owners = []
    for number in range(count):
        player = Player.objects.create(username=f"h{stamp}-{number}")
        path = "/refused" if number == 0 else f"/p{number}"
        Subscription.objects.create(
            player=player,
            url=f"http://127.0.0.1:{port}{path}",
            kinds=[Kind.CHALLENGE_RECEIVED],
            secret=signing.new_secret(),
        )
        owners.append(player.pk)
    return owners


def start_webhook_worker(
    queue: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A worker started with docker-compose.yml's webhook-worker flags (its pool, its
    concurrency), consuming ``queue``, with ``env`` over this process's; and its name.
    tests/notifications/test_delivery_fairness.py starts its worker with it too."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    words = shlex.split(services["webhook-worker"]["command"])
    flags = words[words.index("worker") + 1 :]
    flags[flags.index("-Q") + 1] = queue
    name = f"{queue}@localhost"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "truc_api", "worker", *flags, "-n", name,
         "--without-gossip", "--without-mingle", "-l", "WARNING"],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return process, name


def _worker(queue: str) -> subprocess.Popen[bytes]:
    from truc_api.celery import app

    process, name = start_webhook_worker(queue)
    end = time.monotonic() + 60
    while not app.control.ping(destination=[name], timeout=0.5):
        if time.monotonic() > end:
            raise SystemExit("the worker did not answer")
    return process


def _beat(stop: threading.Event, queue: str) -> None:
    from django.conf import settings

    from notifications.tasks import sweep_deliveries

    while not stop.wait(settings.WEBHOOK_SWEEP_SECONDS):
        sweep_deliveries.apply_async(queue=queue)


def _bursts(owners: list[int], rounds: int, gap: float, arrived: dict[str, float]) -> list[float]:
    from notifications.models import Delivery, Kind
    from notifications.services import notify_players

    notify_players(owners[:1], Kind.CHALLENGE_RECEIVED, {"round": -1})  # refused, retried
    time.sleep(1)
    written: dict[str, float] = {}
    for number in range(rounds):
        for delivery in notify_players(owners[1:], Kind.CHALLENGE_RECEIVED, {"round": number}):
            written[str(delivery.pk)] = delivery.created_at.timestamp()
        time.sleep(gap)
    end = time.monotonic() + 300
    while set(written) - set(arrived) and time.monotonic() < end:
        time.sleep(0.2)
    missing = set(written) - set(arrived)
    if missing:
        statuses = Delivery.objects.filter(pk__in=missing).values_list("status", flat=True)
        raise SystemExit(f"{len(missing)} deliveries never arrived: {sorted(set(statuses))}")
    return [arrived[pk] - at for pk, at in written.items()]


if __name__ == "__main__":
    main()
