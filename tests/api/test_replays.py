"""A retry's answer is read back from the log (games.services._earlier), not kept: it is the
first answer, whatever happened to the game since, its end and its rating included."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import engine, rated_results
from games.models import Game
from games.store.log import load_state
from tests.factories import PlayerFactory
from tests.games.conftest import Client

pytestmark = pytest.mark.django_db


def _to_the_end(game_id: str, clients: list[Client]) -> list[tuple[Client, dict[str, Any], Any]]:
    """Random legal actions until the match ends: each one's client, body and answer."""
    rng, played = random.Random(3), []
    while Game.objects.get(pk=game_id).status == Game.Status.ACTIVE:
        state = load_state(Game.objects.get(pk=game_id))
        seat = engine.turn(state)
        assert seat is not None
        action = rng.choice(engine.legal_actions(state, seat)).to_json()
        body = {**action, "expected_version": state.version}
        key = f"act-{state.version}"
        answer = clients[seat].post(
            f"/api/games/{game_id}/actions", body, **{"Idempotency-Key": key}
        )
        assert answer.status_code == 201, answer.json()
        played.append((clients[seat], {"body": body, "key": key}, answer))
    return played


def test_replay_of_the_action_that_ended_a_rated_match_is_its_first_answer() -> None:
    clients = [Client(PlayerFactory.create()) for _ in range(2)]
    created = clients[0].post(
        "/api/games", {"preset": "valenciano", "options": {"target": 6, "buenas_from": 3}}
    )
    game_id = created.json()["id"]
    assert clients[1].post(f"/api/games/{game_id}/join", {}).status_code == 200
    played = _to_the_end(game_id, clients)
    assert rated_results.rate_game(game_id)  # rated since: the game's view now shows the changes

    for client, sent, first in (played[0], played[-1]):
        retry = client.post(
            f"/api/games/{game_id}/actions", sent["body"], **{"Idempotency-Key": sent["key"]}
        )
        assert (retry.status_code, retry.json()) == (201, first.json())
        assert retry["Idempotent-Replayed"] == "true"
        assert retry["Location"] == first["Location"]
    assert played[-1][2].json()["game"]["status"] == "finished"
    assert played[-1][2].json()["game"]["rating_changes"] == []
    assert clients[0].get(f"/api/games/{game_id}").json()["rating_changes"]
