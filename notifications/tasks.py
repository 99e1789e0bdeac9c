"""Celery tasks of the notifications: they take ids, are idempotent, and are sent after commit."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from notifications import reminders, sending


def routing() -> dict[str, Any]:
    """``WEBHOOK_QUEUE`` keeps slow receivers from holding up the workers that apply timeouts."""
    return {"queue": settings.WEBHOOK_QUEUE} if settings.WEBHOOK_QUEUE else {}


def send_after_commit(delivery_id: Any, delay: float = 0) -> None:
    """Send after the outermost commit; a delay beyond WEBHOOK_TASK_MAX_DELAY_SECONDS is left to
    the sweep, since a Redis ETA past the visibility timeout is delivered again (NOTES.md)."""
    if delay > settings.WEBHOOK_TASK_MAX_DELAY_SECONDS:
        return
    options = {"countdown": delay} if delay else {}
    send_delivery.apply_async_on_commit(args=(str(delivery_id),), **options, **routing())


@shared_task(name="notifications.tasks.send_delivery")
def send_delivery(delivery_id: str) -> str | None:
    """One attempt at a delivery; a no-op unless it is pending, due and not held elsewhere."""
    return sending.send(delivery_id)


@shared_task(name="notifications.tasks.sweep_deliveries")
def sweep_deliveries() -> int:
    """The periodic sweep: sends again the pending deliveries whose task was lost."""
    return sending.sweep()


@shared_task(name="notifications.tasks.send_deadline_reminders")
def send_deadline_reminders() -> int:
    """The periodic "deadline is near" pass: one reminder per game version, ever."""
    return reminders.sweep()
