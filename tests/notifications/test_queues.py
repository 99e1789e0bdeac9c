"""Webhook deliveries go to a queue of their own: the worker that applies turn timeouts and moves
bots (the default queue) never runs one, so a slow receiver cannot delay them."""

from __future__ import annotations

import pytest
from django.conf import settings

from notifications.models import Delivery, Kind
from tests.celery_fixtures import eventually
from tests.notifications.conftest import act, mover, subscribe
from truc_api.celery import app


def test_the_default_queue_is_not_the_webhooks_queue() -> None:
    assert settings.WEBHOOK_QUEUE  # "" would send deliveries to the default queue
    assert app.conf.task_default_queue != settings.WEBHOOK_QUEUE


@pytest.mark.slow
def test_a_worker_of_the_default_queue_runs_no_delivery(celery_worker_thread, table) -> None:
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    subscribe(clients[1 - seat], None, [Kind.YOUR_TURN])
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(settings.WEBHOOK_QUEUE)

    act(clients[seat], game_id, action)  # the delivery's task is sent on commit

    with app.connection_for_write() as connection:
        waiting = connection.default_channel.client.llen(settings.WEBHOOK_QUEUE)
        connection.default_channel.queue_purge(settings.WEBHOOK_QUEUE)
    ran = eventually(
        lambda: [t for t in celery_worker_thread.done if t.name.startswith("notifications.")],
        timeout=1.0,
    )
    assert waiting == 1  # in its own queue, for the webhook worker
    assert ran == []
    assert Delivery.objects.get().status == Delivery.Status.PENDING
