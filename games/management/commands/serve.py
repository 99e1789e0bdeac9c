"""``manage.py serve [HOST:PORT]``: the API, and beside it a Celery worker with its beat.

What ``make run`` starts. The API, streams included, is one granian process on the ASGI entry
point (truc_api/asgi.py): its streams are woken by the in-process channel when no Redis is set
(streams/bus.py), and find the worker's moves (bots, timeouts) at their check, every second on
those defaults. With a real broker (``make run`` gives a folder, ``filesystem://``) turn
timeouts, ratings and bots run as in production, and webhook deliveries and pushes on workers
of their own; with the in-memory broker tasks run inside the request instead, and nothing sweeps.

It serves on loopback by default. The settings' insecure development key is for that only: on
any other address the command refuses to start until SECRET_KEY is set.

Stopping: every child runs in a process group of its own, so a Ctrl-C in the terminal reaches
this command alone, which stops them all within ``STOP_SECONDS``: granian would otherwise wait
for every open stream to end before it exits (a browser at /play/ holds one for as long as the
page is open).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from truc_api.celery import app

#: Seconds the children have to stop after a Ctrl-C or SIGTERM before they are killed: a task in
#: flight (a bot's move) ends in that time. An idle Celery worker's warm shutdown takes longer
#: than that on its own; one killed mid-task loses at most a bot's move or a timeout, which the
#: sweeps send again (games/tasks.py: the deadlines and whose turn it is are in the database).
STOP_SECONDS = 2.0
#: Seconds the server has to answer its liveness probe; the links are printed only once it does.
START_SECONDS = 60.0
_PR_SET_PDEATHSIG = 1  # prctl(2)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
#: The banner's links, the web table first: each one answers (tests/test_make_run.py).
LINKS = (
    ("Play in the browser", "/play/"),
    ("API index", "/api/"),
    ("Swagger UI", "/api/docs/"),
    ("ReDoc", "/api/redoc/"),
    ("OpenAPI document", "/api/schema/"),
    ("Health", "/api/health/ready"),
    ("Admin", "/admin/"),
)
#: Celery warns a worker started as root; the workers of this loopback development server run
#: as whoever typed ``make run`` (a container's root, often), and it cannot change that. The
#: production workers are not started here: docker-compose.yml runs them as the image's own user.
_ROOT_WARNING = "ignore:You're running the worker with superuser privileges"


class Stop(Exception):
    """SIGTERM, raised in the main thread like SIGINT's KeyboardInterrupt."""


class Command(BaseCommand):
    help = "Serve the API with a Celery worker and beat beside it (127.0.0.1:8000 by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        host, port = split_addrport(options["addrport"])
        refuse_insecure_key_off_loopback(host)
        signal.signal(signal.SIGTERM, _raise_stop)
        children: list[subprocess.Popen[bytes]] = []
        try:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                self.stdout.write("Tasks run in-process (eager broker): no worker, no sweeps.")
            else:
                run_dir = settings.BASE_DIR / ".run"
                run_dir.mkdir(exist_ok=True)
                children += [_start(command) for command in worker_commands(run_dir)]
            server = _start(server_command(host, port))
            children.append(server)
            base = f"http://{_browsable(host)}:{port}"
            if _answers(f"{base}/api/health/live", server):
                self.stdout.write(banner(base), ending="")
                self.stdout.flush()
            elif server.poll() is None:
                self.stderr.write(f"{base}/api/health/live does not answer yet: see the log above.")
            server.wait()
        except (KeyboardInterrupt, Stop):
            pass
        finally:
            stop(children)


def split_addrport(addrport: str) -> tuple[str, str]:
    host, _, port = addrport.rpartition(":")
    if not port.isdigit():
        raise CommandError(f"{addrport!r} is not HOST:PORT")
    return host or "127.0.0.1", port


def refuse_insecure_key_off_loopback(host: str) -> None:
    """The default key signs the admin's sessions: anyone who knows it (it is in the
    repository) could forge one. Loopback keeps it on this machine."""
    if host not in LOOPBACK_HOSTS and settings.SECRET_KEY == settings.INSECURE_DEV_SECRET_KEY:
        raise CommandError(
            f"Serving on {host} with the repository's development key: set SECRET_KEY"
            " (python -c 'import secrets; print(secrets.token_urlsafe(50))'), or serve on"
            " 127.0.0.1."
        )


def banner(base: str) -> str:
    width = max(len(name) for name, _ in LINKS) + 2
    lines = [f"  {name + ':':<{width}} {base}{path}" for name, path in LINKS]
    return "\n".join(["", "Truc API is up (Ctrl-C stops it):", *lines, "", ""])


def server_command(host: str, port: str) -> list[str]:
    # --workers-kill-timeout: a worker still holding streams after that is killed, not waited for.
    return [sys.executable, "-m", "granian", "--interface", "asgi", "--workers", "1",
            "--host", host.strip("[]"), "--port", port, "--workers-kill-timeout", "1",
            "truc_api.asgi:application"]  # fmt: skip


def worker_commands(run_dir: Path) -> list[list[str]]:
    """The worker of the default queue with the beat, the webhook deliveries' own worker
    (WEBHOOK_QUEUE) and the pushes' (PUSH_QUEUE): a slow receiver or push service then never
    delays a turn timeout or a bot's move."""
    celery = [sys.executable, "-W", _ROOT_WARNING, "-m", "celery", "-A", "truc_api", "--quiet",
              "worker", "--pool", "solo", "--loglevel", "WARNING", "--without-gossip",
              "--without-mingle"]  # fmt: skip
    default = app.conf.task_default_queue
    commands = [
        [*celery, "--beat", "--schedule", str(run_dir / "celerybeat-schedule"), "-Q", default,
         "-n", "default@%h"],
    ]  # fmt: skip
    webhooks = settings.WEBHOOK_QUEUE
    if webhooks and webhooks != default:
        commands.append([*celery, "-Q", webhooks, "-n", "webhooks@%h"])
    pushes = settings.PUSH_QUEUE
    if pushes and pushes not in (default, webhooks):
        commands.append([*celery, "-Q", pushes, "-n", "push@%h"])
    return commands


def stop(children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to each child, then SIGKILL to each one's group (a worker's beat, granian's
    worker) for those still there after STOP_SECONDS. A second Ctrl-C meanwhile is ignored: it
    would leave the children running."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for child in children:
        with contextlib.suppress(ProcessLookupError):
            child.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(max(0.0, deadline - time.monotonic()))
    for child in children:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # its group: what it started too
        child.wait()


def _start(command: list[str]) -> subprocess.Popen[bytes]:
    # A group of its own: the terminal's Ctrl-C goes to this command, which stops each child.
    return subprocess.Popen(
        command,
        cwd=settings.BASE_DIR,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each line as it comes, in order
        start_new_session=True,
        preexec_fn=_stop_with_parent,
    )


def _stop_with_parent() -> None:
    """In the child, before it runs: SIGTERM when this command's process ends, however it ends
    (a SIGKILL included), so that no worker outlives it to take a later run's tasks (Linux)."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _answers(url: str, server: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    return False


def _browsable(host: str) -> str:
    """Where a browser on this machine reaches a server bound to ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}.get(host, host)  # noqa: S104


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise Stop
