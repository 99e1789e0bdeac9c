"""Sending a delivery: claim it, POST it signed, record the attempt, and retry with backoff.

Exactly-once-ish: an attempt is made only for a ``pending`` delivery whose next attempt is due,
claimed with ``SELECT ... FOR UPDATE SKIP LOCKED``, which moves its next attempt past the longest
an attempt may take, so a duplicate task, a redelivered one and the sweep can never send the same
attempt twice: the loser of the race finds the row locked, delivered, or not due yet. No lock is
held while the receiver is called, so unsubscribing never waits for a slow receiver. A worker
killed mid-request leaves the row pending and the request possibly received; the sweep sends it
again with the same ``webhook-id`` once the claim has run out, which is why receivers dedupe by
it (at least once, never twice in the normal run).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import ssl
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message
from typing import Any

import structlog
from celery import signature
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from notifications import breaker, signing
from notifications.addresses import AddressRefused, Target, target
from notifications.models import Attempt, Delivery
from truc_api import after_response

logger = structlog.get_logger(__name__)

#: The task that makes one attempt (notifications/tasks.py), named: that module imports this one.
SEND_DELIVERY = "notifications.tasks.send_delivery"
#: The task that makes the first attempt at several deliveries in turn.
SEND_DELIVERIES = "notifications.tasks.send_deliveries"
#: Deliveries one ``SEND_DELIVERIES`` message carries: a save that writes many (a sweep of
#: timeouts after an outage, a chunk of 500 games) sends a message per batch rather than one per
#: delivery. A batch holds one subscription's deliveries only, so a slow receiver holds up its
#: own and no one else's.
DELIVERIES_A_TASK = 25


def routing() -> dict[str, Any]:
    """``WEBHOOK_QUEUE`` keeps slow receivers from holding up the workers that apply timeouts."""
    return {"queue": settings.WEBHOOK_QUEUE} if settings.WEBHOOK_QUEUE else {}


def send_after_commit(delivery_id: uuid.UUID | str) -> None:
    """Send after the outermost commit (at once outside a transaction) and, in a request, after
    its answer (``after_response``). Never with an ETA: retries are the sweep's (``send``)."""
    task = signature(SEND_DELIVERY, args=(str(delivery_id),), options=routing())
    after_response.on_commit(task.apply_async)


def send_all_after_commit(deliveries: Iterable[tuple[Any, Any]]) -> None:
    """An attempt at each of ``deliveries`` (delivery id, subscription id), sent after the
    outermost commit (and the answer): a message per subscription, ``DELIVERIES_A_TASK`` to a
    message at most (one alone goes as ``send_after_commit`` sends it)."""
    by_subscription: dict[str, list[str]] = {}
    for delivery_id, subscription_id in deliveries:
        by_subscription.setdefault(str(subscription_id), []).append(str(delivery_id))
    for ids in by_subscription.values():
        if len(ids) == 1:
            send_after_commit(ids[0])
            continue
        for start in range(0, len(ids), DELIVERIES_A_TASK):
            batch = ids[start : start + DELIVERIES_A_TASK]
            task = signature(SEND_DELIVERIES, args=(batch,), options=routing())
            after_response.on_commit(task.apply_async)


