"""``GET /api/games/{id}/events/wait``, the long poll, over the streams' notification path: it
answers at once when there are events after the cursor, redacts exactly as the feed does, and on
the ASGI server waits for the next event without a thread (woken by the notification)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from tests.streams.conftest import call
from tests.streams.test_game_stream import move


def _wait(client, game_id: str, after: int, timeout: float, **query: int):
    params = "&".join(f"{k}={v}" for k, v in {"after": after, "timeout": timeout, **query}.items())
    started = time.monotonic()
    response = client.get(f"/api/games/{game_id}/events/wait?{params}")
    return response, time.monotonic() - started


@pytest.mark.django_db
def test_wait_answers_at_once_when_events_exist_redacted_as_the_feed(table) -> None:
    game_id, clients = table("valenciano", players=2)
    response, _ = _wait(clients[0], game_id, after=0, timeout=30)
    assert response.status_code == 200
    assert [e["type"] for e in response.json()["events"]] == ["match_started", "hand_dealt"]
    assert "Retry-After" not in response
    for seat, client in enumerate(clients):
        waited, _ = _wait(client, game_id, after=0, timeout=0)
        assert waited.json() == client.get(f"/api/games/{game_id}/events").json()
        [deal] = [event for event in waited.json()["events"] if event["type"] == "hand_dealt"]
        assert [cards is not None for cards in deal["data"]["hands"]] == [i == seat for i in (0, 1)]


@pytest.mark.django_db
def test_wait_is_private_like_the_game_and_bounded(table, make_client, client) -> None:
    game_id, clients = table("valenciano", players=2, visibility="private")
    assert _wait(make_client(), game_id, after=0, timeout=0)[0].status_code == 404
    assert _wait(client, game_id, after=0, timeout=0)[0].status_code == 401
    too_long = _wait(clients[0], game_id, after=0, timeout=31)[0]
    assert too_long.status_code == 400
    assert too_long.json()["errors"][0]["field"] == "timeout"
    assert clients[0].get(f"/api/games/{game_id}/events/wait?since=3").status_code == 400
    ahead = _wait(clients[0], game_id, after=99, timeout=20)[0]
    assert ahead.status_code == 422  # well formed, but no log has reached it
    assert (ahead.json()["code"], ahead.json()["current_version"]) == ("after_beyond_log", 2)


@pytest.mark.django_db
def test_wait_through_wsgi_answers_at_once_and_says_when_to_ask_again(table) -> None:
    """A WSGI server would hold a thread to wait: it does not, and says so."""
    game_id, clients = table("valenciano", players=2)
    response, took = _wait(clients[0], game_id, after=2, timeout=20)
    assert (response.status_code, response.json()["events"]) == (200, [])
    assert response["Retry-After"] == "1"
    assert took < 10


@pytest.mark.django_db
def test_wait_on_a_finished_game_answers_at_once(table) -> None:
    game_id, clients = table("valenciano", players=2)
    clients[0].post(f"/api/games/{game_id}/resign")
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    response, _ = _wait(clients[1], game_id, after=version, timeout=30)
    assert (response.status_code, response.json()["events"]) == (200, [])
    assert "Retry-After" not in response


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_wait_on_the_streams_server_returns_when_an_event_arrives(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    url = f"{other.url}/api/games/{game_id}/events/wait?after=2&timeout=1"
    started = time.monotonic()
    status, empty = call("GET", url, clients[0].token)
    assert (status, empty["events"]) == (200, [])
    assert 0.9 < time.monotonic() - started < 10  # it waited its second

    later = threading.Timer(1.0, move, args=(one, game_id, clients, random.Random(3)))
    later.start()
    started = time.monotonic()
    status, events = call("GET", url.replace("timeout=1", "timeout=20"), clients[0].token)
    took = time.monotonic() - started
    later.join()
    assert status == 200 and events["events"][0]["seq"] == 3
    assert 0.9 < took < 10  # woken by the move, long before its 20 s
