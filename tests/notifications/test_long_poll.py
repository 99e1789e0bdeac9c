"""The live stream: ``GET /api/games/{id}/events/wait`` answers at once when there are events
after the cursor, waits for the next one otherwise, and redacts exactly as the feed does."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections

from games import services
from games.api.views import action_answer
from notifications import stream
from tests.notifications.conftest import mover

pytestmark = pytest.mark.django_db(transaction=True)  # the mover commits from another thread


@pytest.fixture(autouse=True)
def _poll_often(monkeypatch) -> None:
    monkeypatch.setattr(stream, "POLL_SECONDS", 0.05)


def _wait(client, game_id: str, after: int, timeout: float, **query: int):
    params = "&".join(f"{k}={v}" for k, v in {"after": after, "timeout": timeout, **query}.items())
    started = time.monotonic()
    response = client.get(f"/api/games/{game_id}/events/wait?{params}")
    return response, time.monotonic() - started


def test_wait_answers_at_once_when_events_exist(table) -> None:
    game_id, clients = table("valenciano", players=2)
    response, took = _wait(clients[0], game_id, after=0, timeout=30)
    assert response.status_code == 200
    assert [e["type"] for e in response.json()["events"]] == ["match_started", "hand_dealt"]
    assert took < 20  # not the timeout (generous: these machines are shared and noisy)
    for seat, client in enumerate(clients):  # the same redaction as the feed
        waited, _ = _wait(client, game_id, after=0, timeout=0)
        assert waited.json() == client.get(f"/api/games/{game_id}/events").json()
        [deal] = [event for event in waited.json()["events"] if event["type"] == "hand_dealt"]
        hands = deal["data"]["hands"]
        assert [cards is not None for cards in hands] == [i == seat for i in range(2)]


def test_wait_returns_when_an_event_arrives(table) -> None:
    game_id, clients = table("valenciano", players=2)
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    seat, action = mover(game_id, clients)

    def move_later() -> None:
        try:
            time.sleep(1.0)
            body = {k: v for k, v in action.items() if k != "expected_version"}
            services.act(
                clients[seat].player, game_id, {**action, **body}, "later", answer=action_answer
            )
        finally:
            connections.close_all()

    thread = threading.Thread(target=move_later)
    thread.start()
    response, took = _wait(clients[1 - seat], game_id, after=version, timeout=30)
    thread.join()

    assert response.status_code == 200
    events = response.json()["events"]
    assert events and events[0]["seq"] == version + 1
    assert events[0]["type"] in ("card_played", "envido_passed")
    assert 0.9 < took < 20


def test_wait_times_out_with_an_empty_list(table) -> None:
    game_id, clients = table("valenciano", players=2)
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    response, took = _wait(clients[0], game_id, after=version, timeout=1)
    assert response.status_code == 200
    assert response.json()["events"] == []
    assert 0.9 < took < 10


def test_wait_is_private_like_the_game_and_bounded(table, make_client) -> None:
    game_id, clients = table("valenciano", players=2, visibility="private")
    outsider = make_client()
    assert _wait(outsider, game_id, after=0, timeout=0)[0].status_code == 404
    too_long = _wait(clients[0], game_id, after=0, timeout=31)[0]
    assert too_long.status_code == 400
    assert too_long.json()["errors"][0]["field"] == "timeout"
    unknown = clients[0].get(f"/api/games/{game_id}/events/wait?since=3")
    assert unknown.status_code == 400
    ahead = _wait(clients[0], game_id, after=99, timeout=20)[0]
    assert ahead.status_code == 422  # well formed, but no log has reached it
    assert ahead.json()["code"] == "after_beyond_log"
    assert ahead.json()["current_version"] == 2


def test_wait_on_a_finished_game_answers_at_once(table) -> None:
    game_id, clients = table("valenciano", players=2)
    clients[0].post(f"/api/games/{game_id}/resign")
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    response, took = _wait(clients[1], game_id, after=version, timeout=30)
    assert (response.status_code, response.json()["events"]) == (200, [])
    assert took < 20


def test_wait_with_every_slot_taken_answers_at_once_and_frees_its_slot(table, monkeypatch) -> None:
    """Each wait holds a server thread: past LONG_POLL_SLOTS a wait is a plain poll, so waiting
    clients never take the threads every other request needs."""
    game_id, clients = table("valenciano", players=2)
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    slots = threading.BoundedSemaphore(1)
    monkeypatch.setattr(stream, "_slots", slots)

    assert slots.acquire(blocking=False)  # another client's wait holds the only slot
    busy, took = _wait(clients[0], game_id, after=version, timeout=5)
    slots.release()
    waited, waited_took = _wait(clients[0], game_id, after=version, timeout=1)

    assert (busy.status_code, busy.json()["events"]) == (200, [])
    assert took < 0.9  # answered at once, not after its 5 s
    assert busy["Retry-After"] == "1"  # with when to ask again, not at once
    assert "Retry-After" not in waited
    assert (waited.status_code, waited.json()["events"]) == (200, [])
    assert 0.9 < waited_took < 10  # with the slot free it waits its whole second
    assert slots.acquire(blocking=False)  # and gave the slot back