def send_each(delivery_ids: Sequence[str]) -> int:
    """``send`` each delivery in turn; how many were attempted. Each is claimed on its own, so a
    batch sent twice, or racing a single task or the sweep, still makes each attempt once; a
    worker lost mid-batch leaves the rest pending and due, for the sweep."""
    return sum(send(delivery_id) is not None for delivery_id in delivery_ids)


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def send(delivery_id: str) -> str | None:
    """One attempt at ``delivery_id`` if it is pending, due, not held elsewhere and not held back
    by its subscription's limit or breaker (notifications/breaker.py); its new status, or None.

    Three steps, and no transaction nor row lock is held while the receiver is called: claim the
    attempt (its next attempt moves past the request's longest time, so no other worker takes
    it), POST, then record the outcome, unless the delivery has gone meanwhile (unsubscribed).
    A retry gets no task with an ETA: it is due in the database, and the sweep (every
    WEBHOOK_SWEEP_SECONDS) sends it then. A worker holding ETA tasks keeps them unacknowledged
    in its prefetch window, beside the deliveries of everyone else.
    """
    delivery = claim(delivery_id)
    if delivery is None:
        return None  # another worker holds it, or it is done, held back, or not due yet
    # The attempt's time and its retry's are counted from its start: from its end they would
    # tell the subscriber how long a failure took (a refused port, a silent one).
    started = timezone.now()
    outcome = post(delivery)
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().filter(pk=delivery.pk).first()
        if delivery is None or delivery.status != Delivery.Status.PENDING:
            return None  # unsubscribed while in flight: nothing left to record
        subscription = breaker.locked(delivery.subscription_id)
        number = delivery.attempt_count + 1
        Attempt.objects.create(
            delivery=delivery,
            number=number,
            status_code=outcome.status_code,
            error=outcome.error[:500],
            duration_ms=outcome.duration_ms,
            at=started,
        )
        delivery.attempt_count = number
        delivery.claimed_until = None
        delay = retry_delay(number)
        if outcome.delivered:
            delivery.status = Delivery.Status.DELIVERED
            delivery.delivered_at = timezone.now()
            delivery.next_attempt_at = None
        elif delay is None:
            delivery.status = Delivery.Status.FAILED
            delivery.next_attempt_at = None
        else:
            delivery.next_attempt_at = started + timedelta(seconds=delay)
        delivery.save()
        now = timezone.now()
        breaker.record(subscription, outcome.delivered, now)
        send_all_after_commit(
            (held, subscription.pk) for held in breaker.release(subscription, now)
        )
        return delivery.status


def claim(delivery_id: str) -> Delivery | None:
    """Take the attempt at a pending, due delivery: ``SKIP LOCKED`` lets one worker through, and
    the next attempt moves past the longest an attempt may take, so the loser of a race, a
    duplicate task and the sweep all find it not due. A worker killed mid-request leaves it
    due again once that time has passed: the sweep sends it again (same ``webhook-id``).

    A delivery past its ``expires_at`` expires unsent; one its subscription may not be sent to
    now (every slot taken, the breaker open) is held back, not attempted (breaker.py)."""
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
            return None
        now = timezone.now()
        if delivery.expires_at is not None and delivery.expires_at <= now:
            delivery.status = Delivery.Status.EXPIRED
            delivery.next_attempt_at = None
            delivery.save(update_fields=["status", "next_attempt_at"])
            return None
        held = breaker.held_until(breaker.locked(delivery.subscription_id), now)
        if held is not None:
            delivery.held_back, delivery.next_attempt_at = True, held
            delivery.save(update_fields=["held_back", "next_attempt_at"])
            return None
        delivery.held_back = False
        delivery.claimed_until = now + timedelta(seconds=breaker.attempt_seconds())
        delivery.next_attempt_at = delivery.claimed_until
        delivery.save(update_fields=["held_back", "claimed_until", "next_attempt_at"])
        return delivery


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
    """POST the delivery to the addresses its URL resolves to now, once checked.

    What the subscriber reads back is an HTTP status or one of two fixed texts: the failure
    itself (refused, reset, timed out after so long) would let a subscriber map ports and hosts
    through the server; it goes to the server's log instead.
    """
    subscription = delivery.subscription
    body = body_of(delivery)
    headers = {
        "content-type": "application/json",
        "user-agent": "truc-api-webhooks/1",
        **signing.headers(subscription.secret, str(delivery.pk), int(time.time()), body),
    }
    started = time.monotonic()
    status_code, error = None, ""
    try:
        status_code = exchange(target(subscription.url), body, headers)
        if not 200 <= status_code < 300:  # a redirect too: it could lead anywhere
            error = f"HTTP {status_code}"
    except AddressRefused:
        error = ADDRESS_REFUSED
    except (OSError, http.client.HTTPException, ValueError) as failure:
        error = NO_ANSWER
        logger.info("webhook.no_answer", delivery_id=str(delivery.pk), error=repr(failure))
    return Outcome(status_code, error, int((time.monotonic() - started) * 1000))


