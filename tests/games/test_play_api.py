"""Whole matches played through the HTTP API, as mobile clients would."""

from __future__ import annotations

import random

import pytest

from tests.games.conftest import play_out


@pytest.mark.parametrize(
    ("preset", "players"),
    [("valenciano", 2), ("argentino", 2), ("argentino_clasico", 4), ("valenciano", 4)],
)
def test_match_played_through_http_ends_with_a_winner(table, preset, players):
    game_id, clients = table(preset, players=players)
    final = play_out(game_id, clients, random.Random(f"{preset}{players}"))
    assert final["status"] == "finished"
    assert final["winner_side"] in (0, 1)
    assert final["state"]["match_over"] is True
    history = clients[0].get(f"/api/games/{game_id}/history").json()
    assert history["hands"], "every hand is in the history"
    assert all(hand["ended_at"] for hand in history["hands"])
    assert sum(1 for cama in history["camas"] if cama["winner"] is not None) >= 1
    export = clients[1].get(f"/api/games/{game_id}/export")
    assert export.status_code == 200
    assert [item["seq"] for item in export.json()["events"]] == list(range(1, final["version"] + 1))
