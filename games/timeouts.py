"""Timeouts: what happens when a turn's deadline passes.

Applying a timeout is keyed by the game's version, so the scheduled task, a redelivered copy, the
sweep and a late move racing at the deadline produce exactly one outcome: whoever takes the row
lock first changes the version, and every other one finds it changed (or, for the sweep, the row
locked: ``SKIP LOCKED``) and does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog
from django.db import transaction
from django.utils import timezone

from games import engine
from games.models import Game, GameId
from games.store.log import (
    Append,
    append_all,
    load_state,
    load_states,
    lock_game,
    lock_overdue,
    seats_of,
)

logger = structlog.get_logger(__name__)
#: Games a sweep locks and applies together, in one transaction.
SWEEP_CHUNK = 500


def apply_timeout(game_id: GameId, version: int) -> bool:
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
    append_all([timed_out(game, state)])


def timed_out(game: Game, state: engine.State) -> Append:
    """What a passed deadline appends (RULES.md §9): the seat to act times out; a seat that
    never acted aborts the game, one out of time ``forfeit_after`` times in a row forfeits it,
    else the engine's timeout action is played for it. The game lock covers its seats, read
    with it."""
    number, action = engine.timeout_action(state)
    seat = next(seat for seat in seats_of(game) if seat.number == number)
    seat.timeouts += 1
    timed = engine.events.TurnTimedOut(number, seat.timeouts)
    after = engine.evolve(state, timed)
    then: Sequence[engine.events.Event]
    if not seat.has_acted:
        # A seat that never acted: the game never really started, so it ends unrated.
        game.rated = False
        then = [engine.abort(after, "no_show")]
    elif seat.timeouts >= game.forfeit_after:
        then = [engine.forfeit(after, engine.side_of(number), "timeouts")]
    else:
        then = engine.decide(after, number, action)
    logger.info("game.timeout", game_id=str(game.pk), seat=number, count=seat.timeouts)
    return Append(game, state, [timed, *then], seat=number, touched=[seat])


def overdue(limit: int = 500) -> list[tuple[Any, int]]:
    """(game id, version) of active games whose deadline has passed, oldest deadline first."""
    rows = Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=timezone.now())
    return list(rows.order_by("deadline").values_list("id", "version")[:limit])


def sweep(limit: int = 5000, chunk: int = SWEEP_CHUNK) -> int:
    """Apply every overdue timeout (up to ``limit``), ``chunk`` games a transaction: locked
    together (``SKIP LOCKED``: a game someone else holds is theirs), their states folded
    together, the engine run for each, and appended together (``store.log.append_all``).
    Returns how many were applied; after an outage it catches up at the rate bench/sweep.py
    measures."""
    applied = 0
    while applied < limit:
        with transaction.atomic():
            games = lock_overdue(timezone.now(), min(chunk, limit - applied))
            if not games:
                break
            states = load_states(games)
            append_all([timed_out(game, state) for game, state in zip(games, states, strict=True)])
        applied += len(games)
    return applied
