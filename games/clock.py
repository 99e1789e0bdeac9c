"""Turn clocks: the deadline of the turn.

The deadline lives in the game row, written in the same transaction as the events that hand the
turn over (``store.log.append``); it is the source of truth. The task that applies it on time is
sent after commit (``games/tasks.py``), and what a passed deadline does is in
``games/timeouts.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games import engine
from games.models import Game


def next_deadline(game: Game, state: engine.State) -> datetime | None:
    if state.match_over or engine.turn(state) is None:
        return None
    return timezone.now() + timedelta(seconds=game.turn_seconds)


def wants_task(game: Game) -> bool:
    """A short deadline gets a task with an ETA; the sweep covers the long ones: Redis delivers a
    task whose ETA lies past the broker's visibility timeout again, and again."""
    return game.deadline is not None and game.turn_seconds <= settings.TIMEOUT_TASK_MAX_SECONDS
