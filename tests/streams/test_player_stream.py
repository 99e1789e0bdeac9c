"""``GET /api/stream``: a player's notices (durable, resumable by seq) and his turns (told from
his games' state), through WSGI (finite, Django's test client) and live on a real server."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import services
from games.models import Game
from games.rated_results import rate_game
from notifications import reminders
from players.models import Player
from players.services import delete_account
from streams import notices
from streams.models import PlayerNotice
from tests.factories import PASSWORD
from tests.streams.test_stream_requests import messages

pytestmark = pytest.mark.django_db


def told(client, query: str = "", **headers: str):
    response = client.get(f"/api/stream{query}", **headers)
    assert response.status_code == 200, response.content
    return [(m.event, m.id, json.loads(m.data)) for m in messages(response.content)]


def test_any_app_notifies_a_player_and_his_stream_resumes_after_a_seq(make_client) -> None:
    ana = make_client()
    with transaction.atomic():
        notices.notify_players([(ana.player.pk, "challenge", {"from": "berta"})])
        notices.notify_players([(ana.player.pk, "match_found", {"game_id": "g"})])
    sent = told(ana)
    assert [(kind, seq) for kind, seq, _ in sent] == [("challenge", 1), ("match_found", 2)]
    assert sent[0][2]["data"] == {"from": "berta"} and sent[0][2]["seq"] == 1
    assert [seq for _, seq, _ in told(ana, **{"Last-Event-ID": "1"})] == [2]
    assert told(ana, "?after=2") == []
    ahead = ana.get("/api/stream?after=3")
    assert ahead.status_code == 422
    assert (ahead.json()["code"], ahead.json()["current_version"]) == ("after_beyond_log", 2)


def test_a_notice_rolled_back_is_never_told(make_client) -> None:
    ana = make_client()
    with pytest.raises(RuntimeError), transaction.atomic():
        notices.notify_players([(ana.player.pk, "challenge", {})])
        raise RuntimeError
    assert told(ana) == []


def test_stream_tells_a_start_the_turn_and_a_pending_call(table) -> None:
    game_id, clients = table("argentino", players=2)
    starts = [kind for kind, _, _ in told(clients[1]) if kind == notices.GAME_STARTED]
    assert starts == [notices.GAME_STARTED]
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = view["state"]["turn"]
    other = 1 - mover
    turn = [data for kind, _, data in told(clients[mover]) if kind == notices.YOUR_TURN]
    assert turn == [
        {
            "game_id": game_id,
            "version": view["version"],
            "seat": mover,
            "deadline": view["deadline"],
            "call": None,
        }
    ]
    assert not [kind for kind, _, _ in told(clients[other]) if kind == notices.YOUR_TURN]
    assert clients[mover].act(game_id, {"type": "envido"}, view["version"]).status_code == 201
    answering = {kind: data for kind, _, data in told(clients[other]) if seq_free(kind)}
    assert answering[notices.YOUR_TURN]["call"] is not None
    assert answering[notices.CALL_PENDING]["call"] == answering[notices.YOUR_TURN]["call"]
    assert answering[notices.CALL_PENDING]["version"] == view["version"] + 1


def seq_free(kind: str) -> bool:
    return kind in (notices.YOUR_TURN, notices.CALL_PENDING)


def test_a_join_an_end_and_a_rating_are_notices(make_client) -> None:
    ana, berta = make_client(), make_client()
    created = ana.post("/api/games", {"preset": "valenciano", "players": 2}).json()
    assert berta.post(f"/api/games/{created['id']}/join", {}).status_code == 200
    services.resign(berta.player, created["id"])
    rate_game(created["id"])
    kinds = [kind for kind, _, _ in told(ana)]
    assert kinds == [
        notices.PLAYER_JOINED,
        notices.GAME_STARTED,
        notices.GAME_ENDED,
        notices.RATING_CHANGED,
    ]
    ended = PlayerNotice.objects.get(player=ana.player, kind=notices.GAME_ENDED).data
    assert (ended["won"], ended["reason"], ended["rated"]) == (True, "resigned", True)
    change = PlayerNotice.objects.get(player=ana.player, kind=notices.RATING_CHANGED).data
    assert change["delta"] > 0 and change["after"] == change["before"] + change["delta"]
    joined = PlayerNotice.objects.get(player=ana.player, kind=notices.PLAYER_JOINED).data
    assert joined["player_id"] == berta.player.pk
    assert [k for k, _, _ in told(berta)] == [
        notices.GAME_STARTED,
        notices.GAME_ENDED,
        notices.RATING_CHANGED,
    ]


def test_player_stream_needs_a_token(client) -> None:
    assert client.get("/api/stream").status_code == 401


def test_a_near_deadline_is_a_notice_to_the_seat_that_must_act(table, settings) -> None:
    settings.REMINDER_LEAD_SECONDS = 600
    game_id, clients = table("valenciano", players=2, turn_seconds=3600)
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = view["state"]["turn"]
    soon = timezone.now() + timedelta(seconds=540)
    Game.objects.filter(pk=game_id).update(deadline=soon)
    assert reminders.sweep() == 1
    near = [data for kind, _, data in told(clients[mover]) if kind == notices.DEADLINE_NEAR]
    assert [n["data"] for n in near] == [
        {
            "game_id": game_id,
            "version": view["version"],
            "seat": mover,
            "deadline": soon.isoformat(),
        }
    ]
    others = told(clients[1 - mover])
    assert notices.DEADLINE_NEAR not in [kind for kind, _, _ in others]


def test_a_deleted_accounts_notices_go_with_it(make_client) -> None:
    ana, berta = make_client(), make_client()
    notices.notify_players([(ana.player.pk, "challenge", {"challenge_id": "c"})])
    notices.notify_players([(berta.player.pk, "challenge", {"challenge_id": "c"})])
    delete_account(Player.objects.get(pk=ana.player.pk), password=PASSWORD)
    assert not PlayerNotice.objects.filter(player=ana.player).exists()
    assert PlayerNotice.objects.filter(player=berta.player).count() == 1


def test_the_lobby_tells_a_match_found_on_the_player_stream(make_client) -> None:
    """Seeks paired (lobby/): each seeker's stream has the lobby's notice, as a webhook has it."""
    ana, pep = make_client(), make_client()
    seek = {"preset": "valenciano", "players": 2, "turn_seconds": 60, "rated": True}
    assert ana.post("/api/seeks", seek).status_code == 201
    paired = pep.post("/api/seeks", seek).json()
    for client in (ana, pep):
        found = [data for kind, _, data in told(client) if kind == "match_found"]
        assert [notice["data"]["game_id"] for notice in found] == [paired["game_id"]]
