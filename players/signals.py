"""Signals players/ sends, so the apps that hold a player's other data follow without players/
knowing them."""

from django.dispatch import Signal

#: Sent by ``services.delete_account`` inside its transaction, before the player's personal data
#: is erased: a receiver ends what the player takes part in (games, seeks, challenges) and drops
#: what holds his data (subscriptions, stored answers naming him). Argument: ``player``.
account_deleting = Signal()
