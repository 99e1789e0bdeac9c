"""Reads: a player sees only his own subscriptions and their deliveries."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from notifications.errors import DeliveryNotFound, SubscriptionNotFound
from notifications.models import Delivery, Subscription
from players.models import Player


def subscriptions(player: Player) -> QuerySet[Subscription]:
    return Subscription.objects.filter(player=player).order_by("created_at")


def subscription(player: Player, subscription_id: uuid.UUID | str) -> Subscription:
    try:
        return subscriptions(player).get(pk=subscription_id)
    except (Subscription.DoesNotExist, ValueError, ValidationError):
        raise SubscriptionNotFound() from None


def deliveries(player: Player) -> QuerySet[Delivery]:
    return (
        Delivery.objects.filter(subscription__player=player)
        .prefetch_related("attempt_log")
        .order_by("-created_at", "pk")
    )


def delivery(player: Player, delivery_id: uuid.UUID | str) -> Delivery:
    try:
        return deliveries(player).get(pk=delivery_id)
    except (Delivery.DoesNotExist, ValueError, ValidationError):
        raise DeliveryNotFound() from None
