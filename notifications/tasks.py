"""Celery tasks of the notifications: they take ids, are idempotent, and are sent after commit
(``sending.send_after_commit``, by the task's name: this module imports that one)."""

from __future__ import annotations

from celery import shared_task

from notifications import reminders, sending

#: Acknowledged on receipt, not after the run (CELERY_TASK_ACKS_LATE): under the thread pool the
#: webhook worker runs (docker-compose.yml), late acks let a burst of deliveries fill the
#: prefetch window with unacknowledged messages, and the worker took the next ones only every
#: second or more, so a burst waited many seconds (bench/webhook_burst.py; the figures are in
#: bench/README.md). Nothing is lost by it: the outbox row is the delivery, and the sweep sends
#: again one whose task a killed worker took with it.
EARLY_ACK = {"acks_late": False}


@shared_task(name="notifications.tasks.send_delivery", **EARLY_ACK)
def send_delivery(delivery_id: str) -> str | None:
    """One attempt at a delivery; a no-op unless it is pending, due and not held elsewhere."""
    return sending.send(delivery_id)


@shared_task(name="notifications.tasks.send_deliveries", **EARLY_ACK)
def send_deliveries(delivery_ids: list[str]) -> int:
    """The first attempt at each of several deliveries written together (a sweep's chunk), in
    turn: each as ``send_delivery`` makes it."""
    return sending.send_each(delivery_ids)


@shared_task(name="notifications.tasks.sweep_deliveries")
def sweep_deliveries() -> int:
    """The periodic sweep: sends the due retries and held-back deliveries, and again the
    deliveries whose task was lost."""
    return sending.sweep()


@shared_task(name="notifications.tasks.send_deadline_reminders")
def send_deadline_reminders() -> int:
    """The periodic "deadline is near" pass: one reminder per game version, ever."""
    return reminders.sweep()
