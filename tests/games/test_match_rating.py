"""A match that ends is rated by the worker, once, and the game view shows the rating changes."""

from __future__ import annotations

import random

import pytest
from django.conf import settings

from players.models import RatingChange
from tests.celery_fixtures import eventually
from tests.games.conftest import play_out

pytestmark = pytest.mark.skipif(
    settings.CELERY_BROKER_URL.startswith("memory://"), reason="needs a real broker (Redis)"
)


def test_finished_match_is_rated_once_and_shown_in_the_game(celery_worker_thread, table):
    game_id, clients = table("argentino", players=2, options={"target": 6, "buenas_from": 4})
    play_out(game_id, clients, random.Random(7))

    assert eventually(lambda: RatingChange.objects.filter(game_id=game_id).count() == 2)
    view = clients[0].get(f"/api/games/{game_id}").json()
    changes = {change["seat"]: change for change in view["rating_changes"]}
    winner = view["winner_side"]
    assert changes[winner]["delta"] > 0 > changes[1 - winner]["delta"]
    assert changes[0]["delta"] == -changes[1]["delta"]  # 1v1, both provisional: zero-sum
    assert all(change["before"] == 1500 for change in changes.values())


def test_resigned_match_counts_and_is_rated(celery_worker_thread, table):
    game_id, clients = table("argentino", players=2, options={"target": 6, "buenas_from": 4})
    clients[0].post(f"/api/games/{game_id}/resign")
    view = clients[1].get(f"/api/games/{game_id}").json()
    assert view["status"] == "finished" and view["rated"] is True
    assert eventually(lambda: RatingChange.objects.filter(game_id=game_id).count() == 2)
