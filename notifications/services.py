"""Writes: subscribe, unsubscribe, replay a delivery."""

from __future__ import annotations

import copy
from typing import Any

from django.db import transaction

from notifications import selectors, signing, tasks
from notifications.errors import DeliveryPending
from notifications.models import Delivery, Subscription


def subscribe(player: Any, *, url: str, kinds: list[str], description: str = "") -> Subscription:
    """A new subscription with a fresh secret; the caller shows the secret this once."""
    return Subscription.objects.create(
        player=player,
        url=url,
        kinds=sorted(set(kinds)),
        description=description,
        secret=signing.new_secret(),
    )


def unsubscribe(player: Any, subscription_id: Any) -> None:
    """Its deliveries go with it; a task that finds its delivery gone does nothing.

    The deliveries are locked first: an attempt being recorded holds its delivery's row for the
    moment it takes (no lock is held while a receiver is called, notifications/sending.py), and
    the delete must see the attempt it adds, or its row would still point at the delivery.
    """
    with transaction.atomic():
        subscription = selectors.subscription(player, subscription_id)
        list(Delivery.objects.select_for_update().filter(subscription=subscription).values("pk"))
        subscription.delete()


def replay(player: Any, delivery_id: Any) -> Delivery:
    """Send a finished delivery's body again, as a new delivery with a new ``webhook-id``: the
    receiver dedupes by that id, and a replay is asked for precisely to be processed again."""
    with transaction.atomic():
        original = selectors.delivery(player, delivery_id)
        if original.status == Delivery.Status.PENDING:
            raise DeliveryPending()
        copied = Delivery.objects.create(
            subscription=original.subscription,
            kind=original.kind,
            game_id=original.game_id,
            version=original.version,
            payload=copy.deepcopy(original.payload),
            replay_of=original,
        )
        tasks.send_after_commit(copied.pk)
    return copied
