"""Webhook bodies, built from the receiver's own view of the game and nothing else.

Events pass through ``selectors.feed_item`` (``engine.redact_json``), the state through
``engine.view_for``: the subscriber's own cards appear, another seat's unplayed card never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from games import engine
from games.models import Game, GameEvent
from games.selectors import feed_item


def payload(
    kind: str, game: Game, seat: int, state: engine.State, rows: Sequence[GameEvent] = ()
) -> dict[str, Any]:
    """The Standard Webhooks shape: ``type``, ``timestamp`` and ``data``."""
    view = engine.view_for(state, seat)
    for key in ("rules", "version", "seat"):  # the game's own fields say these
        del view[key]
    return {
        "type": kind,
        "timestamp": timezone.now().isoformat(),
        "data": {
            "game_id": str(game.pk),
            "version": game.version,
            "seat": seat,
            "status": game.status,
            "deadline": game.deadline.isoformat() if game.deadline else None,
            "events": [feed_item(row, seat) for row in rows],
            "state": view,
        },
    }
