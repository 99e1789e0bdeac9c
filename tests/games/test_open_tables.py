"""Open tables: a player waits at OPEN_GAMES_PER_PLAYER open games at most, and an open game
that never fills expires (games/open_tables.py)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import connections
from django.utils import timezone

from games import services
from games.models import Game
from games.tasks import expire_open_games
from tests.factories import PlayerFactory
from tests.games.test_authorization import assert_problem
from tests.games.test_game_api import create, read

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _three_open_games(settings) -> None:
    settings.OPEN_GAMES_PER_PLAYER = 3


def test_open_games_a_player_may_create_are_capped(make_client) -> None:
    host = make_client()
    for _ in range(3):
        create(host)

    refused = host.post("/api/games", {"preset": "valenciano"})

    assert_problem(refused, 409, "too_many_open_games")
    assert Game.objects.filter(created_by=host.player).count() == 3  # nothing was made


def test_a_game_that_starts_at_once_needs_no_open_place(make_client) -> None:
    host = make_client()
    for _ in range(3):
        create(host)

    started = create(host, bots=[{"seat": 1, "level": "random"}])

    assert started["status"] == "active"


def test_joining_an_open_game_takes_a_place_and_filling_one_does_not(make_client) -> None:
    host, guest = make_client(), make_client()
    for _ in range(3):
        create(guest)
    table_of_four = create(host, "argentino", players=4)["id"]
    table_of_two = create(host)["id"]

    assert_problem(guest.post(f"/api/games/{table_of_four}/join"), 409, "too_many_open_games")
    assert guest.post(f"/api/games/{table_of_two}/join").status_code == 200  # it starts


def test_leaving_or_starting_frees_a_place(make_client) -> None:
    host, guest = make_client(), make_client()
    games = [create(host)["id"] for _ in range(3)]
    assert host.post(f"/api/games/{games[0]}/leave").status_code == 204
    assert guest.post(f"/api/games/{games[1]}/join").status_code == 200

    for _ in range(2):
        create(host)
    assert_problem(host.post("/api/games", {"preset": "valenciano"}), 409, "too_many_open_games")


@pytest.mark.django_db(transaction=True)
def test_requests_racing_for_the_last_places_never_pass_the_cap() -> None:
    player = PlayerFactory.create()
    outcomes: list[str] = []

    def open_one() -> None:
        try:
            services.create_game(
                player, preset="valenciano", options={}, players=2, visibility="public"
            )
            outcomes.append("created")
        except Exception as error:  # noqa: BLE001 - the outcome is what is asserted
            outcomes.append(type(error).__name__)
        finally:
            connections.close_all()

    racers = [threading.Thread(target=open_one) for _ in range(6)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(30)

    assert sorted(outcomes) == ["TooManyOpenGames"] * 3 + ["created"] * 3
    assert Game.objects.filter(status=Game.Status.OPEN).count() == 3


def test_an_open_game_expires_after_its_time_and_its_etag_moves(make_client) -> None:
    host = make_client()
    old, fresh = create(host)["id"], create(host)["id"]
    tag = host.get(f"/api/games/{old}")["ETag"]
    long_ago = timezone.now() - timedelta(hours=django_settings.OPEN_GAME_TTL_HOURS, minutes=1)
    Game.objects.filter(pk=old).update(created_at=long_ago)

    assert expire_open_games() == 1

    expired = read(host, old)
    assert (expired["status"], expired["end_reason"]) == ("aborted", "expired")
    assert host.get(f"/api/games/{old}", **{"If-None-Match": tag}).status_code == 200
    assert read(host, fresh)["status"] == "open"
    create(host)  # the expired game's place is free again


def test_the_expiry_runs_on_the_beat() -> None:
    schedule = django_settings.CELERY_BEAT_SCHEDULE
    assert any(entry["task"] == "games.tasks.expire_open_games" for entry in schedule.values())
