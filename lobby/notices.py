"""Telling players what the lobby did: on each player's stream (``GET /api/stream``, a notice
of the same kind), as webhooks of the lobby's kinds, through the outbox, and as pushes to their
devices of the kinds pushed (push/outbox.py).

Every notice is written in the transaction that made it true and sent after it commits. A body
holds ids and settings only, never a name (a deleted account's name must not outlive it in a
stored notice) and never anything of a game's state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.models import GameId
from notifications.models import Kind
from notifications.services import notify_players
from push import outbox as push
from streams.notices import notify_players as tell_streams


def tell(
    player_ids: Iterable[int],
    kind: Kind,
    *,
    game_id: GameId | None = None,
    by: int | None = None,
    **data: Any,
) -> None:
    """``by``: the player whose doing it is, named in a push's text only (a stored body holds no
    name, and the webhooks' bodies say who in their own ids)."""
    ids = sorted(set(player_ids))
    if not ids:
        return
    body = {
        key: str(value) if key.endswith("_id") and value else value for key, value in data.items()
    }
    if game_id is not None:
        body["game_id"] = str(game_id)
    notify_players(ids, kind, body, game_id=game_id)
    push.tell(ids, kind, game_id, body, by=by)
    tell_streams((player, kind.value, body) for player in ids)
