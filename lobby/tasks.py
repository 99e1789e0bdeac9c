"""Celery tasks of the lobby: they take ids, are idempotent, and are sent after commit."""

from __future__ import annotations

from celery import shared_task

from lobby import challenges, seeks


@shared_task(name="lobby.tasks.sweep_lobby")
def sweep_lobby() -> dict[str, int]:
    """The periodic pass: expire seeks and challenges, fill tables with bots, pair every pool."""
    counts = seeks.sweep()
    counts["challenges_expired"] = challenges.expire_due()
    return counts


@shared_task(name="lobby.tasks.pair_pool")
def pair_pool(pool: str) -> int:
    """One pairing pass over one pool (safe beside any other pass: SKIP LOCKED)."""
    return seeks.pair_pool(pool)
