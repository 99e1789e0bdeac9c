"""Polls answered 304 by ``GameView`` through Django's and DRF's whole stack (games/api/views.py):
two queries, every header other answers carry, and never an answer a full read would not give."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient
from rest_framework.throttling import UserRateThrottle

from tests.games.test_game_api import read
from truc_api.wsgi import application

pytestmark = pytest.mark.django_db


def poll(client, game_id, tag, **extra):
    """A conditional read; a 304 is bodiless and carries the tag it matched."""
    response = client.get(f"/api/games/{game_id}", **{"If-None-Match": tag, **extra})
    if response.status_code == 304:
        assert response.content == b""
        assert tag == "*" or response["ETag"] in tag
    return response


@pytest.fixture
def polled(table):
    """A started game, its clients by seat, and each seat's current ETag."""
    game_id, clients = table("valenciano", players=2)
    tags = [client.get(f"/api/games/{game_id}")["ETag"] for client in clients]
    return game_id, clients, tags


def test_an_unchanged_game_costs_two_queries(polled, django_assert_num_queries):
    game_id, clients, tags = polled

    # The token with its player (as for any request), then the game's tag with the viewer's seat.
    with django_assert_num_queries(2):
        response = poll(clients[0], game_id, tags[0])

    assert response.status_code == 304
    assert response["ETag"] == tags[0]
    assert response["Cache-Control"] == "private, no-cache"
    assert len(response["X-Request-ID"]) == 32


def test_a_304_carries_every_header_a_full_read_carries(polled):
    game_id, clients, tags = polled
    with override_settings(CORS_ALLOWED_ORIGINS=["https://app.example"]):
        full = clients[0].get(f"/api/games/{game_id}", Origin="https://app.example")
        cached = poll(clients[0], game_id, tags[0], Origin="https://app.example")

    assert cached.status_code == 304
    missing = {name for name in full.headers if name not in cached.headers}
    assert missing <= {"Content-Type", "Content-Length"}
    for name in ("Vary", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"):
        assert cached[name] == full[name]
    assert cached["Access-Control-Allow-Origin"] == "https://app.example"


def test_the_clients_request_id_comes_back(polled):
    game_id, clients, tags = polled

    response = poll(clients[0], game_id, tags[0], **{"X-Request-ID": "poll-17"})

    assert response["X-Request-ID"] == "poll-17"


def test_a_list_of_tags_or_a_star_matches_too(polled):
    game_id, clients, tags = polled

    assert poll(clients[0], game_id, f'W/"other", {tags[0]}').status_code == 304
    assert poll(clients[0], game_id, "*").status_code == 304
    assert poll(clients[0], game_id, 'W/"other"').status_code == 200


def test_a_changed_game_is_read_in_full(polled):
    game_id, clients, tags = polled
    view = read(clients[0], game_id)
    mover = view["state"]["turn"]
    action = read(clients[mover], game_id)["state"]["legal_actions"][0]
    assert clients[mover].act(game_id, action, view["version"]).status_code == 201

    response = poll(clients[0], game_id, tags[0])

    assert response.status_code == 200 and response["ETag"] != tags[0]


def test_another_seats_tag_gets_the_full_view(polled):
    game_id, clients, tags = polled

    assert poll(clients[0], game_id, tags[1]).status_code == 200
    assert poll(clients[1], game_id, tags[0]).status_code == 200


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

    response = poll(client, game_id, tags[0])

    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"


def test_a_forged_tag_of_a_private_game_tells_a_stranger_nothing(table, make_client):
    game_id, clients = table("valenciano", players=2, visibility="private")
    tag = clients[0].get(f"/api/games/{game_id}")["ETag"]
    # The tag's shape is no secret: a stranger could write the one a spectator would get.
    forged = tag.replace("seat0", "spectator")

    assert poll(make_client(), game_id, forged).status_code == 404


def test_a_spectator_of_a_public_game_may_poll(polled, make_client):
    game_id, _, _ = polled
    spectator = make_client()
    tag = spectator.get(f"/api/games/{game_id}")["ETag"]

    assert poll(spectator, game_id, tag).status_code == 304


def test_a_malformed_or_unknown_game_id_is_the_usual_404(polled):
    _, clients, tags = polled

    for game_id in ("0" * 32, "not-a-game"):
        response = poll(clients[0], game_id, tags[0])
        assert response.status_code == 404
        assert response["Content-Type"] == "application/problem+json"


def test_polls_count_against_the_throttle_like_any_request(polled, monkeypatch):
    """A poll goes through DRF's throttles as every request does (a cache look-up, no query)."""
    game_id, clients, tags = polled
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min"})
    cache.clear()  # the fixture's own requests counted too

    statuses = [poll(clients[0], game_id, tags[0]).status_code for _ in range(4)]

    assert statuses == [304, 304, 304, 429]


def test_a_poll_over_http_is_redirected_when_https_is_required(polled, settings):
    game_id, clients, tags = polled
    settings.SECURE_SSL_REDIRECT = True
    client = clients[0]
    client.http = APIClient()  # Django's middleware reads its settings when it is loaded
    client.http.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")

    response = poll(client, game_id, tags[0])

    assert response.status_code == 301 and response["Location"].startswith("https://")


def test_a_host_outside_allowed_hosts_is_refused(polled, settings):
    game_id, clients, tags = polled
    settings.ALLOWED_HOSTS = ["api.example"]

    assert poll(clients[0], game_id, tags[0], Host="evil.example").status_code == 400
    assert poll(clients[0], game_id, tags[0], Host="api.example").status_code == 304


def test_the_servers_entry_point_answers_a_poll_with_the_stacks_headers(polled):
    """truc_api.wsgi.application, as granian calls it: no layer in front of Django."""
    game_id, clients, tags = polled
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": f"/api/games/{game_id}",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
        "HTTP_AUTHORIZATION": f"Token {clients[0].token}",
        "HTTP_IF_NONE_MATCH": tags[0],
    }
    started: dict[str, Any] = {}

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], object]:
        started.update(status=int(status.split()[0]), headers=dict(headers))
        return lambda data: None  # WSGI's write(), which Django never calls

    # As Django's test client does: the test's transaction holds the connection, which the
    # request signals would otherwise close.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)

    assert (started["status"], body) == (304, b"")
    headers = started["headers"]
    assert headers["ETag"] == tags[0]
    for name in ("Vary", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"):
        assert name in headers
