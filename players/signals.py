"""Signals the players app sends, so other apps follow ratings without players/ knowing them."""

from django.dispatch import Signal

#: Sent by ``services.rate_game`` inside the transaction that wrote a game's rating changes.
#: Arguments: ``game`` (the locked ``Game`` row) and ``changes`` (the ``RatingChange`` rows).
game_rated = Signal()
