"""Idempotency-Key: a retry gets the first answer and stores nothing; a key means one request only;
a request the server turns down stores nothing and claims no key."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import engine
from games.models import Game, GameEvent, IdempotencyRecord
from games.store.log import load_state
from games.tasks import purge_idempotency_records
from tests.games.conftest import Client

Table = Callable[..., tuple[str, list[Client]]]
PROBLEM = "application/problem+json"
Attempt = tuple[int, dict[str, Any], int]  # who acts, what, at which version


def stored(game_id: str) -> tuple[int, int, int]:
    """What a request could have written: the version, the events, the idempotency records."""
    return (
        Game.objects.get(pk=game_id).version,
        GameEvent.objects.filter(game_id=game_id).count(),
        IdempotencyRecord.objects.filter(game_id=game_id).count(),
    )


def on_turn(game_id: str) -> tuple[int, list[dict[str, Any]], int]:
    """The seat on turn, its legal actions and the version they were read at."""
    state = load_state(Game.objects.get(pk=game_id))
    seat = engine.turn(state)
    assert seat is not None
    return seat, [action.to_json() for action in engine.legal_actions(state, seat)], state.version


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.json()
    assert response["Content-Type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    return body


def test_idempotency_retry_replays_the_first_answer_and_stores_nothing(table: Table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    first = clients[seat].act(game_id, actions[0], version, key="retry-me")
    assert first.status_code == 201, first.json()
    assert "Idempotent-Replayed" not in first
    after_first = stored(game_id)

    retry = clients[seat].act(game_id, actions[0], version, key="retry-me")

    assert (retry.status_code, retry.json()) == (201, first.json())
    assert retry["Idempotent-Replayed"] == "true"
    assert stored(game_id) == after_first


def test_idempotency_retry_after_the_game_moved_on_still_replays(table: Table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    first = clients[seat].act(game_id, actions[0], version, key="late-retry")
    assert first.status_code == 201, first.json()
    other, others, now = on_turn(game_id)
    assert clients[other].act(game_id, others[0], now).status_code == 201
    moved_on = stored(game_id)

    retry = clients[seat].act(game_id, actions[0], version, key="late-retry")

    assert (retry.status_code, retry.json()) == (201, first.json())
    assert retry["Idempotent-Replayed"] == "true"
    assert stored(game_id) == moved_on


@pytest.mark.parametrize(
    "spelling", [str.upper, lambda id: id.replace("-", "")], ids=["upper-case", "no-hyphens"]
)
def test_idempotency_retry_naming_the_game_another_way_replays(
    table: Table, spelling: Callable[[str], str]
) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    first = clients[seat].act(game_id, actions[0], version, key="same-game")
    assert first.status_code == 201, first.json()
    after_first = stored(game_id)

    retry = clients[seat].act(spelling(game_id), actions[0], version, key="same-game")

    assert (retry.status_code, retry.json()) == (201, first.json())
    assert retry["Idempotent-Replayed"] == "true"
    assert stored(game_id) == after_first


@pytest.mark.parametrize("change", ["action", "expected_version"])
def test_idempotency_same_key_with_another_body_is_a_conflict(table: Table, change: str) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    assert clients[seat].act(game_id, actions[0], version, key="once").status_code == 201
    before = stored(game_id)
    # Another action at the old version, or the same one at the version that is current now.
    action, at = (actions[1], version) if change == "action" else (actions[0], before[0])

    reused = clients[seat].act(game_id, action, at, key="once")

    assert_problem(reused, 409, "idempotency_conflict")
    assert stored(game_id) == before


def test_idempotency_same_key_for_a_legal_new_action_is_a_conflict(table: Table) -> None:
    """The key is looked up only when a request cannot go through: a new, legal action under a
    used key is caught by the key's uniqueness, and rolled back whole."""
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    assert clients[seat].act(game_id, actions[0], version, key="used").status_code == 201
    while (turn := on_turn(game_id))[0] != seat:  # until the same player is on turn again
        assert clients[turn[0]].act(game_id, turn[1][0], turn[2]).status_code == 201
    before = stored(game_id)
    _, now_legal, now = on_turn(game_id)

    reused = clients[seat].act(game_id, now_legal[0], now, key="used")

    assert_problem(reused, 409, "idempotency_conflict")
    assert stored(game_id) == before