ADDRESS_REFUSED = "The URL's host does not resolve to an address webhooks may be sent to."
NO_ANSWER = "The receiver did not answer."


def exchange(where: Target, body: bytes, headers: dict[str, str]) -> int:
    """Send the request and read the status (``reply``)."""
    return reply(where, body, headers)[0]


def reply(where: Target, body: bytes, headers: dict[str, str]) -> tuple[int, Message]:
    """Send the request and read the status and headers: connecting is bounded by
    WEBHOOK_CONNECT_TIMEOUT_SECONDS, the whole exchange by WEBHOOK_TIMEOUT_SECONDS (a receiver
    that trickles its answer is cut off), so a slow receiver holds a worker that long at most.
    Web Push sends through it too (push/webpush.py): an endpoint is a URL a player gave."""
    kind = _PinnedTLS if where.scheme == "https" else _Pinned
    connection = kind(where)
    cutoff = threading.Timer(settings.WEBHOOK_TIMEOUT_SECONDS, _cut, (connection,))
    cutoff.start()
    try:
        connection.request("POST", where.path, body=body, headers=headers)
        with connection.getresponse() as response:
            return response.status, response.headers
    finally:
        cutoff.cancel()
        connection.close()


def _cut(connection: http.client.HTTPConnection) -> None:
    with contextlib.suppress(OSError, AttributeError):
        connection.sock.shutdown(socket.SHUT_RDWR)  # the blocked read returns at once


#: How many of the resolved addresses an attempt tries (bounds its time, breaker.attempt_seconds).
MAX_ADDRESSES = 2


def _connect(where: Target) -> socket.socket:
    """A connection to the first checked address that takes one: no name is resolved here."""
    failure: OSError = OSError("no address")
    for address in where.addresses[:MAX_ADDRESSES]:
        try:
            sock = socket.create_connection(
                (address, where.port), timeout=settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS
            )
        except OSError as refused:
            failure = refused
            continue
        sock.settimeout(settings.WEBHOOK_TIMEOUT_SECONDS)
        return sock
    raise failure


class _Pinned(http.client.HTTPConnection):
    """HTTP to a checked address; the Host header is still the URL's host."""

    def __init__(self, where: Target) -> None:
        super().__init__(where.host, where.port)
        self.where = where

    def connect(self) -> None:
        self.sock = _connect(self.where)


class _PinnedTLS(http.client.HTTPSConnection):
    """HTTPS to a checked address; the certificate must be valid for the URL's host."""

    def __init__(self, where: Target) -> None:
        super().__init__(where.host, where.port, context=ssl.create_default_context())
        self.where = where

    def connect(self) -> None:
        # HTTPSConnection's own context, which typeshed leaves out.
        context = self._context  # type: ignore[attr-defined]
        self.sock = context.wrap_socket(_connect(self.where), server_hostname=self.host)


def sweep(limit: int = 500) -> int:
    """Send the pending deliveries that are due: retries and held-back ones as soon as they are
    (they have no task of their own), first attempts once overdue by WEBHOOK_SWEEP_GRACE_SECONDS
    (their task was lost: a worker killed, a broker restarted)."""
    now = timezone.now()
    lost = now - timedelta(seconds=settings.WEBHOOK_SWEEP_GRACE_SECONDS)
    due = (
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .filter(Q(attempt_count__gt=0) | Q(held_back=True) | Q(next_attempt_at__lte=lost))
        .order_by("next_attempt_at")
        .values_list("pk", "subscription_id")[:limit]
    )
    found = list(due)
    send_all_after_commit(found)
    return len(found)
