"""Every answer is made by the output serializer its operation's schema documents
(``truc_api.serializers.output``): for each read model of the games, the serializer keeps every
key and every value, so the document and the bodies cannot drift apart."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from rest_framework import serializers

from games import contract, selectors, services
from games.api.serializers import (
    ActionResultSerializer,
    ExportSerializer,
    FeedPageSerializer,
    GameSerializer,
    GameSummarySerializer,
    HistorySerializer,
    RulesMetadataSerializer,
)
from games.engine import legal_actions, turn
from games.models import Game
from games.store.log import load_state
from tests.factories import PlayerFactory
from truc_api.serializers import output

pytestmark = pytest.mark.django_db


def _same(serializer_class: type[serializers.Serializer[Any]], read: Any, **kw: Any) -> None:
    made = output(serializer_class, read, **kw)
    assert json.dumps(made, sort_keys=True) == json.dumps(read, sort_keys=True)


def _played(preset: str, players: int, actions: int) -> tuple[Game, services.Acted]:
    """A game of ``players`` with ``actions`` random legal actions played through the service."""
    people = [PlayerFactory.create() for _ in range(players)]
    game = services.create_game(
        people[0], preset=preset, options={}, players=players, visibility="public"
    )
    for person in people[1:]:
        services.join_game(person, game.pk)
    rng = random.Random(7)
    acted = None
    for number in range(actions):
        game.refresh_from_db()
        state = load_state(game)
        seat = turn(state)
        assert seat is not None
        action = rng.choice(legal_actions(state, seat)).to_json()
        body = {**action, "expected_version": state.version}
        acted = services.act(people[seat], game.pk, body, f"key-{number}")
    assert acted is not None
    game.refresh_from_db()
    return game, acted


@pytest.mark.parametrize(("preset", "players"), [("valenciano", 2), ("argentino", 6)])
def test_output_serializers_make_the_games_read_models(preset: str, players: int) -> None:
    game, acted = _played(preset, players, 9)
    action = selectors.action_view(acted.game, acted.state, acted.rows, acted.seat)
    _same(ActionResultSerializer, json.loads(json.dumps(action)))
    for seat in (None, 0, 1):
        _same(GameSerializer, selectors.game_view(game, seat))
        _same(FeedPageSerializer, selectors.feed_page(game, seat, 0, 500))
    _same(GameSummarySerializer, [selectors.game_summary(game, 0, True)], many=True)
    _same(HistorySerializer, selectors.hand_history(game))


def test_output_serializers_make_a_finished_games_export() -> None:
    game, _ = _played("valenciano", 2, 3)
    services.resign(game.created_by, game.pk)
    game.refresh_from_db()
    for seat in (None, 0):
        _same(ExportSerializer, selectors.export(game, seat))


def test_output_serializers_make_the_rules_metadata() -> None:
    _same(RulesMetadataSerializer, contract.rules_metadata())
