"""Fixtures for the game server tests: players with tokens, and games driven through HTTP."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from games.store import sql
from tests.factories import PlayerFactory


class Client:
    """One player's HTTP client: the real URL configuration, a real knox token."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.http = APIClient()
        _, self.token = AuthToken.objects.create(player)
        self.http.credentials(HTTP_AUTHORIZATION=f"Token {self.token}")

    def get(self, path: str, **headers: str) -> Any:
        return self.http.get(path, headers=headers)

    def post(self, path: str, data: Any = None, **headers: str) -> Any:
        return self.http.post(path, data, format="json", headers=headers)

    def act(
        self, game_id: str, action: dict[str, Any], version: int, key: str | None = None
    ) -> Any:
        body = {**action, "expected_version": version}
        return self.post(
            f"/api/games/{game_id}/actions", body, **{"Idempotency-Key": key or str(uuid.uuid4())}
        )


@pytest.fixture
def make_client(db: None) -> Callable[..., Client]:
    def make(**fields: Any) -> Client:
        return Client(PlayerFactory.create(**fields))

    return make


@pytest.fixture
def table(make_client: Callable[..., Client]) -> Callable[..., tuple[str, list[Client]]]:
    """A started game: ``table("valenciano", players=2)`` → (game id, clients by seat)."""

    def start(preset: str, players: int = 2, **create: Any) -> tuple[str, list[Client]]:
        clients = [make_client() for _ in range(players)]
        response = clients[0].post("/api/games", {"preset": preset, "players": players, **create})
        assert response.status_code == 201, response.json()
        game = response.json()
        for seat, client in enumerate(clients[1:], start=1):
            joined = client.post(f"/api/games/{game['id']}/join", {"seat": seat, **_code(game)})
            assert joined.status_code == 200, joined.json()
        return game["id"], clients

    return start


def _code(game: dict[str, Any]) -> dict[str, str]:
    return {"join_code": game["join_code"]} if game["visibility"] == "private" else {}


def play_out(game_id: str, clients: list[Client], rng: random.Random, limit: int = 2000) -> Any:
    """Play random legal actions through HTTP until the match ends; the final view of seat 0."""
    for _ in range(limit):
        views = [client.get(f"/api/games/{game_id}").json() for client in clients]
        if views[0]["status"] != "active":
            return views[0]
        movers = [seat for seat, view in enumerate(views) if view["state"]["legal_actions"]]
        seat = rng.choice(movers)
        action = rng.choice(views[seat]["state"]["legal_actions"])
        response = clients[seat].act(game_id, action, views[seat]["version"])
        assert response.status_code == 201, response.json()
    raise AssertionError("the match did not end")


@pytest.fixture(params=["sql", "orm"])
def way(request: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """The event store's written-out statements (PostgreSQL's), or the ORM's way, which SQLite
    (``make run``'s default) takes: the same test on PostgreSQL through each."""
    if request.param == "orm":
        monkeypatch.setattr(sql, "postgresql", lambda: False)
    return str(request.param)
