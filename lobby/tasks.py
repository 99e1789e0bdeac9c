"""Celery tasks of the lobby: the periodic pass (beat, ``LOBBY_SWEEP_SECONDS``), idempotent and
safe beside any other pass (SKIP LOCKED)."""

from __future__ import annotations

from celery import shared_task

from lobby import challenges, seeks


@shared_task(name="lobby.tasks.sweep_lobby")
def sweep_lobby() -> dict[str, int]:
    """The periodic pass: expire seeks and challenges, fill tables with bots, pair every pool."""
    counts = seeks.sweep()
    counts["challenges_expired"] = challenges.expire_due()
    return counts
