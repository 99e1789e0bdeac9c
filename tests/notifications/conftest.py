"""Fixtures for the notifications tests: the games' HTTP clients, a local receiver, subscribing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.models import Seat
from games.store.log import load_state
from notifications.models import Delivery
from tests.games.conftest import Client, make_client, table  # noqa: F401  (fixtures)
from tests.notifications.receiver import Receiver


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    """The receiver listens on 127.0.0.1, which production refuses."""
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    local = Receiver()
    yield local
    local.close()


def subscribe(
    client: Client, receiver: Receiver | None, kinds: list[str], path: str = "/hook"
) -> dict[str, Any]:
    """Subscribe ``client`` (at ``receiver``'s ``path``, which then expects its secret)."""
    url = receiver.url(path) if receiver else f"http://127.0.0.1:9{path}"
    response = client.post("/api/webhooks/subscriptions", {"url": url, "kinds": kinds})
    assert response.status_code == 201, response.json()
    created = response.json()
    if receiver:
        receiver.secrets[path] = created["secret"]
    return created


def mover(
    game_id: str, clients: list[Client], types: tuple[str, ...] = ("play", "paso")
) -> tuple[int, dict[str, Any]]:
    """A seat that may act now, and its first legal action of ``types`` (by default one that
    hands the turn over: a card or a pass), from that seat's own view."""
    for seat, client in enumerate(clients):
        view = client.get(f"/api/games/{game_id}").json()
        actions = [a for a in view["state"]["legal_actions"] if a["type"] in types]
        if actions:
            return seat, {**actions[0], "expected_version": view["version"]}
    raise AssertionError(f"nobody may {types} now")


def act(client: Client, game_id: str, action: dict[str, Any]) -> dict[str, Any]:
    body = {key: value for key, value in action.items() if key != "expected_version"}
    response = client.act(game_id, body, action["expected_version"])
    assert response.status_code == 201, response.json()
    return response.json()


def deliveries_of(subscription: dict[str, Any], kind: str | None = None) -> list[Delivery]:
    found = Delivery.objects.filter(subscription_id=subscription["id"]).order_by("created_at")
    return list(found.filter(kind=kind) if kind else found)


def hidden_cards(game_id: str, seat: int) -> set[str]:
    """The cards ``seat`` may not see now: the other seats' unplayed ones."""
    state = load_state(Seat.objects.get(game_id=game_id, number=seat).game)
    assert state.hand is not None
    return {card for other, held in enumerate(state.hand.held) if other != seat for card in held}


def strings_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(strings_in(item) for item in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(item) for item in value)) if value else set()
    return {value} if isinstance(value, str) else set()
