"""Signals the notifications app sends."""

from django.dispatch import Signal

#: Sent by ``reminders.remind`` inside the transaction that records the reminder, once per game
#: version. Arguments: ``game`` (the locked ``Game``), ``version`` and ``seats`` (the seat
#: numbers whose turn times out soon).
deadline_near = Signal()
