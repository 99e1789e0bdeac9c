"""Webhooks end to end with real parts: a Celery worker process on the real Redis broker and
PostgreSQL, and a local receiver that checks signatures and fails on purpose.

The worker is a separate process (tests/games/test_timeout_worker.py's), so that killing it is a
real SIGKILL: the attempts it held die with it, unacknowledged, as in production. Retries have no
task of their own: the delivery sweep, which beat sends every WEBHOOK_SWEEP_SECONDS, sends them
when due (``beat`` stands in for it).
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest
from django.conf import settings

from notifications import sending, signing
from notifications.models import Delivery, Kind
from notifications.tasks import send_deliveries, send_delivery, sweep_deliveries
from tests.games.test_timeout_worker import _wait, beat, worker
from tests.notifications.conftest import (
    act,
    hidden_cards,
    mover,
    strings_in,
    subscribe,
)
from truc_api.celery import app

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),  # the worker reads what the test commits
    pytest.mark.skipif(
        settings.CELERY_BROKER_URL.startswith("memory://"), reason="needs a real broker (Redis)"
    ),
]


@pytest.fixture
def queue(settings, monkeypatch):
    """A queue of this test's own, for the sends from here and from the worker alike; the worker
    process reads its settings from the environment."""
    name = f"test-webhooks-{uuid.uuid4().hex[:8]}"
    settings.WEBHOOK_QUEUE = name
    settings.WEBHOOK_SWEEP_GRACE_SECONDS = 0
    environment = {
        "WEBHOOK_QUEUE": name,
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
        "WEBHOOK_RETRY_DELAYS": "0.3,0.3,0.3",
        "WEBHOOK_TIMEOUT_SECONDS": "3",
    }
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    yield name
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(name)


def _all_done() -> bool:
    return not Delivery.objects.filter(status=Delivery.Status.PENDING).exists()


def _codes(delivery: Delivery) -> list[int | None]:
    return [attempt.status_code for attempt in delivery.attempt_log.all()]


def test_webhook_turn_hand_over_retried_until_delivered(table, receiver, queue) -> None:
    game_id, clients = table("valenciano", players=2)
    subscriptions = [
        subscribe(client, receiver, [Kind.YOUR_TURN], path=f"/seat{seat}")
        for seat, client in enumerate(clients)
    ]
    receiver.fail_first = 2
    seat, action = mover(game_id, clients)
    other = 1 - seat

    with worker(queue), beat(0.3, sweep_deliveries, queue=queue):
        act(clients[seat], game_id, action)
        _wait(_all_done, "the delivery")

    [delivery] = Delivery.objects.all()
    assert (str(delivery.subscription_id), delivery.kind) == (
        subscriptions[other]["id"],
        "your_turn",
    )
    assert (delivery.status, _codes(delivery)) == ("delivered", [500, 500, 200])
    requests = receiver.received
    assert [request.path for request in requests] == [f"/seat{other}"] * 3
    assert {request.webhook_id for request in requests} == {str(delivery.pk)}
    assert {request.body for request in requests} == {sending.body_of(delivery)}
    [accepted] = receiver.accepted()
    assert accepted.payload["type"] == "your_turn"
    assert accepted.payload["data"]["seat"] == other
    assert not strings_in(accepted.payload) & hidden_cards(game_id, other)


def test_webhook_no_duplicates_across_a_worker_killed_in_backoff(
    table, receiver, queue, monkeypatch
) -> None:
    monkeypatch.setenv("WEBHOOK_RETRY_DELAYS", "5,5,5")  # long enough to kill the worker in it
    game_id, clients = table("valenciano", players=2)
    for seat, client in enumerate(clients):
        subscribe(client, receiver, [Kind.YOUR_TURN, Kind.HAND_ENDED], path=f"/seat{seat}")
    seat, fold = mover(game_id, clients, ("mazo",))
    receiver.fail_first_of_each = 1

    with worker(queue) as first:
        act(clients[seat], game_id, fold)  # the hand ends, the next is dealt
        ids = [str(pk) for pk in Delivery.objects.values_list("pk", flat=True)]
        assert len(ids) >= 2
        _wait(lambda: sum(r.answered == 500 for r in receiver.received) == len(ids), "attempts")
        _wait(lambda: Delivery.objects.filter(attempt_count=1).count() == len(ids), "backoff")
        first.kill()  # SIGKILL: the retries are due in the database, the sweep's to send
        first.wait(10)
    assert not _all_done()

    with worker(queue):
        # The sweep finds the lost retries; copies of the task race it, and none may send twice.
        end = time.monotonic() + 40
        while not _all_done() and time.monotonic() < end:
            sending.sweep()
            for delivery_id in ids:
                send_delivery.apply_async(args=(delivery_id,), queue=queue)
            time.sleep(0.25)
        assert _all_done()
        time.sleep(1)  # let the racing copies finish: each must find nothing to do

    assert receiver.accepted_ids() == Counter({delivery_id: 1 for delivery_id in ids})
    for delivery in Delivery.objects.all():
        assert (delivery.status, _codes(delivery)) == ("delivered", [500, 200])
    for request in receiver.received:
        owner = int(request.path.removeprefix("/seat"))
        assert request.payload["data"]["seat"] == owner
        assert not strings_in(request.payload) & hidden_cards(game_id, owner)


def test_webhook_deliveries_saved_together_go_in_batches_each_sent_once(
    table, receiver, queue, monkeypatch
) -> None:
    monkeypatch.setattr(sending, "DELIVERIES_A_TASK", 2)  # the sender's side batches
    game_id, clients = table("valenciano", players=2)
    for seat, client in enumerate(clients):
        subscribe(client, receiver, [Kind.YOUR_TURN, Kind.HAND_ENDED], path=f"/seat{seat}")
    seat, fold = mover(game_id, clients, ("mazo",))
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)

    act(clients[seat], game_id, fold)  # the hand ends, the next is dealt: several deliveries

    ids = [str(pk) for pk in Delivery.objects.values_list("pk", flat=True)]
    assert len(ids) >= 3
    with app.connection_for_write() as connection:
        messages = connection.default_channel.client.llen(queue)
    each = Counter(Delivery.objects.values_list("subscription_id", flat=True)).values()
    # one message a batch of one subscription's, not one a delivery
    assert messages == sum((count + 1) // 2 for count in each) < len(ids)
    with worker(queue):
        send_deliveries.apply_async(args=(ids,), queue=queue)  # a copy of them all, racing
        _wait(_all_done, "the deliveries")
        time.sleep(1)  # let the copy finish: it must find nothing left to send

    assert receiver.accepted_ids() == Counter({delivery_id: 1 for delivery_id in ids})
    for request in receiver.received:
        owner = int(request.path.removeprefix("/seat"))
        assert request.payload["data"]["seat"] == owner


def test_webhook_replay_sends_the_body_again_under_a_new_id(table, receiver, queue) -> None:
    game_id, clients = table("valenciano", players=2)
    for seat, client in enumerate(clients):
        subscribe(client, receiver, [Kind.YOUR_TURN], path=f"/seat{seat}")
    seat, action = mover(game_id, clients)
    owner = clients[1 - seat]

    with worker(queue):
        act(clients[seat], game_id, action)
        _wait(_all_done, "the delivery")
        [original] = Delivery.objects.all()
        response = owner.post(f"/api/webhooks/deliveries/{original.pk}/replay")
        assert response.status_code == 202, response.json()
        _wait(_all_done, "the replay")

    first, again = receiver.accepted()
    assert first.webhook_id == str(original.pk)
    assert again.webhook_id == response.json()["id"] != first.webhook_id
    assert again.body == first.body
    assert Delivery.objects.get(pk=again.webhook_id).replay_of_id == original.pk


def test_webhook_wrong_secret_is_rejected_until_the_delivery_fails(table, receiver, queue) -> None:
    game_id, clients = table("valenciano", players=2)
    for seat, client in enumerate(clients):
        subscribe(client, receiver, [Kind.YOUR_TURN], path=f"/seat{seat}")
        receiver.secrets[f"/seat{seat}"] = signing.new_secret()  # not the one we sign with
    seat, action = mover(game_id, clients)

    with worker(queue), beat(0.3, sweep_deliveries, queue=queue):
        act(clients[seat], game_id, action)
        _wait(_all_done, "the delivery to fail")

    [delivery] = Delivery.objects.all()
    assert (delivery.status, _codes(delivery)) == ("failed", [401] * 4)
    assert receiver.accepted() == []
    assert len(receiver.received) == 4
