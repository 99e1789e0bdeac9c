"""Celery tasks of the game server: they take ids, are idempotent, and are sent after commit, by
``follow_committed_events`` (connected to ``games.signals.events_committed``, games/apps.py).

A rated match that ends sends ``rate_game``, so the rating runs only once the result is committed
(and never for a rolled-back one). A message can still be lost (broker restart, worker killed
before it acknowledged): ``reconcile_ratings``, on the beat every five minutes
(CELERY_BEAT_SCHEDULE in settings.py), rates whatever such games remain.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from games import (
    accounts,
    bot_players,
    clock,
    engine,
    open_tables,
    rated_results,
    services,
    timeouts,
)
from games.models import Game, GameEvent, GameId

# Games finished within this many seconds are left to their own rate_game task, which is almost
# certainly queued or running; the reconciler would only wait on the same game-row lock.
RECONCILE_GRACE_SECONDS = 60
# Games rated by one reconciler run at most: a backlog drains over successive runs.
RECONCILE_BATCH = 500


@shared_task(name="games.tasks.apply_timeout")
def apply_timeout(game_id: str, version: int) -> bool:
    """A turn's deadline: a no-op unless the game is still at ``version`` and overdue."""
    return timeouts.apply_timeout(game_id, version)


@shared_task(name="games.tasks.bot_move")
def bot_move(game_id: str, version: int, seat: int) -> bool:
    """A bot's turn: a no-op unless the game is still at ``version`` with that seat to act."""
    return bot_players.move(game_id, version, seat)


@shared_task(name="games.tasks.sweep_overdue_turns")
def sweep_overdue_turns() -> int:
    """The periodic sweep: applies any overdue deadline a lost or late task left behind, and
    sends again the moves of bots whose task seems lost."""
    for game_id, version, seat in bot_players.stalled():
        bot_move.delay(str(game_id), version, seat)
    return timeouts.sweep()


@shared_task(name="games.tasks.purge_idempotency_records")
def purge_idempotency_records() -> int:
    """The hourly purge of the answers kept for retries longer than IDEMPOTENCY_HOURS."""
    return services.purge_idempotency_records()


@shared_task(name="games.tasks.expire_open_games")
def expire_open_games() -> int:
    """The periodic pass that aborts the open games that waited too long (games/open_tables.py)."""
    return open_tables.expire()


# Both are acknowledged after they ran (CELERY_TASK_ACKS_LATE): safe, as running twice is a no-op.
@shared_task(
    name="games.tasks.rate_game",
    # A dropped connection or a serialization failure: try again, the lock and the check still hold.
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def rate_game(game_id: GameId) -> int:
    """Rate one finished game; how many rating changes it wrote (0 when there was nothing to do)."""
    return len(rated_results.rate_game(game_id))


@shared_task(name="games.tasks.remove_idle_guests")
def remove_idle_guests() -> int:
    """The beat's: guests idle for ``GUEST_IDLE_DAYS`` are erased (games/accounts.py)."""
    idle_since = timezone.now() - timedelta(days=settings.GUEST_IDLE_DAYS)
    return accounts.remove_idle_guests(idle_since)


@shared_task(name="games.tasks.reconcile_ratings")
def reconcile_ratings(grace_seconds: int = RECONCILE_GRACE_SECONDS) -> int:
    """Rate the finished, rated games with a winner that have no rating changes yet.

    Only games that finished more than ``grace_seconds`` ago (0: all of them); how many it rated.
    """
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    game_ids = rated_results.unrated_games(finished_before=cutoff, limit=RECONCILE_BATCH)
    return sum(1 for game_id in game_ids if rated_results.rate_game(game_id))


def follow_committed_events(
    sender: Any, game: Game, rows: Sequence[GameEvent], state: engine.State, **_: Any
) -> None:
    """What follows a committed save of a game's events: the turn's clock, a bot's move, the
    rating of a match that ended rated. Each task is keyed by the game's version (a stale one
    does nothing), and each has a sweep behind it should this message be lost."""
    if clock.wants_task(game):
        apply_timeout.apply_async(args=(str(game.pk), game.version), eta=game.deadline)
    seat = bot_players.bot_to_move(game, state)
    if seat is not None:
        bot_move.delay(str(game.pk), game.version, seat)
    if game.status == Game.Status.FINISHED and game.rated:
        rate_game.delay(str(game.pk))  # the reconciler catches a lost one
