"""Guests: a player at once with no password, who plays casual games, claims his account
keeping them, or is removed when idle with his finished games kept anonymous."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.accounts import remove_idle_guests
from games.models import Game, Seat
from players.models import Player
from tests.celery_fixtures import eventually
from tests.factories import PASSWORD, PlayerFactory
from truc_api.problems import PROBLEM_CONTENT_TYPE

GUEST, CLAIM = "/api/auth/guest", "/api/auth/claim"


def as_guest() -> tuple[APIClient, dict]:
    client = APIClient()
    made = client.post(GUEST)
    assert made.status_code == 201, made.content
    body = made.json()
    assert made["Location"] == f"/api/players/{body['player']['id']}"
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    return client, body


def game_against_a_bot(client: APIClient) -> str:
    made = client.post(
        "/api/games",
        {"preset": "valenciano", "players": 2, "bots": [{"seat": 1, "level": "random"}]},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["rated"] is False  # a table with a bot is casual
    return str(made.json()["id"])


def test_a_guest_plays_a_bot_claims_the_account_and_finds_the_game(celery_worker_thread) -> None:
    client, body = as_guest()
    assert body["player"]["username"].startswith("guest-")
    game_id = game_against_a_bot(client)
    # Play until the bot has answered through the worker at least once, then resign.
    game = client.get(f"/api/games/{game_id}").json()
    if game["state"]["turn"] == 0:
        legal = next(a for a in game["state"]["legal_actions"] if a["type"] == "play")
        played = client.post(
            f"/api/games/{game_id}/actions",
            {**legal, "expected_version": game["version"]},
            format="json",
            headers={"Idempotency-Key": str(uuid.uuid4())},
        )
        assert played.status_code == 201, played.content
    # The bot's answer, made by the worker, hands the turn back.
    eventually(lambda: Game.objects.get(pk=game_id).turn == 0)
    assert client.post(f"/api/games/{game_id}/resign").status_code == 200
    claimed = client.post(
        CLAIM, {"username": "pepa", "password": PASSWORD, "display_name": "Pepa"}, format="json"
    )
    assert claimed.status_code == 200, claimed.content
    assert claimed.json() == {
        "id": body["player"]["id"],
        "username": "pepa",
        "display_name": "Pepa",
    }
    again = APIClient().post(
        "/api/auth/login", {"username": "pepa", "password": PASSWORD}, format="json"
    )
    assert again.status_code == 200
    mine = APIClient()
    mine.credentials(HTTP_AUTHORIZATION=f"Bearer {again.json()['token']}")
    games = mine.get("/api/games/mine").json()["results"]
    assert [(game["id"], game["status"]) for game in games] == [(game_id, "finished")]
    assert mine.get(f"/api/games/{game_id}/history").status_code == 200


@pytest.mark.django_db
def test_a_guest_has_no_password_to_sign_in_with() -> None:
    _, body = as_guest()
    guest = Player.objects.get(pk=body["player"]["id"])
    assert guest.is_guest and not guest.has_usable_password()


@pytest.mark.django_db
def test_only_a_guest_claims() -> None:
    client = APIClient()
    player = PlayerFactory.create()
    login = client.post(
        "/api/auth/login", {"username": player.username, "password": PASSWORD}, format="json"
    )
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['token']}")
    refused = client.post(CLAIM, {"username": "other", "password": PASSWORD}, format="json")
    assert refused.status_code == 409
    assert refused["Content-Type"] == PROBLEM_CONTENT_TYPE
    assert refused.json()["code"] == "not_a_guest"


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["Taken", "guest-1234", "deleted-x"])
def test_a_claim_cannot_take_a_taken_or_reserved_name(username) -> None:
    PlayerFactory.create(username="taken")
    client, body = as_guest()
    refused = client.post(CLAIM, {"username": username, "password": PASSWORD}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "username_taken"
    assert Player.objects.get(pk=body["player"]["id"]).is_guest  # unchanged


@pytest.mark.django_db
def test_nobody_registers_a_guests_name() -> None:
    body = {"username": "guest-abcd", "password": PASSWORD}
    assert APIClient().post("/api/auth/register", body, format="json").status_code == 409


@pytest.mark.django_db(transaction=True)
def test_idle_guests_are_removed_their_finished_games_kept_anonymous() -> None:
    idle_client, idle = as_guest()
    game_id = game_against_a_bot(idle_client)
    assert idle_client.post(f"/api/games/{game_id}/resign").status_code == 200
    playing_client, playing = as_guest()
    game_against_a_bot(playing_client)  # still active: not idle
    _, recent = as_guest()
    person = PlayerFactory.create()
    long_ago = timezone.now() - timedelta(days=40)
    Player.objects.exclude(pk=recent["player"]["id"]).update(
        date_joined=long_ago, last_login=long_ago
    )

    assert remove_idle_guests(timezone.now() - timedelta(days=30)) == 1

    gone = Player.objects.get(pk=idle["player"]["id"])
    assert gone.username.startswith("deleted-") and not gone.is_active and not gone.is_guest
    seat = Seat.objects.get(game_id=game_id, number=0)
    assert seat.player_id == gone.pk
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    for kept in (playing["player"]["id"], recent["player"]["id"], person.pk):
        assert Player.objects.get(pk=kept).is_active
    assert idle_client.get("/api/games/mine").status_code == 401  # his token died with him
