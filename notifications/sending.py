"""Sending a delivery: claim it, POST it signed, record the attempt, and retry with backoff.

Exactly-once-ish: an attempt is made only for a ``pending`` delivery whose next attempt is due,
claimed with ``SELECT ... FOR UPDATE SKIP LOCKED`` and kept locked while the request runs, so a
duplicate task, a redelivered one and the sweep can never send the same attempt twice: the loser
of the race finds the row locked, delivered, or not due yet. A worker killed mid-request leaves
the row pending and the request possibly received; the sweep sends it again with the same
``webhook-id``, which is why receivers dedupe by it (at least once, never twice in the normal run).
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import signature
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from notifications import signing
from notifications.addresses import AddressRefused, check_url
from notifications.models import Attempt, Delivery

#: The task that makes one attempt (notifications/tasks.py), named: that module imports this one.
SEND_DELIVERY = "notifications.tasks.send_delivery"


def routing() -> dict[str, Any]:
    """``WEBHOOK_QUEUE`` keeps slow receivers from holding up the workers that apply timeouts."""
    return {"queue": settings.WEBHOOK_QUEUE} if settings.WEBHOOK_QUEUE else {}


def send_after_commit(delivery_id: Any, delay: float = 0) -> None:
    """Send after the outermost commit (at once outside a transaction); a delay beyond
    WEBHOOK_TASK_MAX_DELAY_SECONDS is left to the sweep, since a Redis ETA past the visibility
    timeout is delivered again (NOTES.md)."""
    if delay > settings.WEBHOOK_TASK_MAX_DELAY_SECONDS:
        return
    options = {"countdown": delay} if delay else {}
    task = signature(SEND_DELIVERY, args=(str(delivery_id),), options={**options, **routing()})
    transaction.on_commit(task.apply_async)


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def send(delivery_id: str) -> str | None:
    """One attempt at ``delivery_id`` if it is pending and due; its new status, or None."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("subscription")
            .filter(
                pk=delivery_id,
                status=Delivery.Status.PENDING,
                next_attempt_at__lte=timezone.now(),
            )
            .first()
        )
        if delivery is None:
            return None  # another worker holds it, or it is done, or not due yet
        outcome = post(delivery)
        number = delivery.attempt_count + 1
        Attempt.objects.create(
            delivery=delivery,
            number=number,
            status_code=outcome.status_code,
            error=outcome.error[:500],
            duration_ms=outcome.duration_ms,
        )
        delivery.attempt_count = number
        delay = retry_delay(number)
        if outcome.delivered:
            delivery.status = Delivery.Status.DELIVERED
            delivery.delivered_at = timezone.now()
            delivery.next_attempt_at = None
        elif delay is None:
            delivery.status = Delivery.Status.FAILED
            delivery.next_attempt_at = None
        else:
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
            send_after_commit(delivery.pk, delay)
        delivery.save()
        return delivery.status


def retry_delay(attempts: int) -> float | None:
    """Seconds before the next attempt after ``attempts`` failed ones; None when they are spent.

    ``WEBHOOK_RETRY_DELAYS`` is the schedule (5 s, 30 s, 2 min, … capped by its last entry), with
    up to 10 % jitter so that the deliveries of a receiver that was down do not return in step.
    """
    delays = settings.WEBHOOK_RETRY_DELAYS
    if attempts > len(delays):
        return None
    return delays[attempts - 1] * (1 + random.random() / 10)


def body_of(delivery: Delivery) -> bytes:
    """The same bytes on every attempt: the stored payload, serialised deterministically."""
    return json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()


def post(delivery: Delivery) -> Outcome:
    subscription = delivery.subscription
    body = body_of(delivery)
    headers = {
        "content-type": "application/json",
        "user-agent": "truc-api-webhooks/1",
        **signing.headers(subscription.secret, str(delivery.pk), int(time.time()), body),
    }
    request = urllib.request.Request(subscription.url, data=body, headers=headers, method="POST")
    started = time.monotonic()
    status_code, error = None, ""
    try:
        check_url(subscription.url)  # again: the name may resolve elsewhere by now
        with _opener.open(request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as response:
            status_code = response.status
    except urllib.error.HTTPError as answer:  # a non-2xx answer (redirects are not followed)
        status_code, error = answer.code, f"HTTP {answer.code}"
        answer.close()
    except AddressRefused as refused:
        error = str(refused)
    except (OSError, http.client.HTTPException, ValueError) as failure:
        error = f"{type(failure).__name__}: {failure}"
    return Outcome(status_code, error, int((time.monotonic() - started) * 1000))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead anywhere, the private network included: it counts as a failure."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects)


def sweep(limit: int = 500) -> int:
    """Send again the pending deliveries overdue by more than the grace: their task was lost."""
    cutoff = timezone.now() - timedelta(seconds=settings.WEBHOOK_SWEEP_GRACE_SECONDS)
    overdue = (
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=cutoff)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    ids = list(overdue)
    for delivery_id in ids:
        send_after_commit(delivery_id)
    return len(ids)
