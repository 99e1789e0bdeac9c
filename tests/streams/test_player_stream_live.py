"""``GET /api/stream`` live on a real server process: notices written by any process (here the
test's own, and the other server) reach it at once, and resuming repeats none."""

from __future__ import annotations

import pytest
from django.db import transaction

from streams import notices
from tests.streams.conftest import call, thorough
from tests.streams.sse_client import open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_player_stream_follows_his_games_and_resumes(servers_pair, make_client) -> None:
    one, other = servers_pair
    ana, berta = make_client(), make_client()
    stream = open_stream(f"{other.url}/api/stream", ana.token)
    assert stream.status == 200
    status, game = call("POST", f"{one.url}/api/games", ana.token, {"preset": "valenciano"})
    assert status == 201
    status, _ = call("POST", f"{one.url}/api/games/{game['id']}/join", berta.token, {})
    assert status == 200
    joined = stream.until(lambda m: m.event == notices.PLAYER_JOINED)
    started = stream.until(lambda m: m.event == notices.GAME_STARTED)
    assert joined.data["data"]["player_id"] == berta.player.pk
    assert started.data["data"]["game_id"] == game["id"]
    with transaction.atomic():  # what the lobby does, from any process
        notices.notify_players([(ana.player.pk, "match_found", {"game_id": game["id"]})])
    found = stream.until(lambda m: m.event == "match_found")
    stream.close()
    assert [joined.id, started.id, found.id] == [1, 2, 3]

    again = open_stream(f"{other.url}/api/stream", ana.token, headers={"Last-Event-ID": "2"})
    first = again.until(lambda m: m.id is not None)
    again.close()
    assert (first.event, first.id) == ("match_found", 3)


@thorough
def test_player_stream_tells_the_turn_a_move_hands_over(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    _, view = call("GET", f"{one.url}/api/games/{game_id}", clients[0].token)
    mover = view["state"]["turn"]
    waiting = open_stream(f"{other.url}/api/stream", clients[1 - mover].token)
    waiting.until(lambda m: m.event == notices.GAME_STARTED)
    _, mine = call("GET", f"{one.url}/api/games/{game_id}", clients[mover].token)
    play = next(a for a in mine["state"]["legal_actions"] if a["type"] in ("play", "paso"))
    body = {**play, "expected_version": mine["version"]}
    status, _ = call(
        "POST",
        f"{one.url}/api/games/{game_id}/actions",
        clients[mover].token,
        body,
        **{"Idempotency-Key": "hand-over"},
    )
    assert status == 201
    turn = waiting.until(lambda m: m.event == notices.YOUR_TURN)
    waiting.close()
    assert (turn.data["game_id"], turn.data["version"]) == (game_id, mine["version"] + 1)
    assert turn.id is None  # the state now, not a notice: Last-Event-ID stays the last notice


def test_player_stream_closes_when_its_token_is_revoked(servers_pair, make_client) -> None:
    one, other = servers_pair
    ana = make_client()
    stream = open_stream(f"{other.url}/api/stream", ana.token)
    assert stream.status == 200
    status, _ = call("POST", f"{one.url}/api/auth/logout-all", ana.token)
    assert status == 204
    assert stream.until(lambda m: m.event == "end").data == {"reason": "token_revoked"}
    assert stream.next() is None
