"""Celery tasks for players (ratings, expired tokens): they take ids, call a service, and are safe
to run any number of times.

The game server sends ``rate_game`` when a match ends, after the commit (``games.tasks``), so the
task runs only once the result is committed (and never for a rolled-back one). A message can still
be lost (broker restart, worker killed before it acknowledged): ``reconcile_ratings``, on the beat
every five minutes (CELERY_BEAT_SCHEDULE in settings.py), rates whatever such games remain.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone
from knox.models import AuthToken

from players import selectors, services

# Games finished within this many seconds are left to their own rate_game task, which is almost
# certainly queued or running; the reconciler would only wait on the same game-row lock.
RECONCILE_GRACE_SECONDS = 60
# Games rated by one reconciler run at most: a backlog drains over successive runs.
RECONCILE_BATCH = 500


# Both are acknowledged after they ran (CELERY_TASK_ACKS_LATE): safe, as running twice is a no-op.
@shared_task(
    name="players.tasks.rate_game",
    # A dropped connection or a serialization failure: try again, the lock and the check still hold.
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def rate_game(game_id: uuid.UUID | str) -> int:
    """Rate one finished game; how many rating changes it wrote (0 when there was nothing to do)."""
    return len(services.rate_game(game_id))


@shared_task(name="players.tasks.reconcile_ratings")
def reconcile_ratings(grace_seconds: int = RECONCILE_GRACE_SECONDS) -> int:
    """Rate the finished, rated games with a winner that have no rating changes yet.

    Only games that finished more than ``grace_seconds`` ago (0: all of them); how many it rated.
    """
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    game_ids = selectors.unrated_games(finished_before=cutoff, limit=RECONCILE_BATCH)
    return sum(1 for game_id in game_ids if services.rate_game(game_id))


@shared_task(name="players.tasks.purge_expired_tokens")
def purge_expired_tokens() -> int:
    """Delete expired knox tokens (authentication checks only the token it is shown)."""
    deleted: int = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()[0]
    return deleted
