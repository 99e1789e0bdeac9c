"""The deliveries list's filters. ``subscription`` takes only the caller's own subscriptions:
with every subscription to choose from, another player's id answered 200 (empty) where a random
one answered 400, which told anyone which ids exist."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet

from notifications import selectors
from notifications.models import Delivery, Subscription


def _own_subscriptions(request: Any) -> QuerySet[Subscription]:
    if request is None or not request.user.is_authenticated:  # schema generation has no user
        return Subscription.objects.none()
    return selectors.subscriptions(request.user)


class DeliveryFilter(django_filters.FilterSet):
    subscription = django_filters.ModelChoiceFilter(
        queryset=_own_subscriptions, help_text="One of the caller's subscriptions."
    )

    class Meta:
        model = Delivery
        fields = ("subscription", "status", "kind")
