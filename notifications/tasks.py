"""Celery tasks of the notifications: they take ids, are idempotent, and are sent after commit
(``sending.send_after_commit``, by the task's name: this module imports that one)."""

from __future__ import annotations

from celery import shared_task

from notifications import reminders, sending


@shared_task(name="notifications.tasks.send_delivery")
def send_delivery(delivery_id: str) -> str | None:
    """One attempt at a delivery; a no-op unless it is pending, due and not held elsewhere."""
    return sending.send(delivery_id)


@shared_task(name="notifications.tasks.send_deliveries")
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
