"""Revoking any token (a personal one, an OAuth app's, a login token) closes its open streams on
every server process within a second; so does a token that expires with no notification at all
(its row changed by hand), found by each process's token check (``STREAM_TOKEN_CHECK_SECONDS``).

The revocation is made on one server, the stream read from another: only Redis (the
notification) or the database (the check) can tell the second one."""

from __future__ import annotations

import time
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from oauth2_provider.models import AccessToken

from oauth.services import make_personal_token
from tests.oauth.flow import register_app, tokens_for
from tests.streams.conftest import call
from tests.streams.sse_client import Stream, open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

#: The promise: a revoked token's streams close within this.
WITHIN = 1.0


def seconds_to_end(stream: Stream, since: float) -> float:
    assert stream.until(lambda m: m.event == "end").data == {"reason": "token_revoked"}
    ended = time.monotonic() - since
    assert stream.next() is None
    return ended


def test_a_revoked_personal_tokens_stream_closes_within_a_second(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    made = make_personal_token(clients[0].player, description="stream", scopes=["games:read"])
    stream = open_stream(f"{other.url}/api/games/{game_id}/stream", made.token)
    assert stream.status == 200
    stream.until(lambda m: m.event == "view")
    token_id = made.personal.pk
    status, _ = call("DELETE", f"{one.url}/api/players/me/tokens/{token_id}", clients[0].token)
    assert status == 204
    assert seconds_to_end(stream, time.monotonic()) < WITHIN


def test_an_apps_token_revoked_by_rfc7009_closes_its_stream(servers_pair, make_client) -> None:
    one, other = servers_pair
    ana = make_client()
    app = register_app(make_client().player)
    tokens = tokens_for(ana.player, app, "games:read")
    stream = open_stream(f"{other.url}/api/stream", tokens["access_token"])
    assert stream.status == 200
    revoke = {"token": tokens["access_token"], "client_id": app.client_id}
    request = urllib.request.Request(
        f"{one.url}/oauth/revoke/", data=urllib.parse.urlencode(revoke).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=20) as answer:
        assert answer.status == 200
    assert seconds_to_end(stream, time.monotonic()) < WITHIN


def test_a_stream_needs_games_read(servers_pair, make_client) -> None:
    _, other = servers_pair
    ana = make_client()
    made = make_personal_token(ana.player, description="profile", scopes=["profile:read"])
    stream = open_stream(f"{other.url}/api/stream", made.token)
    assert stream.status == 403


@pytest.mark.parametrize("kind", ["personal", "login"])
def test_a_token_expired_with_no_notification_closes_within_the_token_check(
    deployed_server, table, kind
) -> None:
    game_id, clients = table("valenciano", players=2)
    player = clients[0].player
    if kind == "personal":
        token = make_personal_token(player, description="x", scopes=["games:read"]).token
    else:
        token = clients[0].token
    stream = open_stream(f"{deployed_server.url}/api/games/{game_id}/stream", token)
    stream.until(lambda m: m.event == "view")
    past = timezone.now() - timedelta(seconds=1)
    # An update sends no signal, so nothing is published: only a check can see it, and the
    # general one runs every 15 s on this server.
    if kind == "personal":
        AccessToken.objects.filter(user=player).update(expires=past)
    else:
        AuthToken.objects.filter(user=player).update(expiry=past)
    # The token check's second, and its read on a loaded machine.
    assert seconds_to_end(stream, time.monotonic()) < 3 * WITHIN
