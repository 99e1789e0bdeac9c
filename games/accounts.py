"""What an account's deletion ends at the tables (``players.signals.account_deleting``, connected
in games/apps.py): players/ sends it and knows no game. And which guests are idle: only the
tables know whether a guest still sits at one.

Runs in the deletion's transaction, before the personal data is erased: the player's active
games are resigned and his open ones left, and the idempotency records of his games' actions are
dropped (those games are all over now, so no retry can need them).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from games import services
from games.models import Game, IdempotencyRecord, Seat
from players import services as accounts
from players.models import Player


def on_account_deleting(sender: Any, player: Player, **_: Any) -> None:
    mine = Seat.objects.filter(player=player)
    for game_id, status in mine.values_list("game_id", "game__status"):
        if status == Game.Status.ACTIVE:
            services.resign(player, game_id)
        elif status == Game.Status.OPEN:
            services.leave_game(player, game_id)
    IdempotencyRecord.objects.filter(game_id__in=mine.values("game_id")).delete()


def idle_guests(idle_since: datetime) -> list[int]:
    """The ids of guests who joined and last signed in before ``idle_since`` and sit at no open
    or active table."""
    busy = Seat.objects.filter(game__status__in=(Game.Status.OPEN, Game.Status.ACTIVE))
    guests = Player.objects.filter(is_guest=True, is_active=True, date_joined__lt=idle_since)
    quiet = guests.filter(Q(last_login__isnull=True) | Q(last_login__lt=idle_since))
    return list(quiet.exclude(pk__in=busy.values("player_id")).values_list("pk", flat=True))


def remove_idle_guests(idle_since: datetime) -> int:
    """Erase each idle guest as an account deletion does: his finished games stay, under an
    anonymous name. The count removed."""
    found = idle_guests(idle_since)
    for guest in Player.objects.filter(pk__in=found):
        accounts.erase_account(guest)
    return len(found)
