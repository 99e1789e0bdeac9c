"""Two real ASGI server processes (granian) on the test database and the real Redis, with a
channel prefix of this run's own: no other worktree's or run's notification reaches them.

The servers are started once a run (by the first test that needs them); the tests commit their
rows (transactional database), so the servers' own connections see them. STREAMS_REDIS_URL points
them at another Redis.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connections

from tests.games.conftest import Client, make_client, table  # noqa: F401  (fixtures)
from tests.streams import servers

REDIS_URL = os.environ.get("STREAMS_REDIS_URL", "redis://127.0.0.1:6379/11")
#: A run may name its channels (STREAMS_CHANNEL_PREFIX): the part that makes them its own follows.
PREFIX = f"{os.environ.get('STREAMS_CHANNEL_PREFIX', 'test')}-{uuid.uuid4().hex[:12]}"
ORIGIN = "http://app.example.test"
PER_PLAYER = 4
#: The longer tests run with TRUC_STREAM_PROFILE=thorough (docs/testing.md): the default run keeps
#: one test of each promise.
thorough = pytest.mark.skipif(
    os.environ.get("TRUC_STREAM_PROFILE") != "thorough",
    reason="set TRUC_STREAM_PROFILE=thorough",
)


def _server_env() -> dict[str, str]:
    database = connections["default"].settings_dict
    return {
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}"
        f"/{database['NAME']}",
        "STREAMS_REDIS_URL": REDIS_URL,
        "STREAMS_CHANNEL_PREFIX": PREFIX,
        # Short, so that the tests of what they do take seconds.
        "STREAM_HEARTBEAT_SECONDS": "1",
        "STREAM_CHECK_SECONDS": "1",
        "STREAMS_PER_PLAYER": str(PER_PLAYER),
        "CORS_ALLOWED_ORIGINS": ORIGIN,
        "LOG_LEVEL": "WARNING",
        "DEBUG": "false",
        # A test's teardown truncates every table while a server may be reading a few of them (a
        # check, a stream of the test just ended): a deadlock, PostgreSQL ends one side. With a
        # shorter wait before it looks, the server's read is the one ended, which its next step
        # or check makes again, and not the teardown.
        "PGOPTIONS": "-c deadlock_timeout=100ms",
    }


@pytest.fixture(scope="session")
def servers_pair(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: Any
) -> Iterator[tuple[servers.Server, servers.Server]]:
    env = _server_env()
    folder = Path(tmp_path_factory.mktemp("servers"))
    pair = [servers.start(env, folder / f"server{n}.log") for n in (1, 2)]
    try:
        for server in pair:
            servers.wait_ready(server)
        yield pair[0], pair[1]
    finally:
        for server in pair:
            server.stop()


@pytest.fixture(scope="session")
def clocked_server(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: Any
) -> Iterator[servers.Server]:
    """One server as bench/streams.py serves it (bench/delivery_clock.py), on channels of its
    own: the moves posted to it are the only notifications it hears."""
    env = {**_server_env(), "STREAMS_CHANNEL_PREFIX": f"{PREFIX}-clocked"}
    server = servers.start(
        env, Path(tmp_path_factory.mktemp("clocked")) / "server.log", clocked=True
    )
    try:
        servers.wait_ready(server)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def deployed_server(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: Any
) -> Iterator[servers.Server]:
    """One server checking what moved as deployed with Redis (every 15 s) and its streams'
    tokens every second (``STREAM_TOKEN_CHECK_SECONDS``'s default): what only the token check
    can find shows within its second, not the general check's 15."""
    env = {**_server_env(), "STREAM_CHECK_SECONDS": "15", "STREAM_HEARTBEAT_SECONDS": "15"}
    server = servers.start(env, Path(tmp_path_factory.mktemp("deployed")) / "server.log")
    try:
        servers.wait_ready(server)
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _this_runs_channel(settings: Any) -> None:
    """Moves made in the test process publish where the servers listen."""
    settings.STREAMS_REDIS_URL = REDIS_URL
    settings.STREAMS_CHANNEL_PREFIX = PREFIX


def call(method: str, url: str, token: str | None = None, body: Any = None, **headers: str) -> Any:
    """One JSON request to a real server: (status, body)."""
    sent = {"Content-Type": "application/json", **headers}
    if token:
        sent["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None
