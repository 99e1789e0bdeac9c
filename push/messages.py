"""What a push carries, made when it is sent: the text in the device's language, the badge, the
collapse key, and the data an app reads (``PushData`` in the OpenAPI document, docs/push.md).

The data is the stored ids and figures (``Push.data``, never a card), the names read now (a
deleted account's name is not kept in a stored row), and the badge counted now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.models import Game, Seat
from players.models import Player
from push import texts
from push.models import Push, PushKind


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    data: dict[str, str]
    collapse_key: str
    badge: int
    urgent: bool
    ttl: int


#: Seconds a push service keeps a push for an offline device: a turn is worth a day.
TTL_SECONDS = 86_400


def badge(player_id: int) -> int:
    """The number of games waiting for this player's move."""
    return Seat.objects.filter(
        player_id=player_id, awaiting=True, game__status=Game.Status.ACTIVE
    ).count()


def build(push: Push) -> Message:
    stored: dict[str, Any] = dict(push.data)
    opponent = stored.get("opponent_id")
    named = Player.objects.filter(pk=opponent).first() if opponent else None
    stored["opponent"] = named.public_name if named is not None else ""
    title, body = texts.text(push.kind, push.device.locale, stored)
    count = badge(push.device.player_id)
    game_id = stored.get("game_id")
    data = {
        "push_id": str(push.pk),
        "kind": push.kind,
        "game_id": game_id or "",
        "version": str(push.version),
        "deadline": stored.get("deadline") or "",
        "badge": str(count),
        "url": f"/play/#/game/{game_id}" if game_id else "/play/",
        "title": title,
        "body": body,
    }
    return Message(
        title=title,
        body=body,
        data=data,
        collapse_key=f"game-{game_id}" if game_id else f"{push.kind}-{push.cause}"[:64],
        badge=count,
        urgent=push.kind == PushKind.TIME_ALMOST_UP,
        ttl=TTL_SECONDS,
    )
