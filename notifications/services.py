"""Writes: subscribe, unsubscribe, replay a delivery."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.models import GameId
from notifications import selectors, sending, signing
from notifications.errors import DeliveryPending
from notifications.models import Delivery, Kind, Subscription
from players.models import Player


def subscribe(player: Player, *, url: str, kinds: list[str], description: str = "") -> Subscription:
    """A new subscription with a fresh secret; the caller shows the secret this once."""
    return Subscription.objects.create(
        player=player,
        url=url,
        kinds=sorted(set(kinds)),
        description=description,
        secret=signing.new_secret(),
    )


def unsubscribe(player: Player, subscription_id: uuid.UUID | str) -> None:
    """Its deliveries go with it; a task that finds its delivery gone does nothing.

    The deliveries are locked first: an attempt being recorded holds its delivery's row for the
    moment it takes (no lock is held while a receiver is called, notifications/sending.py), and
    the delete must see the attempt it adds, or its row would still point at the delivery.
    """
    with transaction.atomic():
        subscription = selectors.subscription(player, subscription_id)
        list(Delivery.objects.select_for_update().filter(subscription=subscription).values("pk"))
        subscription.delete()


def replay(player: Player, delivery_id: uuid.UUID | str) -> Delivery:
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
        sending.send_after_commit(copied.pk)
    return copied


def notify_players(
    player_ids: Iterable[int], kind: Kind, data: dict[str, Any], *, game_id: GameId | None = None
) -> list[Delivery]:
    """A lobby notice (a match found, a challenge...) to the subscriptions of these players that
    want ``kind``, written in the caller's transaction and sent after it commits. ``data`` holds
    ids and settings only: a notice never carries a name or anything of a game's hidden state."""
    wanted = [
        subscription
        for subscription in Subscription.objects.filter(player_id__in=set(player_ids))
        if kind in subscription.kinds
    ]
    body = {"type": kind, "timestamp": timezone.now().isoformat(), "data": data}
    deliveries = Delivery.objects.bulk_create(
        Delivery(subscription=subscription, kind=kind, game_id=game_id, version=0, payload=body)
        for subscription in wanted
    )
    for delivery in deliveries:
        sending.send_after_commit(delivery.pk)
    return deliveries
