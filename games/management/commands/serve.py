"""``manage.py serve``: the API and, beside it, a Celery worker with its beat (the sweeps).

What ``make run`` starts. The API, streams included, is one granian process on the ASGI entry
point (truc_api/asgi.py): its streams are woken by the in-process channel when no Redis is set
(streams/bus.py), and find the worker's moves (bots, timeouts) at their check, every second on
those defaults. With a real broker (the default there is a folder, ``filesystem://``) turn
timeouts, ratings and bots run as in production; with the in-memory broker tasks run inside the
request instead, and nothing sweeps.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Serve the API with a Celery worker and beat beside it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        worker = None
        if settings.CELERY_TASK_ALWAYS_EAGER:
            self.stderr.write("Tasks run in-process (eager broker): no worker, no sweeps.")
        else:
            run_dir = settings.BASE_DIR / ".run"
            run_dir.mkdir(exist_ok=True)
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "truc_api", "worker", "--beat",
                 "--pool", "solo", "--loglevel", "WARNING",
                 "--schedule", str(run_dir / "celerybeat-schedule")],
                cwd=settings.BASE_DIR,
            )  # fmt: skip
            self.stdout.write(f"Celery worker and beat started (pid {worker.pid}).")
        host, _, port = options["addrport"].rpartition(":")
        server = [sys.executable, "-m", "granian", "--interface", "asgi", "--workers", "1",
                  "--host", host or "127.0.0.1", "--port", port,
                  "truc_api.asgi:application"]  # fmt: skip
        try:
            subprocess.run(server, cwd=settings.BASE_DIR, check=False)
        except KeyboardInterrupt:
            pass
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(10)
