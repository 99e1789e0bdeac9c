"""What an account's deletion ends at the tables (``players.signals.account_deleting``, connected
in games/apps.py): players/ sends it and knows no game.

Runs in the deletion's transaction, before the personal data is erased: the player's active
games are resigned and his open ones left, and the idempotency records of his games' actions are
dropped (those games are all over now, so no retry can need them).
"""

from __future__ import annotations

from typing import Any

from games import services
from games.models import Game, IdempotencyRecord, Seat
from players.models import Player


def on_account_deleting(sender: Any, player: Player, **_: Any) -> None:
    mine = Seat.objects.filter(player=player)
    for game_id, status in mine.values_list("game_id", "game__status"):
        if status == Game.Status.ACTIVE:
            services.resign(player, game_id)
        elif status == Game.Status.OPEN:
            services.leave_game(player, game_id)
    IdempotencyRecord.objects.filter(game_id__in=mine.values("game_id")).delete()
