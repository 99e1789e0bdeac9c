"""Plays through the API on the embedded SQLite default (`make run`), in its own process; run by
tests/test_sqlite_default.py. On PostgreSQL the store's hot paths are hand-written SQL
(games/store/sql.py); on SQLite the store takes the ORM's way instead, which this plays through."""

from __future__ import annotations

import io
import random
import sys
import uuid
from collections.abc import Callable
from typing import Any

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from knox.models import AuthToken  # noqa: E402

from players.models import Player  # noqa: E402
from truc_api.wsgi import application  # noqa: E402


def client_of(name: str) -> tuple[Client, str]:
    player = Player.objects.create(username=name)
    token = AuthToken.objects.create(player)[1]
    return Client(HTTP_AUTHORIZATION=f"Token {token}"), token


def poll(game_id: str, token: str, tag: str) -> int:
    """A conditional read through truc_api/wsgi.py, as the server calls it."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": f"/api/games/{game_id}",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "HTTP_AUTHORIZATION": f"Token {token}",
        "HTTP_IF_NONE_MATCH": tag,
    }
    started: dict[str, Any] = {}

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], object]:
        started.update(status=status)
        return lambda data: None  # WSGI's write(), which Django never calls

    b"".join(application(environ, start_response))
    return int(started["status"].split()[0])


def main() -> None:
    call_command("migrate", verbosity=0)
    (host, host_token), (guest, _) = client_of("host"), client_of("guest")
    created = host.post("/api/games", {"preset": "valenciano", "players": 2}, "application/json")
    game_id = created.json()["id"]
    assert guest.post(f"/api/games/{game_id}/join", {}, "application/json").status_code == 200
    clients, rng, actions = [host, guest], random.Random(7), 0
    while actions < 40:
        views = [client.get(f"/api/games/{game_id}") for client in clients]
        if views[0].json()["status"] != "active":
            break
        seat = next(i for i, view in enumerate(views) if view.json()["state"]["legal_actions"])
        view = views[seat].json()
        action = rng.choice(view["state"]["legal_actions"])
        body = {**action, "expected_version": view["version"]}
        key = str(uuid.uuid4())
        answer = clients[seat].post(
            f"/api/games/{game_id}/actions", body, "application/json", HTTP_IDEMPOTENCY_KEY=key
        )
        assert answer.status_code == 201, answer.content
        retry = clients[seat].post(
            f"/api/games/{game_id}/actions", body, "application/json", HTTP_IDEMPOTENCY_KEY=key
        )
        assert (retry.status_code, retry.json()) == (201, answer.json()), retry.content
        actions += 1
    tag = host.get(f"/api/games/{game_id}")["ETag"]
    assert poll(game_id, host_token, tag) == 304
    assert poll(game_id, host_token, 'W/"stale"') == 200
    # The stream, read through WSGI: the log after seq 2 then the view (the streams' read,
    # games/store/batch_read.py read_games_and_events, on SQLite).
    version = host.get(f"/api/games/{game_id}").json()["version"]
    stream = host.get(f"/api/games/{game_id}/stream?after=2").content
    ids = [int(line[4:]) for line in stream.decode().splitlines() if line.startswith("id: ")]
    assert ids == list(range(3, version + 1)), (ids, version)
    assert b"event: view" in stream
    print(f"ok: {actions} actions")


if __name__ == "__main__":
    main()
    sys.exit(0)
