"""Pushes per second per worker against the push lab's fakes, and the delay from commit to receipt.

    python -m bench.push [--pushes 300] [--rate 50] [--seconds 10] [--workers 4]
                         [--broker redis://127.0.0.1:6379/15] [--db truc_bench_push]

Two parts, on a PostgreSQL database of its own (``--db``, made anew):

1. **Throughput**: ``--pushes`` pushes due now, to Web Push devices (encrypted for a browser's
   keys, VAPID-signed) and then to FCM devices (a service account's token from the fake), sent
   one after another by this process as one worker thread sends them (``sending.send_each``):
   pushes per second of wall time and per CPU second of the process.
2. **Delay**: a real Celery worker (``--workers`` threads on ``--broker``) sends the pushes that
   this process writes, ``--rate`` a second for ``--seconds``, each in its own transaction with
   the deliberate ``PUSH_DELAY_SECONDS`` of 2 s; the fake stamps each arrival. Prints the delay
   from commit to receipt beyond the deliberate one: p50, p95, max.

The fakes answer at once: the figures are the server's part only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.http_load import machine_speed
from bench.in_process import setup_django

REPO = Path(__file__).resolve().parent.parent
DELAY = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=int, default=300)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--db", default="truc_bench_push", help="dropped and recreated")
    args = parser.parse_args()

    from tests.push.fakes import PushService, fcm_service_account, new_pem

    service = PushService()
    folder = Path(tempfile.mkdtemp(prefix="bench-push-"))
    sent = {"name": "projects/truc-lab/messages/0:1"}
    env = {
        "CELERY_BROKER_URL": args.broker,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "STREAMS_REDIS_URL": "",
        "WEBPUSH_VAPID_PRIVATE_KEY": new_pem(),
        "WEBPUSH_SUBJECT": "mailto:bench@truc.example",
        "FCM_SERVICE_ACCOUNT_FILE": str(fcm_service_account(service.url("/token"), folder)),
        "FCM_BASE_URL": service.url(""),
        "PUSH_ALLOW_PRIVATE_ADDRESSES": "true",
        "PUSH_QUEUE": "bench-push",
        "PUSH_DELAY_SECONDS": str(DELAY),
    }
    setup_django(args.db, **{k: v for k, v in env.items() if k != "CELERY_BROKER_URL"})
    os.environ["CELERY_BROKER_URL"] = args.broker
    print(f"machine speed: {machine_speed():,.0f} engine actions/s (one core)")
    for platform in ("webpush", "fcm"):
        service.script.default = (200 if platform == "fcm" else 201, {}, json.dumps(sent).encode())
        wall, cpu = _throughput(platform, args.pushes, service)
        print(
            f"{platform}: {args.pushes} pushes by one worker thread: {args.pushes / wall:.0f}/s"
            f" wall, {args.pushes / cpu:.0f}/s per CPU second ({1000 * cpu / args.pushes:.1f} ms"
            " CPU a push)"
        )
    service.script.default = (201, {}, b"")
    delays = _delays(args, service, env)
    service.close()
    if not delays:
        print("delay: nothing arrived")
        return
    delays.sort()
    p50 = statistics.median(delays)
    p95 = delays[min(len(delays) - 1, int(0.95 * len(delays)))]
    print(
        f"delay beyond the deliberate {DELAY:.0f} s, {len(delays)} pushes at {args.rate:.0f}/s,"
        f" {args.workers} worker threads: p50 {1000 * p50:.0f} ms, p95 {1000 * p95:.0f} ms,"
        f" max {1000 * delays[-1]:.0f} ms"
    )


def _devices(platform: str, count: int, service: Any, tag: str) -> list[Any]:
    from push.models import Device
    from tests.factories import PlayerFactory
    from tests.push.fakes import Browser

    browser = Browser(service.url("/push/bench"))
    keys = browser.subscription()["keys"]
    player = PlayerFactory.create()
    return Device.objects.bulk_create(
        Device(
            player=player,
            platform=platform,
            address=service.url(f"/{tag}/{n}") if platform == "webpush" else f"fcm-{tag}-{n}",
            keys=keys if platform == "webpush" else {},
        )
        for n in range(count)
    )


def _pushes(devices: list[Any], due_in: float = 0.0) -> list[Any]:
    from datetime import timedelta

    from django.utils import timezone

    from push.models import Push, PushKind

    due = timezone.now() + timedelta(seconds=due_in)
    return Push.objects.bulk_create(
        Push(
            device=device,
            cause=f"bench:{device.pk}:{time.time_ns()}",
            kind=PushKind.CHALLENGE_RECEIVED,
            data={"game_id": None},
            due_at=due,
        )
        for device in devices
    )


def _throughput(platform: str, count: int, service: Any) -> tuple[float, float]:
    from push import sending

    ids = [str(push.pk) for push in _pushes(_devices(platform, count, service, "throughput"))]
    sending.send(ids.pop())  # warm: the token, the connections, the imports
    started, cpu = time.perf_counter(), time.process_time()
    sending.send_each(ids)
    return time.perf_counter() - started, time.process_time() - cpu


def _delays(args: argparse.Namespace, service: Any, env: dict[str, str]) -> list[float]:
    from django.db import transaction

    from push import sending

    devices = _devices("webpush", int(args.rate * args.seconds), service, "delay")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "truc_api", "worker", "-Q", env["PUSH_QUEUE"],
         "-P", "threads", "-c", str(args.workers), "--without-gossip", "--without-mingle",
         "--loglevel", "WARNING", "-n", "bench-push@%h"],
        cwd=REPO, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(5)  # the worker starts
        before = len(service.pushes())
        committed: dict[str, float] = {}
        start = time.monotonic()
        for number, device in enumerate(devices):
            time.sleep(max(0.0, start + number / args.rate - time.monotonic()))
            with transaction.atomic():
                [push] = _pushes([device], DELAY)
                sending.send_after_commit([push.pk], DELAY)
            committed[device.address] = time.time()
        deadline = time.monotonic() + DELAY + 30
        while len(service.pushes()) - before < len(devices) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.wait(10)
    arrived = {service.url(got.path): got.at for got in service.pushes()[before:]}
    return [arrived[url] - at - DELAY for url, at in committed.items() if url in arrived]


if __name__ == "__main__":
    main()
