"""Bots at the table: seated at creation, acting through a real Celery worker after each commit."""

from __future__ import annotations

import random

import pytest
from django.conf import settings

from games import bot_players, engine
from games.models import Game, GameEvent, Seat
from games.store.log import load_state
from tests.celery_fixtures import eventually


def _create(client, **body):
    response = client.post("/api/games", {"preset": "valenciano", "players": 2, **body})
    assert response.status_code == 201, response.json()
    return response.json()


def test_bots_fill_their_seats_and_the_game_starts_unrated(make_client):
    game = _create(
        make_client(), players=4, bots=[{"seat": s, "level": "basic"} for s in (1, 2, 3)]
    )
    assert game["status"] == "active" and game["rated"] is False
    names = [seat["player"]["name"] for seat in game["seats"][1:]]
    assert names == ["Bot basic 1", "Bot basic 2", "Bot basic 3"]


@pytest.mark.parametrize(
    ("bots", "status", "code"),
    [
        ([{"seat": 0, "level": "basic"}], 400, "invalid_request"),  # seat 0 is the creator's
        ([{"seat": 1, "level": "x"}], 400, "invalid_request"),
        # Each well formed; together not seats this table can give (a 422, not a 400).
        ([{"seat": 1, "level": "basic"}] * 2, 422, "invalid_seats"),
        ([{"seat": 3, "level": "basic"}], 422, "invalid_seats"),
    ],
)
def test_bad_bot_seats_are_refused(make_client, bots, status, code):
    response = make_client().post(
        "/api/games", {"preset": "valenciano", "players": 2, "bots": bots}
    )
    assert response.status_code == status
    assert response.json()["code"] == code


def test_nobody_registers_a_bot_name(db):
    from rest_framework.test import APIClient

    body = {"username": "Bot-basic-9", "password": "s3cret-Pass!long"}
    assert APIClient().post("/api/auth/register", body, format="json").status_code == 409


@pytest.mark.parametrize("level", ["random", "basic", "strong"])
def test_bot_move_acts_only_on_its_turn_and_version(make_client, level):
    human = make_client()
    game = Game.objects.get(pk=_create(human, bots=[{"seat": 1, "level": level}])["id"])
    state = load_state(game)
    assert engine.turn(state) == 0  # the human is mano: the bot may not move
    assert bot_players.move(game.pk, game.version, 1) is False
    card = state.hand.held[0][0]
    human.act(str(game.pk), {"type": "play", "card": card}, game.version)
    game.refresh_from_db()
    assert bot_players.move(game.pk, game.version - 1, 1) is False  # stale
    assert bot_players.move(game.pk, game.version, 1) is True
    last = GameEvent.objects.filter(game=game, seq__gt=game.version).first()
    assert last.seat == 1 and last.actor.username == f"bot-{level}-1"


@pytest.mark.skipif(settings.CELERY_BROKER_URL.startswith("memory://"), reason="needs Redis")
def test_a_person_plays_a_whole_match_against_a_bot_through_the_worker(
    celery_worker_thread, make_client
):
    human = make_client()
    game_id = _create(
        human,
        preset="argentino",
        options={"target": 9, "buenas_from": 5},
        bots=[{"seat": 1, "level": "basic"}],
    )["id"]
    rng = random.Random(3)
    for _ in range(400):
        view = eventually(lambda: _mine(human, game_id))
        if view["status"] != "active":
            break
        action = rng.choice(view["state"]["legal_actions"])
        assert human.act(game_id, action, view["version"]).status_code == 201
    final = human.get(f"/api/games/{game_id}").json()
    assert final["status"] == "finished"
    bot_seat = Seat.objects.get(game_id=game_id, number=1)
    assert GameEvent.objects.filter(game_id=game_id, actor=bot_seat.player).exists()
    assert not GameEvent.objects.filter(game_id=game_id, type="turn_timed_out").exists()


def _mine(client, game_id):
    """The view once the game waits for this client (or is over); None while the bot thinks."""
    view = client.get(f"/api/games/{game_id}").json()
    return view if view["status"] != "active" or view["state"]["legal_actions"] else None
