"""Signals the game server sends, so other apps follow the log without games/ knowing them."""

from django.dispatch import Signal

#: Sent by ``store.Recorder.save`` inside the transaction that wrote the events, so a receiver's
#: writes (an outbox row, say) commit or roll back with them. Arguments: ``game`` (the saved
#: ``Game`` row), ``rows`` (the ``GameEvent`` rows just written, in order) and ``state`` (the
#: engine state after them).
events_recorded = Signal()
