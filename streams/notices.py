"""A player's notices: what his stream (``GET /api/stream``) tells him, kept so it can resume.

Any app tells players something with ``notify_players([(player_id, kind, data), ...])`` inside its
own transaction (the lobby: a challenge, a match found); the notice commits or rolls back with it,
and his streams are woken after commit. ``data`` is plain JSON and must hold only what this
player may see. The game log's own notices (a game started or ended, a rating changed, a deadline
near, a player joined your open game) are written here by ``streams.receivers``.

"Your turn" and "a call is pending" are not notices: they are the state of his games now
(``Seat.awaiting``), which his stream tells on connecting and whenever it changes, so an app back
from the background is told its current turns at once instead of every old one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db import transaction

from streams import bus
from streams.models import PlayerFeed, PlayerNotice

GAME_STARTED = "game_started"
GAME_ENDED = "game_ended"
RATING_CHANGED = "rating_changed"
DEADLINE_NEAR = "deadline_near"
PLAYER_JOINED = "player_joined"
#: Told from the state of the player's games, never stored (no ``id:``).
YOUR_TURN = "your_turn"
CALL_PENDING = "call_pending"

Notice = tuple[int, str, dict[str, Any]]  # player id, kind, data


def notify_players(notices: Iterable[Notice]) -> None:
    """Append notices, each to its player's log. Each feed row is locked until commit, in player
    order (a transaction that notifies several players never deadlocks another that does): take
    these locks last, after any game lock."""
    by_player: dict[int, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for player_id, kind, data in notices:
        by_player[player_id].append((kind, data))
    if not by_player:
        return
    with transaction.atomic():
        rows = []
        for player_id in sorted(by_player):
            feed, _ = PlayerFeed.objects.select_for_update().get_or_create(player_id=player_id)
            for kind, data in by_player[player_id]:
                feed.last_seq += 1
                rows.append(
                    PlayerNotice(player_id=player_id, seq=feed.last_seq, kind=kind, data=data)
                )
            feed.save(update_fields=["last_seq"])
        PlayerNotice.objects.bulk_create(rows)
        bus.publish_on_commit(bus.player_topic(player_id) for player_id in by_player)


def notice_item(notice: PlayerNotice) -> dict[str, Any]:
    return {
        "seq": notice.seq,
        "kind": notice.kind,
        "at": notice.created_at.isoformat(),
        "data": notice.data,
    }
