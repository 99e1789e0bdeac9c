"""The deliveries list's filters. ``subscription`` takes any id, as the schema says (a uuid): the
deliveries listed are the caller's own already, so another player's subscription and a random id
both list none, and no answer tells which ids exist."""

from __future__ import annotations

import django_filters

from notifications.models import Delivery


class DeliveryFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter: no hints
    # Any id: the deliveries listed are the caller's already, so another's id lists none.
    subscription = django_filters.UUIDFilter(
        field_name="subscription_id", help_text="One of the caller's subscriptions."
    )

    class Meta:
        model = Delivery
        fields = ("subscription", "status", "kind")
