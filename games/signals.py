"""Signals the game server sends, so what reacts to a game's log subscribes to it: games/ records
events without knowing who hears them (STYLE.md: the direction of arrows).

``events_recorded`` and ``events_committed`` are sent by the event store
(``games.store.log.append``) for every append to a game's log, with the same arguments: ``game``
(the ``Game`` row as that append left it), ``rows`` (the ``GameEvent`` rows just written, in
order), ``state`` (the engine state after them) and ``before`` (the state before them; None
before the match started); ``events_committed`` also ``saved``, the number of games appended
together (one, or a sweep's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.dispatch import Signal

from games import engine
from games.models import Game, GameEvent

#: Sent inside the transaction that wrote the events, so a receiver's writes (an outbox row, say)
#: commit or roll back with them. Nothing may leave the process from here: it may roll back.
events_recorded = Signal()

#: Sent once that transaction has committed (``transaction.on_commit``), never for a rolled-back
#: one: the hook for what follows a recorded event outside the database (the turn clock's task,
#: a bot's move, the rating of a finished match, live streams). A receiver that fails does not
#: undo the events; one that needs to be sure sweeps as well (the clock and the ratings do).
#: ``saved`` is one for an action, and the number of its games for a sweep.
events_committed = Signal()

#: Sent once per ``store.log.append_all``, inside its transaction, after the ``events_recorded``
#: of each game: ``recorded`` lists every game it appended to (``Recorded``), for a receiver that
#: does better with all of them at once (the outbox: one query for the subscriptions of a whole
#: sweep).
recorded_together = Signal()

#: Sent by ``games.rated_results.rate_game`` inside the transaction that wrote a finished game's
#: rating changes: ``game`` (the locked ``Game`` row) and ``changes`` (the ``RatingChange`` rows).
game_rated = Signal()


@dataclass(frozen=True)
class Recorded:
    """One game's save, as the signals give it."""

    game: Game
    rows: Sequence[GameEvent]
    state: engine.State
    before: engine.State | None
