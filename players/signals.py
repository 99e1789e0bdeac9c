"""Signals players/ sends, so the apps that hold a player's other data follow without players/
knowing them."""

from django.dispatch import Signal

#: Sent by ``services.delete_account`` inside its transaction, before the player's personal data
#: is erased: a receiver ends what the player takes part in (games, seeks, challenges) and drops
#: what holds his data (subscriptions, stored answers naming him). Argument: ``player``.
account_deleting = Signal()

#: Sent by ``services.rate_game`` inside the transaction that wrote a game's rating changes.
#: Arguments: ``game`` (the locked ``Game`` row) and ``changes`` (the ``RatingChange`` rows).
game_rated = Signal()
