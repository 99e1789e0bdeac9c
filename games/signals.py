"""Signals the game server sends, so what follows a game's log subscribes to it: games/ records
events without knowing who follows them (STYLE.md: the direction of arrows).

Both are sent by the event store (``games.store.save_all``) for every save of a game's events,
with the same arguments: ``game`` (the ``Game`` row as that save left it), ``rows`` (the
``GameEvent`` rows just written, in order) and ``state`` (the engine state after them).
"""

from django.dispatch import Signal

#: Sent inside the transaction that wrote the events, so a receiver's writes (an outbox row, say)
#: commit or roll back with them. Nothing may leave the process from here: it may roll back.
events_recorded = Signal()

#: Sent once that transaction has committed (``transaction.on_commit``), never for a rolled-back
#: one: the hook for what follows a recorded event outside the database (the turn clock's task,
#: a bot's move, the rating of a finished match, live streams). A receiver that fails does not
#: undo the events; one that needs to be sure sweeps as well (the clock and the ratings do).
events_committed = Signal()
