"""Structured logs name the request, the game and the player, and never a card or a token."""

from __future__ import annotations

import io
import json
import logging
import random
import re
from collections.abc import Iterator

import pytest

from tests.games.conftest import play_out

# A card as it would appear in text: 1-7 or 10-12 followed by a suit, standing alone.
CARD = re.compile(r"(?<![A-Za-z0-9])(?:1[0-2]|[1-7])[EBOC](?![A-Za-z0-9])")


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """Every log line, rendered by the project's own formatter (JSON lines with DEBUG off)."""
    root = logging.getLogger()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(root.handlers[0].formatter)
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


@pytest.mark.parametrize(("preset", "players"), [("valenciano", 2), ("argentino", 4)])
def test_logs_of_a_whole_match_hold_no_card_and_no_token(log_output, table, preset, players):
    game_id, clients = table(preset, players=players)
    play_out(game_id, clients, random.Random(preset))
    clients[0].get("/api/games/not-a-game")  # an error line too

    text = log_output.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    actions = [line for line in lines if line["event"] == "game.action"]
    assert actions, "every action is logged"
    assert all(line["game_id"] == game_id and "player_id" in line for line in actions)
    assert all(line.get("request_id") for line in actions)
    assert any(line["event"] == "game.over" for line in lines)
    assert CARD.findall(text) == []
    for client in clients:
        assert client.token not in text
