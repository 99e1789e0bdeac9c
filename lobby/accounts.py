"""What an account's deletion ends in the lobby (``players.signals``; games/accounts.py ends
his games, and runs first: games/ comes first in INSTALLED_APPS).

Runs in the deletion's transaction, before the personal data is erased: his seeks, challenges
and rematch offers end, and his blocks (both ways) and webhook subscriptions go.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from lobby import challenges, seeks
from lobby.models import Rematch
from notifications.models import Subscription
from players.models import Block, Player


def on_account_deleting(sender: Any, player: Player, **_: Any) -> None:
    seeks.cancel_all([player.pk])
    challenges.cancel_all([player.pk])
    Rematch.objects.filter(status=Rematch.Status.OFFERED, game__seats__player=player).update(
        status=Rematch.Status.DECLINED
    )
    Block.objects.filter(Q(blocker=player) | Q(blocked=player)).delete()
    Subscription.objects.filter(player=player).delete()
