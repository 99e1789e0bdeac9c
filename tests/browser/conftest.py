"""The web table in a real browser: Debian's chromium through chromium-driver (Selenium), against
a real server process (``manage.py serve``: the web server with a Celery worker and its beat,
on the real Redis broker) on an ephemeral port, over the test database.

The tests use ``transactional_db``: the server's processes see only committed rows, and every
table is flushed after each test, so nothing they made is left for the tests that follow.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.streams.servers import free_port, wait_live

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
PASSWORD = "truc-valencia-24"
DESKTOP = (1280, 900)
PHONE = (390, 844)


#: Where the server of this session writes its log, for the failures' messages.
SERVER_LOG: list[Path] = []


def server_log_tail(lines: int = 60) -> str:
    if not SERVER_LOG or not SERVER_LOG[0].exists():
        return ""
    text = SERVER_LOG[0].read_text(errors="replace").splitlines()
    # Not the access log (the tests' own polling): the worker's lines and the errors.
    return "\n".join([line for line in text if '"django.server"' not in line][-lines:])


def _missing_browser() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return f"{path} is missing: apt-get install chromium chromium-driver (.ci/run does)"
    return None


@pytest.fixture(scope="session")
def browser_ready() -> None:
    missing = _missing_browser()
    if missing and os.environ.get("CI"):
        pytest.fail(missing)  # CI installs them: a missing browser there is a broken setup
    if missing:
        pytest.skip(missing)
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        pytest.skip("needs a real broker for the bots: CELERY_BROKER_URL=redis://...")


def _database_url() -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    where = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    return f"postgres://{user}{password}@{where}/{db['NAME']}"


def _own_broker_url() -> str:
    """A Redis database of the server's own for its Celery worker and beat: the beat's periodic
    sweeps, left queued when the server stops, must not run in later tests' workers (they count
    the tasks they see). ``TRUC_BROWSER_BROKER_DB`` picks it (14 by default)."""
    parts = urlsplit(settings.CELERY_BROKER_URL)
    db = os.environ.get("TRUC_BROWSER_BROKER_DB", "14")
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


def _empty(broker_url: str) -> None:
    with redis.Redis.from_url(broker_url) as connection:
        connection.flushdb()


@pytest.fixture(scope="session")
def live_url(browser_ready: None, django_db_setup: None) -> Iterator[str]:
    """The base URL of a ``manage.py serve`` process over the test database."""
    port = free_port()
    run_dir = Path(tempfile.mkdtemp(prefix="truc-browser-"))
    broker_url = _own_broker_url()
    _empty(broker_url)
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": broker_url,
        "DEBUG": "false",
        # The tests play fast and sign several players up from one address.
        "THROTTLE_RATE_ANON": "100000/min",
        "THROTTLE_RATE_USER": "100000/min",
        "THROTTLE_RATE_LOGIN": "100000/min",
        "PYTHONUNBUFFERED": "1",
        # Pub/sub channels are shared by every database of a Redis server: our own.
        "STREAMS_CHANNEL_PREFIX": f"{os.environ.get('STREAMS_CHANNEL_PREFIX', 'browser-tests')}"
        f"-{uuid.uuid4().hex[:12]}",
        # The streams' backstop check (a lost wake-up waits for it) as often as `make run` has it,
        # so that a delay the design allows (up to 15 s with Redis) cannot pass a test's wait.
        "STREAM_CHECK_SECONDS": "1",
        # This server lives for the whole session over the test database: its beat's sweeps of
        # webhook deliveries and pushes would claim the rows of later tests, which run their own
        # workers with their own settings. The web table sends neither.
        "WEBHOOK_SWEEP_SECONDS": "86400",
        "PUSH_SWEEP_SECONDS": "86400",
    }
    SERVER_LOG[:] = [run_dir / "serve.log"]
    log = SERVER_LOG[0].open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the worker it starts stops with it
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_live(url, server, run_dir / "serve.log")
        yield url
    finally:
        _stop_group(server)
        _empty(broker_url)
        log.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def _stop_group(server: subprocess.Popen[bytes]) -> None:
    """Stop the server and the workers it started (its process group), and wait until every one
    is gone: a worker left behind would take the next run's tasks against another database."""
    os.killpg(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5  # then killed: a test server has nothing to finish
    while time.monotonic() < deadline:
        server.poll()
        try:
            os.killpg(server.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):  # the last of them went since the last look
        os.killpg(server.pid, signal.SIGKILL)
    server.wait(5)


class Api:
    """The public API over real HTTP, as one player (the same token as a page, when taken from
    its localStorage)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **headers}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.base + "/api" + path, data, sent, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                text = answer.read()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    def get(self, path: str) -> Any:
        status, body = self.call("GET", path)
        assert status == 200, (path, status, body)
        return body

    def post(self, path: str, body: Any = None, expect: int = 200, **headers: str) -> Any:
        status, answer = self.call("POST", path, {} if body is None else body, **headers)
        assert status == expect, (path, status, answer)
        return answer

    def events(self, game_id: str, after: int = 0) -> list[Any]:
        """The game's events after ``after``, every page of the feed."""
        events: list[Any] = []
        more = True
        while more:
            page = self.get(f"/games/{game_id}/events?after={after}&limit=500")
            events += page["events"]
            after, more = page["after"], page["more"]
        return events

    def act(self, game_id: str, action: dict[str, Any], version: int) -> Any:
        key = {"Idempotency-Key": str(uuid.uuid4())}
        body = {**action, "expected_version": version}
        return self.post(f"/games/{game_id}/actions", body, expect=201, **key)

    @classmethod
    def register(cls, base: str, username: str) -> Api:
        answer = cls(base).post(
            "/auth/register", {"username": username, "password": PASSWORD}, expect=201
        )
        return cls(base, answer["token"])


def unique_name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


@pytest.fixture
def browsers(live_url: str, transactional_db: None) -> Iterator[Callable[..., Any]]:
    """A factory of headless chromium sessions, each its own profile (its own localStorage: a
    second browser context), with Chrome's performance log (the network traffic) kept."""
    opened: list[Any] = []
    profiles: list[str] = []

    def open_browser(size: tuple[int, int] = DESKTOP, language: str = "en") -> Any:
        profile = tempfile.mkdtemp(prefix="truc-chromium-")
        profiles.append(profile)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--disable-extensions",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            f"--lang={language}",
        ):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_script_timeout(20)
        driver.execute_cdp_cmd("Network.enable", {})
        opened.append(driver)
        driver.base_url = live_url  # type: ignore[attr-defined]  # the tests' own, read by pages.py
        return driver

    yield open_browser
    for driver in opened:
        with contextlib.suppress(Exception):  # a crashed browser is gone: quit the others
            driver.quit()
    for profile in profiles:
        shutil.rmtree(profile, ignore_errors=True)
