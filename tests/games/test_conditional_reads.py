"""Polls answered 304 before Django (games/api/conditional.py): one query, and never an answer
that Django's own path would not have given.

The test client does not pass through truc_api/wsgi.py, so these tests call the WSGI application
itself, next to the same request through the client (``GameView``'s own 304)."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.throttling import UserRateThrottle

from tests.games.test_game_api import read
from truc_api.wsgi import application

pytestmark = pytest.mark.django_db


def wsgi_get(path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """GET through truc_api.wsgi.application, as the server calls it."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
        **{"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()},
    }
    started: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]]) -> None:
        started.update(status=int(status.split()[0]), headers=dict(response_headers))

    # As Django's test client does: the test's transaction holds the connection, which the
    # request signals would otherwise close.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return started["status"], started["headers"], body


def poll(client, game_id, tag, **extra):
    """The same poll through the WSGI application and through the test client (Django only):
    both answers' status, checked to agree."""
    headers = {"Authorization": f"Token {client.token}", "If-None-Match": tag, **extra}
    status, response_headers, body = wsgi_get(f"/api/games/{game_id}", headers)
    django = client.get(f"/api/games/{game_id}", **{"If-None-Match": tag, **extra})
    assert status == django.status_code, (status, body[:200], django.content[:200])
    if status == 304:
        assert body == b"" and response_headers["ETag"] == django["ETag"]
        assert tag == "*" or response_headers["ETag"] in tag
    return status, response_headers


@pytest.fixture
def polled(table):
    """A started game, its clients by seat, and each seat's current ETag."""
    game_id, clients = table("valenciano", players=2)
    tags = [client.get(f"/api/games/{game_id}")["ETag"] for client in clients]
    return game_id, clients, tags


def test_an_unchanged_game_costs_one_query(polled, django_assert_num_queries):
    game_id, clients, tags = polled
    headers = {"Authorization": f"Token {clients[0].token}", "If-None-Match": tags[0]}

    with django_assert_num_queries(1):  # the token, the game and the viewer's seat together
        status, response_headers, body = wsgi_get(f"/api/games/{game_id}", headers)

    assert status == 304 and body == b""
    assert response_headers["ETag"] == tags[0]
    assert response_headers["Cache-Control"] == "private, no-cache"
    assert len(response_headers["X-Request-ID"]) == 32


def test_the_clients_request_id_comes_back(polled):
    game_id, clients, tags = polled

    _, headers = poll(clients[0], game_id, tags[0], **{"X-Request-ID": "poll-17"})

    assert headers["X-Request-ID"] == "poll-17"


def test_a_list_of_tags_or_a_star_matches_too(polled):
    game_id, clients, tags = polled

    assert poll(clients[0], game_id, f'W/"other", {tags[0]}')[0] == 304
    assert poll(clients[0], game_id, "*")[0] == 304
    assert poll(clients[0], game_id, 'W/"other"')[0] == 200


def test_a_changed_game_is_read_in_full(polled):
    game_id, clients, tags = polled
    view = read(clients[0], game_id)
    mover = view["state"]["turn"]
    action = read(clients[mover], game_id)["state"]["legal_actions"][0]
    assert clients[mover].act(game_id, action, view["version"]).status_code == 201

    status, headers = poll(clients[0], game_id, tags[0])

    assert status == 200 and headers["ETag"] != tags[0]


def test_another_seats_tag_gets_the_full_view(polled):
    game_id, clients, tags = polled

    assert poll(clients[0], game_id, tags[1])[0] == 200
    assert poll(clients[1], game_id, tags[0])[0] == 200


