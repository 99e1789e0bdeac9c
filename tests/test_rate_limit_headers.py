"""The throttles' counts in every answer they counted: `RateLimit-Policy` and `RateLimit`
(draft-ietf-httpapi-ratelimit-headers), and the actions' budget apart from the player's."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from tests.factories import PASSWORD, PlayerFactory

pytestmark = pytest.mark.django_db


def items(field: str) -> dict[str, dict[str, int]]:
    """A structured field's list: `"user";q=600;w=60, ...` → {"user": {"q": 600, "w": 60}}."""
    found = {}
    for item in field.split(", "):
        name, *params = item.split(";")
        found[name.strip('"')] = {key: int(value) for key, value in (p.split("=") for p in params)}
    return found


@pytest.fixture
def player_client():
    player = PlayerFactory.create()
    client = APIClient()
    login = client.post(
        "/api/auth/login", {"username": player.username, "password": PASSWORD}, format="json"
    )
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['token']}")
    return client


def test_an_answer_names_its_budget_and_what_is_left(player_client, settings) -> None:
    first = player_client.get("/api/games/mine")
    assert items(first["RateLimit-Policy"]) == {"user": {"q": 600, "w": 60}}
    assert items(first["RateLimit"])["user"]["r"] == 599
    second = player_client.get("/api/games/mine")
    assert items(second["RateLimit"])["user"]["r"] == 598
    assert re.fullmatch(r'"user";r=\d+;t=\d+', second["RateLimit"])


def test_an_anonymous_answer_and_a_refusal_carry_them_too(monkeypatch) -> None:
    from truc_api.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "2/min"})
    client = APIClient()
    answers = [client.get("/api/rules") for _ in range(3)]
    assert [items(a["RateLimit"])["anon"]["r"] for a in answers] == [1, 0, 0]
    refused = answers[2]
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    # DRF's user throttle counts an anonymous client by address too: both budgets are named.
    assert items(refused["RateLimit-Policy"])["anon"] == {"q": 2, "w": 60}
    assert items(refused["RateLimit"])["anon"]["t"] >= int(refused["Retry-After"])


def test_actions_count_on_their_own_budget_not_the_players(player_client, monkeypatch) -> None:
    from truc_api.throttling import ScopedRateThrottle, UserRateThrottle

    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "1/min"})
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"actions": "100/min"})
    game = player_client.post(
        "/api/games",
        {"preset": "valenciano", "players": 2, "bots": [{"seat": 1, "level": "random"}]},
        format="json",
    )
    assert game.status_code == 201  # the player's one request of the minute
    assert player_client.get("/api/games/mine").status_code == 429
    action = player_client.post(
        f"/api/games/{game.json()['id']}/actions",
        {"type": "mazo", "expected_version": 0},
        format="json",
        headers={"Idempotency-Key": "k1"},
    )
    assert action.status_code != 429, action.content  # a rule may refuse it; no throttle does
    assert set(items(action["RateLimit-Policy"])) == {"actions"}
