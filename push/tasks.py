"""Celery tasks of the pushes, on their own queue (``PUSH_QUEUE``): they take ids, are
idempotent, and are sent after commit (``sending.send_after_commit``, by name)."""

from __future__ import annotations

from celery import shared_task

from push import sending


@shared_task(name="push.tasks.send_pushes")
def send_pushes(push_ids: list[str]) -> int:
    """An attempt at each push that is due and not held elsewhere, in turn."""
    return sending.send_each(push_ids)


@shared_task(name="push.tasks.sweep_pushes")
def sweep_pushes() -> int:
    """The periodic sweep: pushes whose task was lost, or whose worker died mid-send."""
    return sending.sweep()