def test_idempotency_same_key_for_another_game_is_a_conflict(table: Table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    player, partner = clients[seat], clients[1 - seat]
    created = player.post("/api/games", {"preset": "valenciano", "players": 2})
    other_id = created.json()["id"]
    assert partner.post(f"/api/games/{other_id}/join", {}).status_code == 200
    assert player.act(game_id, actions[0], version, key="one-game-only").status_code == 201
    before = stored(other_id)

    reused = player.act(other_id, actions[0], before[0], key="one-game-only")

    assert_problem(reused, 409, "idempotency_conflict")
    assert stored(other_id) == before


@pytest.mark.parametrize(
    "key", [None, "", "   ", "k" * 256], ids=["missing", "empty", "blank", "256-characters"]
)
def test_idempotency_key_missing_or_too_long_is_an_invalid_request(
    table: Table, key: str | None
) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    before = stored(game_id)
    headers = {} if key is None else {"Idempotency-Key": key}

    response = clients[seat].post(
        f"/api/games/{game_id}/actions", {**actions[0], "expected_version": version}, **headers
    )

    body = assert_problem(response, 400, "invalid_request")
    assert [error["field"] for error in body["errors"]] == ["Idempotency-Key"]
    assert stored(game_id) == before


def test_idempotency_key_of_255_characters_is_accepted(table: Table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    assert clients[seat].act(game_id, actions[0], version, key="k" * 255).status_code == 201


def _stale(seat: int, actions: list[dict[str, Any]], version: int, held: Any) -> Attempt:
    return seat, actions[0], version - 1


def _ahead(seat: int, actions: list[dict[str, Any]], version: int, held: Any) -> Attempt:
    return seat, actions[0], version + 1


def _off_turn(seat: int, actions: list[dict[str, Any]], version: int, held: Any) -> Attempt:
    return 1 - seat, {"type": "play", "card": held[1 - seat][0]}, version


def _card_not_in_hand(seat: int, actions: list[dict[str, Any]], version: int, held: Any) -> Attempt:
    return seat, {"type": "play", "card": held[1 - seat][0]}, version


REJECTED = {
    "stale-version": (_stale, 409, "stale_version"),
    "version-from-the-future": (_ahead, 409, "stale_version"),
    "not-your-turn": (_off_turn, 422, "not_your_turn"),
    "card-not-in-hand": (_card_not_in_hand, 422, "card_not_in_hand"),
}


@pytest.mark.parametrize(("attempt", "status", "code"), REJECTED.values(), ids=REJECTED.keys())
def test_idempotency_rejected_action_stores_nothing_and_claims_no_key(
    table: Table, attempt: Callable[..., Attempt], status: int, code: str
) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    held = load_state(Game.objects.get(pk=game_id)).hand.held
    actor, action, at = attempt(seat, actions, version, held)
    before = stored(game_id)

    rejected = clients[actor].act(game_id, action, at, key="turned-down")

    body = assert_problem(rejected, status, code)
    assert body.get("current_version", version) == version
    assert stored(game_id) == before
    # The key was not spent: the same key now carries a legal action, which is new, not a replay.
    if actor != seat:
        assert clients[seat].act(game_id, actions[0], version).status_code == 201
    now_on_turn, now_legal, now = on_turn(game_id)
    assert now_on_turn == actor
    accepted = clients[actor].act(game_id, now_legal[0], now, key="turned-down")
    assert accepted.status_code == 201, accepted.json()
    assert "Idempotent-Replayed" not in accepted


def test_idempotency_records_are_purged_after_the_hours_kept(table: Table, settings) -> None:
    """IDEMPOTENCY_HOURS (settings.py): the beat's purge deletes older answers, keeps the rest;
    a retry with a purged key is a new request, and the game has moved on."""
    game_id, clients = table("valenciano", players=2)
    seat, actions, version = on_turn(game_id)
    first = (seat, actions[0], version)
    assert clients[seat].act(game_id, actions[0], version, key="old").status_code == 201
    seat, actions, version = on_turn(game_id)
    assert clients[seat].act(game_id, actions[0], version, key="new").status_code == 201
    hours = settings.IDEMPOTENCY_HOURS
    IdempotencyRecord.objects.filter(key="old").update(
        created_at=timezone.now() - timedelta(hours=hours, seconds=1)
    )

    assert purge_idempotency_records.apply().get() == 1  # the task, run here

    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]
    seat, action, version = first
    assert_problem(clients[seat].act(game_id, action, version, key="old"), 409, "stale_version")
