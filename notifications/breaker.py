"""Fairness between subscriptions: a concurrency limit each, and a breaker for a receiver that
keeps failing, so that one slow or broken receiver holds a few of the webhook worker's threads
at most and never delays another subscriber's deliveries.

- **The limit**: at most ``WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION`` attempts of one subscription in
  flight at once (a claimed delivery, ``Delivery.claimed_until``). A delivery over the limit is
  held back (``Delivery.held_back``), not retried: the attempt that ends first sends it on.
- **The breaker**: ``WEBHOOK_BREAKER_FAILURES`` failed attempts in a row (whatever the delivery)
  open it for ``WEBHOOK_BREAKER_SECONDS``: meanwhile no attempt is made, and a due delivery is
  held back until it closes, its attempts not counted. Then one attempt tries the receiver: a
  success closes the breaker (and sends what waited), a failure opens it again.

Both are decided under the subscription's row lock, taken after the delivery's (the order of
``sending.claim`` and ``sending.send``'s record), so two workers never both take the last slot.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings

from notifications.models import Delivery, Subscription


def locked(subscription_id: uuid.UUID | str) -> Subscription:
    return Subscription.objects.select_for_update().get(pk=subscription_id)


def in_flight(subscription: Subscription, now: datetime) -> int:
    """Attempts of ``subscription`` under way (their claim has not run out)."""
    return Delivery.objects.filter(
        subscription=subscription, status=Delivery.Status.PENDING, claimed_until__gt=now
    ).count()


def held_until(subscription: Subscription, now: datetime) -> datetime | None:
    """When an attempt at one of the (locked) ``subscription``'s deliveries may be made, if not
    now: the breaker's end while it is open, or, while every slot is taken, the latest a slot
    frees (the ending attempt sends the held delivery on sooner, ``release``)."""
    if subscription.paused_until is not None and subscription.paused_until > now:
        return subscription.paused_until
    if in_flight(subscription, now) >= settings.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION:
        return now + timedelta(seconds=attempt_seconds())
    return None


def record(subscription: Subscription, delivered: bool, now: datetime) -> None:
    """Count an attempt's outcome on the (locked) subscription: a success closes the breaker,
    the failure that makes ``WEBHOOK_BREAKER_FAILURES`` in a row opens it (again)."""
    if delivered:
        subscription.consecutive_failures = 0
        subscription.paused_until = None
    else:
        subscription.consecutive_failures += 1
        if subscription.consecutive_failures >= settings.WEBHOOK_BREAKER_FAILURES:
            subscription.paused_until = now + timedelta(seconds=settings.WEBHOOK_BREAKER_SECONDS)
    subscription.save(update_fields=["consecutive_failures", "paused_until"])


def release(subscription: Subscription, now: datetime) -> list[str]:
    """The held-back deliveries of the (locked) subscription that may go now, oldest first, one
    a free slot, made due now; none while the breaker is open. The caller sends them."""
    if held_until(subscription, now) is not None:
        return []
    free = settings.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION - in_flight(subscription, now)
    # SKIP LOCKED: one a claim holds is its to take or hold back again, and waiting for it here,
    # under the subscription's lock that claim waits for, would be a deadlock.
    waiting = (
        Delivery.objects.select_for_update(skip_locked=True)
        .filter(subscription=subscription, status=Delivery.Status.PENDING, held_back=True)
        .order_by("created_at")
    )
    ids = list(waiting.values_list("pk", flat=True)[: max(free, 0)])
    Delivery.objects.filter(pk__in=ids).update(next_attempt_at=now)
    return [str(pk) for pk in ids]


def attempt_seconds() -> float:
    """The longest an attempt may take: connecting (to each address) and the whole exchange."""
    return settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS * 2 + settings.WEBHOOK_TIMEOUT_SECONDS + 1
