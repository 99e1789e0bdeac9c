"""Fairness between subscriptions, one attempt at a time: the concurrency limit holds a delivery
back, the breaker opens after failures in a row and closes on a success, and a deadline_near
past its deadline is never sent. (With a real worker: test_delivery_fairness.py.)"""

from __future__ import annotations

import time
from datetime import timedelta

from django.utils import timezone

from games.models import Game
from notifications import reminders, sending
from notifications.models import Delivery, Kind, Subscription
from notifications.services import notify_players
from tests.games.conftest import Client
from tests.notifications.conftest import subscribe
from tests.notifications.receiver import Receiver


def _challenged(make_client, receiver: Receiver, count: int) -> tuple[Client, list[Delivery]]:
    """A player subscribed at ``receiver``'s /hook, and ``count`` notices to him, due now."""
    client = make_client()
    subscribe(client, receiver, [Kind.CHALLENGE_RECEIVED])
    owner = Subscription.objects.get().player_id
    sent = [notify_players([owner], Kind.CHALLENGE_RECEIVED, {"n": n})[0] for n in range(count)]
    return client, sent


def test_breaker_opens_after_failures_in_a_row_and_holds_deliveries_back(
    make_client, receiver, settings
) -> None:
    settings.WEBHOOK_BREAKER_FAILURES = 2
    settings.WEBHOOK_BREAKER_SECONDS = 0.5
    receiver.refused.add("/hook")
    client, (first, second, third) = _challenged(make_client, receiver, 3)

    assert sending.send(str(first.pk)) == "pending"  # failed once, a retry scheduled
    assert sending.send(str(second.pk)) == "pending"  # twice in a row: the breaker opens
    assert sending.send(str(third.pk)) is None  # held back, not attempted

    subscription = Subscription.objects.get()
    third.refresh_from_db()
    assert subscription.consecutive_failures == 2
    assert subscription.paused_until is not None
    assert (third.held_back, third.attempt_count) == (True, 0)
    assert third.next_attempt_at == subscription.paused_until
    assert len(receiver.received) == 2
    shown = client.get("/api/webhooks/subscriptions").json()["results"][0]
    assert shown["consecutive_failures"] == 2
    assert shown["paused_until"] is not None

    receiver.refused.clear()
    time.sleep(0.6)  # the breaker's time runs out: one attempt tries the receiver again
    assert sending.send(str(third.pk)) == "delivered"

    subscription.refresh_from_db()
    assert (subscription.consecutive_failures, subscription.paused_until) == (0, None)


def test_concurrency_limit_holds_a_delivery_back_while_the_slots_are_taken(
    make_client, receiver, settings
) -> None:
    settings.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION = 1
    _, (first, second) = _challenged(make_client, receiver, 2)

    assert sending.claim(str(first.pk)) is not None  # in flight (its request not made here)
    assert sending.send(str(second.pk)) is None

    second.refresh_from_db()
    assert second.held_back
    assert second.attempt_count == 0
    assert receiver.received == []


def test_deadline_near_is_never_sent_after_the_deadline(table, receiver, settings) -> None:
    settings.REMINDER_LEAD_SECONDS = 600
    game_id, clients = table("valenciano", players=2, turn_seconds=3600)
    for number, client in enumerate(clients):
        subscribe(client, receiver, [Kind.DEADLINE_NEAR], path=f"/seat{number}")
    game = Game.objects.get(pk=game_id)
    game.deadline = timezone.now() + timedelta(seconds=1)
    game.save(update_fields=["deadline"])
    assert reminders.sweep() == 1
    [reminder] = Delivery.objects.all()
    assert reminder.expires_at == game.deadline

    time.sleep(1.1)  # the worker comes to it after the deadline
    assert sending.send(str(reminder.pk)) is None

    reminder.refresh_from_db()
    assert (reminder.status, reminder.attempt_count) == ("expired", 0)
    assert receiver.received == []
