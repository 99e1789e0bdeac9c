"""``manage.py serve``: the API and, beside it, a Celery worker with its beat (the sweeps).

What ``make run`` starts. With a real broker (the default there is a folder, ``filesystem://``)
turn timeouts, ratings and bots run as in production; with the in-memory broker tasks run inside
the request instead, and nothing sweeps.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
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
        try:
            call_command(
                "runserver", options["addrport"], use_reloader=False, insecure_serving=True
            )
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(10)
