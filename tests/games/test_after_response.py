"""What can wait is sent after the answer (truc_api/after_response.py): in a request, the work
that follows a committed action outside the database (its streams' notification, its tasks, its
webhooks) runs once the response is sent; outside a request (a Celery task, the sweep) at once,
as before; on rollback never."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.db import transaction

from games import timeouts
from streams import bus
from tests.games.test_timeouts import _overdue, _started
from truc_api import after_response


def test_after_response_outside_a_request_work_runs_at_once() -> None:
    done: list[str] = []
    after_response.defer(lambda: done.append("sent"))
    assert done == ["sent"]


def test_after_response_in_a_request_work_waits_for_its_end_in_order_and_a_failure_stops_none(
    caplog: Any,
) -> None:
    done: list[str] = []

    def fails() -> None:
        raise RuntimeError("the broker is down")

    request_started.send(sender=None)
    try:
        after_response.defer(lambda: done.append("first"))
        after_response.defer(fails)
        after_response.defer(lambda: done.append("last"))
        assert done == []
    finally:
        request_finished.send(sender=None)
    assert done == ["first", "last"]
    assert "after_response.failed" in caplog.text
    after_response.defer(lambda: done.append("outside"))  # the request is over: at once
    assert done == ["first", "last", "outside"]


@pytest.mark.django_db(transaction=True)
def test_after_response_on_commit_outside_a_request_runs_at_the_commit_and_never_on_rollback() -> (
    None
):
    done: list[str] = []
    with transaction.atomic():
        after_response.on_commit(lambda: done.append("committed"))
        assert done == []
    assert done == ["committed"]
    with pytest.raises(RuntimeError), transaction.atomic():
        after_response.on_commit(lambda: done.append("rolled back"))
        raise RuntimeError
    assert done == ["committed"]


@pytest.fixture
def held_publish(monkeypatch: Any, settings: Any) -> tuple[threading.Event, list[list[str]]]:
    """``bus.publish``, held while the event is clear (it starts set); the topics it published,
    in order."""
    settings.STREAMS_REDIS_URL = ""  # this process's channel
    release, published = threading.Event(), []
    release.set()
    publish = bus.publish

    def held(topics: list[str], offers: dict[str, bytes] | None = None) -> None:
        if release.wait(30):  # else never published: the test fails on ``published``
            published.append(list(topics))
            publish(topics, offers)

    monkeypatch.setattr(bus, "publish", held)
    return release, published


@pytest.mark.django_db(transaction=True)
def test_after_response_an_action_is_answered_before_its_notification_is_sent(
    live_server: Any, table: Any, held_publish: tuple[threading.Event, list[list[str]]]
) -> None:
    """Over a real WSGI server (Django's, in a thread of this process): the client has its 201
    while the move's notification is held; released, it is sent."""
    release, published = held_publish
    game_id, clients = table("valenciano", players=2)
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = clients[view["state"]["turn"]]
    action = mover.get(f"/api/games/{game_id}").json()["state"]["legal_actions"][0]
    published.clear()
    release.clear()
    request = urllib.request.Request(
        f"{live_server.url}/api/games/{game_id}/actions",
        data=json.dumps({**action, "expected_version": view["version"]}).encode(),
        method="POST",
        headers={
            "Authorization": f"Token {mover.token}",
            "Content-Type": "application/json",
            "Idempotency-Key": "after-response",
        },
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        assert response.status == 201
        assert json.loads(response.read())["version"] == view["version"] + 1
    assert published == []  # answered, and its notification not sent yet

    release.set()
    deadline = time.monotonic() + 10
    while not published and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bus.game_topic(game_id) in [topics[0] for topics in published]


@pytest.mark.django_db(transaction=True)
def test_after_response_outside_a_request_a_move_is_told_before_the_task_returns(
    held_publish: tuple[threading.Event, list[list[str]]],
) -> None:
    """A timeout applied by its Celery task (no request): its notification is sent at once,
    within the call, as before."""
    _, published = held_publish
    game = _overdue(_started("valenciano"))
    published.clear()
    assert timeouts.apply_timeout(game.pk, game.version) is True
    assert bus.game_topic(game.pk) in [topics[0] for topics in published]
