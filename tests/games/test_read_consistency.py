"""A full read's body, ETag and deadline describe one and the same moment of the game, and the
ETag moves whenever the body does (ratings included): otherwise a poll is answered 304 over a
change, or a client holds a deadline of another turn than its view."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from games import selectors
from games.models import Game
from games.rated_results import rate_game
from games.store import log
from tests.notifications.conftest import mover

pytestmark = pytest.mark.django_db


def test_the_etag_moves_when_the_ratings_are_written(table) -> None:
    game_id, clients = table("valenciano", players=2)
    assert clients[0].post(f"/api/games/{game_id}/resign").status_code == 200
    before = clients[1].get(f"/api/games/{game_id}")
    assert before.json()["rating_changes"] == []  # the rating task has not run

    assert rate_game(game_id)

    after = clients[1].get(f"/api/games/{game_id}", **{"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    assert len(after.json()["rating_changes"]) == 2
    assert after["ETag"] != before["ETag"]


def _tag_version(tag: str) -> int:
    return int(tag.strip('W/"').split("-")[5])  # W/"<uuid: 5 parts>-<version>-<status>-..."


@pytest.mark.django_db(transaction=True)
def test_a_read_with_an_action_committed_in_its_middle_is_of_one_moment(table, monkeypatch):
    """The action commits after the read has its game row and before it reads the log."""
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    version = action.pop("expected_version")
    deadline = clients[0].get(f"/api/games/{game_id}").json()["deadline"]  # of this turn
    real_load_state = log.load_state  # what selectors imported, patched there below
    acted: list[int] = []

    def load_state_after_an_action(game):
        if not acted:

            def move() -> None:
                try:
                    acted.append(clients[seat].act(game_id, action, version).status_code)
                finally:
                    connections.close_all()

            mover_thread = threading.Thread(target=move)
            mover_thread.start()
            mover_thread.join(20)
        return real_load_state(game)

    monkeypatch.setattr(selectors, "load_state", load_state_after_an_action)
    response = clients[1 - seat].get(f"/api/games/{game_id}")

    assert acted == [201]
    body = response.json()
    row = Game.objects.get(pk=game_id)
    assert row.version == version + 1  # the action is there for the next read
    assert _tag_version(response["ETag"]) == body["version"] == version  # this read: before it
    assert body["state"]["turn"] == seat  # the mover's turn, as at that version
    assert body["deadline"] == deadline
    assert row.deadline.isoformat() != deadline  # the action handed the turn on, with a new one
