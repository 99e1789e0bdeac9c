"""``expected_version`` is a JSON whole number: 2.0, true or "2" is not the version 2 (issue 18:
2.0 was taken as 2), and the game is left as it was."""

from __future__ import annotations

import pytest

from games.models import Game, GameEvent
from tests.notifications.conftest import mover

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("spelt", [lambda v: float(v), lambda v: str(v), lambda v: True])
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
