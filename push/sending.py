"""Sending a push: claim it, check it still holds, send it, record the attempt, retry or stop.

A push is claimed with ``SELECT ... FOR UPDATE SKIP LOCKED`` and moved to ``sending`` with its
``due_at`` past the longest an attempt may take, in a transaction of its own, before the push
service is called; the outcome is recorded in a second one. So a duplicate task, a redelivered
one and the sweep never send it twice: the loser finds it locked, claimed, or done. A worker
killed mid-send leaves it ``sending``; once its claim has run out the sweep sends it again, with
the same collapse key (the device shows the newest of a game's pushes only) and the same
``push_id`` in its data, by which an app drops a second copy. That is the one case where a push
service may receive a push twice; the outbox's unique key means it is never written twice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import structlog
from celery import signature
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from push import messages, senders
from push.answers import Answer
from push.models import Push, PushAttempt, PushKind
from streams import presence
from truc_api import after_response

logger = structlog.get_logger(__name__)

#: The tasks (push/tasks.py), by name: that module imports this one.
SEND_PUSHES = "push.tasks.send_pushes"
#: Pushes a task sends in turn: a save's pushes go in a few messages, not one each.
PUSHES_A_TASK = 25
#: The kinds about a turn: stale once the game has moved on from the version that caused them.
TURN_KINDS = frozenset({PushKind.YOUR_TURN, PushKind.CALL_PENDING, PushKind.TIME_ALMOST_UP})


def routing() -> dict[str, Any]:
    return {"queue": settings.PUSH_QUEUE} if settings.PUSH_QUEUE else {}


def send_after_commit(push_ids: Sequence[Any], delay: float = 0) -> None:
    """After the outermost commit (and the answer, in a request), ``delay`` seconds on."""
    ids = [str(push_id) for push_id in push_ids]
    options = {**routing(), **({"countdown": delay} if delay > 0 else {})}
    for start in range(0, len(ids), PUSHES_A_TASK):
        task = signature(SEND_PUSHES, args=(ids[start : start + PUSHES_A_TASK],), options=options)
        after_response.on_commit(task.apply_async)


def send_each(push_ids: Sequence[str]) -> int:
    """``send`` each in turn; how many were attempted."""
    return sum(send(push_id) is not None for push_id in push_ids)


def send(push_id: str) -> str | None:
    """One attempt at ``push_id`` if it is due and not held elsewhere; its new status, or None."""
    push = claim(push_id)
    if push is None:
        return None
    skipped = why_not_now(push)
    started = timezone.now()
    message = None if skipped else messages.build(push)
    answer = None if message is None else senders.send(push.device, message)
    with transaction.atomic():
        push = Push.objects.select_for_update().select_related("device").filter(pk=push.pk).first()
        if push is None or push.status != Push.Status.SENDING:
            return None  # the device was removed meanwhile
        if answer is None or message is None:
            push.status, push.reason, push.due_at = Push.Status.SKIPPED, skipped, started
            push.save(update_fields=["status", "reason", "due_at"])
            return push.status
        push.message = message.data
        return _record(push, answer, started)


def _record(push: Push, answer: Answer, started: Any) -> str:
    number = push.attempt_count + 1
    PushAttempt.objects.create(
        push=push,
        number=number,
        at=started,
        status_code=answer.status_code,
        error=answer.error[:200],
        duration_ms=answer.duration_ms,
    )
    push.attempt_count = number
    delay = retry_delay(number, answer.retry_after)
    if answer.sent:
        push.status, push.sent_at = Push.Status.SENT, timezone.now()
    elif answer.gone:
        push.status, push.reason = Push.Status.FAILED, "the push service refused the device"
        logger.info("push.device_gone", device_id=str(push.device_id), platform=answer.platform)
        push.save()
        push.device.delete()  # at the first permanent refusal: its pushes go with it
        return Push.Status.FAILED
    elif delay is None or not answer.retryable:
        push.status, push.reason = Push.Status.FAILED, answer.error[:200]
    else:
        push.status = Push.Status.PENDING
        push.due_at = started + timedelta(seconds=delay)
        send_after_commit([push.pk], max(0.0, (push.due_at - timezone.now()).total_seconds()))
    push.save()
    return push.status


def claim(push_id: str) -> Push | None:
    """Take a due push: pending, or sending with its claim run out (its worker died)."""
    now = timezone.now()
    with transaction.atomic():
        push = (
            Push.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("device", "device__player", "game")
            .filter(
                pk=push_id,
                status__in=(Push.Status.PENDING, Push.Status.SENDING),
                due_at__lte=now,
            )
            .first()
        )
        if push is not None:
            push.status = Push.Status.SENDING
            push.due_at = now + timedelta(seconds=settings.PUSH_TIMEOUT_SECONDS * 2 + 1)
            push.save(update_fields=["status", "due_at"])
        return push


def why_not_now(push: Push) -> str:
    """Why the push no longer holds (empty: it does): the turn is gone, the game is over, or
    the player is at the table."""
    game = push.game
    moved = game is not None and (game.version != push.version or game.status != "active")
    if moved and push.kind in TURN_KINDS:
        return "the game moved on before it was sent"
    if game is not None and presence.at_table(push.device.player_id, game.pk):
        return "the player was at the table"
    return ""


def retry_delay(attempts: int, retry_after: float | None) -> float | None:
    """Seconds before the next attempt: the service's ``Retry-After`` when it gave one, else
    ``PUSH_RETRY_DELAYS`` with up to 10 % jitter; None once they are spent."""
    delays = settings.PUSH_RETRY_DELAYS
    if attempts > len(delays):
        return None
    if retry_after is not None:
        return retry_after
    return delays[attempts - 1] * (1 + random.random() / 10)


def sweep(limit: int = 500) -> int:
    """Send the pushes overdue by a few seconds: their task was lost, or their worker died."""
    cutoff = timezone.now() - timedelta(seconds=settings.PUSH_SWEEP_GRACE_SECONDS)
    overdue = Push.objects.filter(
        status__in=(Push.Status.PENDING, Push.Status.SENDING), due_at__lte=cutoff
    ).order_by("due_at")
    ids = list(overdue.values_list("pk", flat=True)[:limit])
    send_after_commit(ids)
    return len(ids)
