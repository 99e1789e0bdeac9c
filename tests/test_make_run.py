"""``make run``'s server (``manage.py serve``, with the Makefile's environment) as a newcomer meets
it: the links it prints answer once it prints them, a browser's open stream does not keep it
from stopping at the first Ctrl-C, and it leaves nothing in the repository that git would list.

One server over the test database: the Makefile's filesystem broker, and Redis for the streams
(with Redis as the streams' channel a held stream once kept the server up for minutes)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from games.management.commands.serve import LINKS

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parent.parent
UP = "Truc API is up"


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _postgres_url() -> str:
    db = connection.settings_dict
    secret = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    return f"postgres://{db.get('USER') or 'postgres'}{secret}@{host}/{db['NAME']}"


def _untracked() -> set[str]:
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return {line[3:] for line in listed.stdout.splitlines() if line.startswith("??")}


def _descendants(pid: int) -> set[int]:
    """Every process under ``pid`` (its children run in sessions of their own)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's wait is missing


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], list[str], int]]:
    """``manage.py serve`` on a free port as ``make run`` starts it, its output's lines."""
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("needs Redis: CELERY_BROKER_URL=redis://...")
    port = _port()
    env = {
        **os.environ,
        "DATABASE_URL": _postgres_url(),
        # The Makefile's defaults (RUN_ENV), with a broker folder of this test's own.
        "LOG_FORMAT": "console",
        "CELERY_BROKER_URL": "filesystem://localhost/",
        "CELERY_BROKER_FOLDER": str(tmp_path / "broker"),
        "STREAMS_REDIS_URL": settings.CELERY_BROKER_URL,
        "STREAMS_CHANNEL_PREFIX": f"make-run-{uuid.uuid4().hex[:12]}",
        "PYTHONUNBUFFERED": "1",
    }
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    lines: list[str] = []
    assert server.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(server.stdout or ()), daemon=True)
    reader.start()
    try:
        yield server, lines, port
    finally:
        for pid in [server.pid, *_descendants(server.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.wait(10)


def _wait_for(lines: list[str], text: str, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while not any(text in line for line in lines):
        assert server.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "".join(lines)
        time.sleep(0.05)


def _get(port: int, path: str, token: str = "") -> int:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    client.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    status = client.getresponse().status
    client.close()
    return status


def _token(port: int) -> str:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = json.dumps({"username": f"ana-{uuid.uuid4().hex[:8]}", "password": "truc-valencia-24"})
    client.request("POST", "/api/auth/register", body, {"Content-Type": "application/json"})
    answer = client.getresponse()
    assert answer.status == 201, answer.read()
    token: str = json.loads(answer.read())["token"]
    client.close()
    return token


def test_make_run_links_answer_once_printed_and_one_sigint_stops_it_with_a_stream_open(make_run):
    server, lines, port = make_run
    untracked_before = _untracked()

    _wait_for(lines, UP, server)
    statuses = {path: _get(port, path) for _, path in LINKS}
    token = _token(port)
    stream = socket.create_connection(("127.0.0.1", port), timeout=10)
    stream.sendall(
        f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n"
        .encode()
    )  # fmt: skip
    assert stream.recv(4096).startswith(b"HTTP/1.1 200")  # the stream is open, and held
    processes = _descendants(server.pid)
    started = time.monotonic()
    server.send_signal(signal.SIGINT)  # what the terminal's Ctrl-C sends
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(10)
    while any(_alive(pid) for pid in processes) and time.monotonic() - started < 10:
        time.sleep(0.05)
    took = time.monotonic() - started
    stream.close()

    up = next(number for number, line in enumerate(lines) if UP in line)
    assert "/play/" in lines[up + 1], lines[up + 1]  # the web table first
    assert all(status in (200, 302) for status in statuses.values()), statuses
    assert server.poll() is not None, "".join(lines)
    assert not [pid for pid in processes if _alive(pid)], "".join(lines)
    assert took < 10, took
    assert _untracked() == untracked_before
    # Python's warnings (UserWarning, SecurityWarning...) and log lines at the warning level.
    assert not [line for line in lines if "Warning" in line or "[warning" in line], "".join(lines)
