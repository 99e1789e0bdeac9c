"""Turn clocks: the deadline of the turn, and the task that applies it on time.

The deadline lives in the game row, written in the same transaction as the events that hand the
turn over (``store.Recorder.save``); it is the source of truth. What a passed deadline does is in
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


def schedule(game: Game) -> None:
    """After commit, a task with an ETA for a short deadline; the sweep covers the long ones."""
    from games.tasks import apply_timeout  # the tasks module imports this one

    if game.deadline is None or game.turn_seconds > settings.TIMEOUT_TASK_MAX_SECONDS:
        return
    apply_timeout.apply_async_on_commit(args=(str(game.pk), game.version), eta=game.deadline)
