"""The long poll (``GET /api/games/{id}/events/wait``), kept for clients that cannot read a
stream: a thin layer over the streams' notification path. A wait is a hub watch on the game
(woken by the same notification, or caught by the same check), not a thread polling the
database; it counts toward the same caps as a stream."""

from __future__ import annotations

import time
from typing import Any

from asgiref.sync import sync_to_async

from games.errors import CursorAhead
from games.models import Game, GameId
from games.selectors import feed_page, visible_game
from players.models import Player
from streams import bus, game_stream, hub
from streams.limits import limits


async def wait_for_events(game: Game, player_id: int, after: int, timeout: float) -> Game:
    """Until the game has events after ``after`` or ``timeout`` passes: the game as it is then."""
    here = hub.hub()
    claim = await limits(here).claim(player_id)
    watch = hub.Watch([bus.game_topic(game.pk)])
    here.add(watch)
    limits(here).attach(claim, watch)
    deadline = time.monotonic() + timeout
    try:
        version = game.version
        while version <= after:
            watch.seen["game"] = (game.pk, game_stream.mark(game))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return game
            await watch.wait(remaining)
            game = await sync_to_async(Game.objects.get)(pk=game.pk)
            version = game.version
        return game
    finally:
        here.remove(watch)
        await limits(here).release(claim)


def opened(game_id: GameId, player: Player, after: int) -> tuple[Game, int | None]:
    game, seat = visible_game(game_id, player)
    if after > game.version:
        raise CursorAhead(game.version)
    return game, seat


def feed(game: Game, seat: int | None, after: int, limit: int) -> dict[str, Any]:
    """The feed's page (the same as ``GET /api/games/{id}/events``), read after the wait."""
    return feed_page(game, seat, after, limit)


def answers_at_once(game: Game, after: int, timeout: float) -> bool:
    return timeout <= 0 or game.version > after or game.status in game_stream.OVER
