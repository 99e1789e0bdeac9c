"""Celery tasks for players: they take ids or nothing, and are safe to run any number of times.

(Rating a finished game is the game server's: ``games.tasks.rate_game``.)
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone
from knox.models import AuthToken


@shared_task(name="players.tasks.purge_expired_tokens")
def purge_expired_tokens() -> int:
    """Delete expired knox tokens (authentication checks only the token it is shown)."""
    deleted: int = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()[0]
    return deleted
