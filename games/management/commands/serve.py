"""``manage.py serve``: the API and, beside it, a Celery worker with its beat (the sweeps).

What ``make run`` starts. The API, streams included, is one granian process on the ASGI entry
point (truc_api/asgi.py): its streams are woken by the in-process channel when no Redis is set
(streams/bus.py), and find the worker's moves (bots, timeouts) at their check, every second on
those defaults. With a real broker (the default there is a folder, ``filesystem://``) turn
timeouts, ratings and bots run as in production, and webhook deliveries on a worker of their
own; with the in-memory broker tasks run inside the request instead, and nothing sweeps.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from truc_api.celery import app


class Command(BaseCommand):
    help = "Serve the API with a Celery worker and beat beside it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        workers: list[subprocess.Popen[bytes]] = []
        if settings.CELERY_TASK_ALWAYS_EAGER:
            self.stderr.write("Tasks run in-process (eager broker): no worker, no sweeps.")
        else:
            run_dir = settings.BASE_DIR / ".run"
            run_dir.mkdir(exist_ok=True)
            for command in worker_commands(run_dir):
                workers.append(subprocess.Popen(command, cwd=settings.BASE_DIR))
            pids = ", ".join(str(worker.pid) for worker in workers)
            self.stdout.write(f"Celery workers and beat started (pids {pids}).")
        host, _, port = options["addrport"].rpartition(":")
        server = [sys.executable, "-m", "granian", "--interface", "asgi", "--workers", "1",
                  "--host", host or "127.0.0.1", "--port", port,
                  "truc_api.asgi:application"]  # fmt: skip
        try:
            subprocess.run(server, cwd=settings.BASE_DIR, check=False)
        except KeyboardInterrupt:
            pass
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(10)


def worker_commands(run_dir: Path) -> list[list[str]]:
    """The worker of the default queue with the beat, and the webhook deliveries' own worker
    (WEBHOOK_QUEUE): a slow receiver then never delays a turn timeout or a bot's move."""
    celery = [sys.executable, "-m", "celery", "-A", "truc_api", "worker", "--pool", "solo",
              "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]  # fmt: skip
    default = app.conf.task_default_queue
    commands = [
        [*celery, "--beat", "--schedule", str(run_dir / "celerybeat-schedule"), "-Q", default,
         "-n", "default@%h"],
    ]  # fmt: skip
    webhooks = settings.WEBHOOK_QUEUE
    if webhooks and webhooks != default:
        commands.append([*celery, "-Q", webhooks, "-n", "webhooks@%h"])
    return commands
