"""Timeouts: what happens when a turn's deadline passes.

Applying a timeout is keyed by the game's version, so the scheduled task, a redelivered copy, the
sweep and a late move racing at the deadline produce exactly one outcome: whoever takes the row
lock first changes the version, and every other one finds it changed and does nothing.
"""

from __future__ import annotations

from typing import Any

import structlog
from django.db import transaction
from django.utils import timezone

from games import engine
from games.models import Game, Seat
from games.store import Recorder, load_state, lock_game

logger = structlog.get_logger(__name__)


def apply_timeout(game_id: Any, version: int) -> bool:
    """Apply the timeout of ``game_id`` at ``version``; False (and nothing done) when stale."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.version != version or not is_due(game):
            return False
        apply_due(game, load_state(game))
        return True


def is_due(game: Game) -> bool:
    return (
        game.status == Game.Status.ACTIVE
        and game.deadline is not None
        and game.deadline <= timezone.now()
    )


def apply_due(game: Game, state: engine.State) -> None:
    """The timeout of a game whose row the caller has locked and found due (``is_due``), at
    its current ``state``."""
    number, action = engine.timeout_action(state)
    seat = Seat.objects.select_for_update().get(game=game, number=number)
    seat.timeouts += 1
    seat.save(update_fields=["timeouts"])
    recorder = Recorder(game, state)
    recorder.record([engine.events.TurnTimedOut(number, seat.timeouts)], seat=number)
    assert recorder.state is not None
    if not seat.has_acted:
        # A seat that never acted: the game never really started, so it ends unrated.
        game.rated = False
        recorder.record([engine.abort(recorder.state, "no_show")], seat=number)
    elif seat.timeouts >= game.forfeit_after:
        side = engine.side_of(number)
        recorder.record([engine.forfeit(recorder.state, side, "timeouts")], seat=number)
    else:
        recorder.record(engine.decide(recorder.state, number, action), seat=number)
        recorder.deal_if_due()
    recorder.save()
    logger.info("game.timeout", game_id=str(game.pk), seat=number, count=seat.timeouts)


def overdue(limit: int = 500) -> list[tuple[Any, int]]:
    """(game id, version) of active games whose deadline has passed, oldest deadline first."""
    rows = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=timezone.now())
    return list(rows.order_by("deadline").values_list("id", "version")[:limit])


def sweep(limit: int = 500) -> int:
    """Apply every overdue timeout (up to ``limit``); returns how many were applied."""
    return sum(apply_timeout(game_id, version) for game_id, version in overdue(limit))
