"""Celery tasks of the game server: they take ids, are idempotent, and are sent after commit."""

from __future__ import annotations

from celery import shared_task

from games import timeouts


@shared_task(name="games.tasks.apply_timeout")
def apply_timeout(game_id: str, version: int) -> bool:
    """A turn's deadline: a no-op unless the game is still at ``version`` and overdue."""
    return timeouts.apply_timeout(game_id, version)


@shared_task(name="games.tasks.sweep_overdue_turns")
def sweep_overdue_turns() -> int:
    """The periodic sweep: applies any overdue deadline a lost or late task left behind."""
    return timeouts.sweep()