@pytest.mark.parametrize("spoil", ["expired", "revoked", "inactive", "altered", "scheme"])
def test_a_bad_token_with_a_matching_tag_is_refused_not_answered(polled, spoil):
    game_id, clients, tags = polled
    client = clients[0]
    token = AuthToken.objects.get(user=client.player)
    if spoil == "expired":
        AuthToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    elif spoil == "revoked":
        token.delete()
    elif spoil == "inactive":
        type(client.player).objects.filter(pk=client.player.pk).update(is_active=False)
    elif spoil == "altered":
        client.token = client.token[:-1] + ("0" if client.token[-1] != "0" else "1")
    else:
        client.token = client.token.upper()  # still hex, another token
    client.http.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")

    status, headers = poll(client, game_id, tags[0])

    assert status == 401
    assert headers["Content-Type"] == "application/problem+json"


def test_a_forged_tag_of_a_private_game_tells_a_stranger_nothing(table, make_client):
    game_id, clients = table("valenciano", players=2, visibility="private")
    tag = clients[0].get(f"/api/games/{game_id}")["ETag"]
    # The tag's shape is no secret: a stranger could write the one a spectator would get.
    forged = tag.replace("seat0", "spectator")

    assert poll(make_client(), game_id, forged)[0] == 404


def test_a_spectator_of_a_public_game_may_poll(polled, make_client):
    game_id, _, _ = polled
    spectator = make_client()
    tag = spectator.get(f"/api/games/{game_id}")["ETag"]

    assert poll(spectator, game_id, tag)[0] == 304


def test_a_malformed_or_unknown_game_id_is_the_usual_404(polled):
    _, clients, tags = polled

    for game_id in ("0" * 32, "not-a-game"):
        status, headers = poll(clients[0], game_id, tags[0])
        assert status == 404 and headers["Content-Type"] == "application/problem+json"


def test_a_cors_request_goes_through_django(polled):
    game_id, clients, tags = polled
    headers = {"Authorization": f"Token {clients[0].token}", "If-None-Match": tags[0]}

    status, response_headers, _ = wsgi_get(
        f"/api/games/{game_id}", {**headers, "Origin": "https://app.example"}
    )

    assert status == 304
    assert "Vary" in response_headers  # set by Django's stack (content negotiation, CORS)


def test_polls_answered_304_do_not_count_against_the_throttle(polled, monkeypatch):
    """As GitHub does for conditional requests: a 304 costs less than the 429 would."""
    game_id, clients, tags = polled
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min"})
    cache.clear()  # the fixture's own requests counted too
    headers = {"Authorization": f"Token {clients[0].token}", "If-None-Match": tags[0]}

    polls = [wsgi_get(f"/api/games/{game_id}", headers)[0] for _ in range(5)]
    reads = [clients[0].get(f"/api/games/{game_id}").status_code for _ in range(4)]

    assert polls == [304] * 5
    assert reads == [200, 200, 200, 429]  # the full reads count as before


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite keeps no server connection")
@pytest.mark.django_db(transaction=True)
def test_a_broken_kept_connection_costs_the_poll_its_shortcut_not_an_error(table):
    game_id, clients = table("valenciano", players=2)
    tag = clients[0].get(f"/api/games/{game_id}")["ETag"]
    headers = {"Authorization": f"Token {clients[0].token}", "If-None-Match": tag}
    connection.ensure_connection()
    connection.connection.close()  # as a restarted server would leave it, unbeknown to Django

    status, response_headers, _ = wsgi_get(f"/api/games/{game_id}", headers)

    assert status == 304  # answered by Django, on a new connection
    assert response_headers["ETag"] == tag


def test_a_host_outside_allowed_hosts_is_refused_as_django_would(polled, settings):
    game_id, clients, tags = polled
    settings.ALLOWED_HOSTS = ["api.example"]
    headers = {"Authorization": f"Token {clients[0].token}", "If-None-Match": tags[0]}

    refused = wsgi_get(f"/api/games/{game_id}", {**headers, "Host": "evil.example"})
    answered = wsgi_get(f"/api/games/{game_id}", {**headers, "Host": "api.example"})

    assert refused[0] == 400
    assert answered[0] == 304
