"""What an account's deletion ends in the lobby and at the tables (``players.signals``).

Runs in the deletion's transaction, before the personal data is erased: the player's active
games are resigned and his open ones left (through games' services), his seeks, challenges and
rematch offers end, his blocks (both ways) and webhook subscriptions go, and the stored answers
of his games' actions, which name every seated player, are dropped (those games are all over
now, so no retry can need them).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games import services as games
from games.models import Game, IdempotencyRecord, Seat
from lobby import challenges, seeks
from lobby.models import Rematch
from notifications.models import Subscription
from players.models import Block, Player


def on_account_deleting(sender: Any, player: Player, **_: Any) -> None:
    seeks.cancel_all([player.pk])
    challenges.cancel_all([player.pk])
    mine = Seat.objects.filter(player=player)
    for game_id, status in mine.values_list("game_id", "game__status"):
        if status == Game.Status.ACTIVE:
            games.resign(player, game_id)
        elif status == Game.Status.OPEN:
            games.leave_game(player, game_id)
    Rematch.objects.filter(status=Rematch.Status.OFFERED, game__seats__player=player).update(
        status=Rematch.Status.DECLINED
    )
    Block.objects.filter(Q(blocker=player) | Q(blocked=player)).delete()
    Subscription.objects.filter(player=player).delete()
    IdempotencyRecord.objects.filter(game_id__in=mine.values("game_id")).delete()
