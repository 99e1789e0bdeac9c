"""``expected_version`` is a JSON whole number: true, "2" or 2.5 is not the version 2, and the game
is left as it was. 2.0 is the number 2 itself, as JSON Schema (the OpenAPI 3.1 document) counts
integers, so refusing it would make the server disagree with its schema (issue 13); it is
read as 2 (truc_api/json_io.py)."""

from __future__ import annotations

import pytest

from games.models import Game, GameEvent
from tests.notifications.conftest import mover

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("spelt", [lambda v: v + 0.5, lambda v: str(v), lambda v: True])
def test_an_expected_version_that_is_not_a_whole_number_is_refused(table, spelt) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    version = action.pop("expected_version")
    events = GameEvent.objects.filter(game=game_id).count()

    response = clients[seat].act(game_id, action, spelt(version))

    assert response.status_code == 400
    problem = response.json()
    assert problem["code"] == "invalid_request"
    assert [error["field"] for error in problem["errors"]] == ["expected_version"]
    assert Game.objects.get(pk=game_id).version == version
    assert GameEvent.objects.filter(game=game_id).count() == events


def test_an_expected_version_written_as_a_whole_float_is_that_version(table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    version = action.pop("expected_version")

    response = clients[seat].act(game_id, action, float(version))

    assert response.status_code == 201
    assert Game.objects.get(pk=game_id).version > version
