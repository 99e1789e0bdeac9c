"""The stream of one game: its log as the reader may see it, then a view after each batch.

``catch_up`` reads, on the database thread, everything after the reader's cursor up to the
game's version (the events, projected by ``selectors.feed_item`` exactly as the REST feed is),
and the reader's new view when it changed; ``live`` repeats it each time the hub wakes the
stream, with heartbeats between. The seat is found again at each read (a player who left an
open game is a spectator again), and a game that became hidden from the reader ends the stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass, replace
from typing import Any

from asgiref.sync import sync_to_async

from games.errors import GameNotFound
from games.models import Game
from games.selectors import etag, feed_item, game_payload, hidden_from, viewer_seat
from games.store import get_game, load_events, load_state
from streams import bus, hub, sse
from streams.limits import Claim
from streams.live import Step, follow

#: Events read at once; a longer backlog is read in several batches, each sent as it is read.
BATCH = 500
OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


@dataclass(frozen=True)
class Cursor:
    """Where a reader is: the last seq sent, the view's ETag, and what the hub compares."""

    game_id: Any
    after: int
    tag: str | None = None
    mark: Any = None
    over: bool = False


def mark(game: Game) -> tuple[int, str, int]:
    """What changes when the reader's view may: the log's version and the lobby's last change."""
    return (game.version, game.status, int(game.updated_at.timestamp() * 1_000_000))


def marks(game_ids: list[Hashable]) -> dict[Hashable, Any]:
    """The probe: ``mark`` of many games in one query."""
    rows = Game.objects.filter(pk__in=game_ids).values_list("pk", "version", "status", "updated_at")
    return {pk: (v, status, int(at.timestamp() * 1_000_000)) for pk, v, status, at in rows}


hub.register_probe("game", marks)


def catch_up(cursor: Cursor, player: Any) -> tuple[list[bytes], Cursor]:
    """The messages that bring the reader from ``cursor`` to the game's version."""
    chunks: list[bytes] = []
    while True:
        game = get_game(cursor.game_id)
        seat = viewer_seat(game, player)
        if hidden_from(seat, game.visibility):
            raise GameNotFound()
        rows = [row for row in load_events(game, cursor.after, BATCH) if row.seq <= game.version]
        chunks += [_event(feed_item(row, seat)) for row in rows]
        after = rows[-1].seq if rows else cursor.after
        cursor = replace(cursor, after=after, mark=mark(game))
        if after >= game.version:
            break
    tag = etag(game, seat)
    if tag != cursor.tag:
        state = load_state(game) if game.version else None
        chunks.append(sse.message(game_payload(game, state, seat), event="view"))
    return chunks, replace(cursor, tag=tag, over=game.status in OVER)


def _event(item: dict[str, Any]) -> bytes:
    return sse.message(item, event=item["type"], id=item["seq"])


def live(cursor: Cursor, player: Any, digest: str, claim: Claim) -> AsyncIterator[bytes]:
    """Catch up, then follow: until the game is over, the token revoked, or the client gone."""

    async def read(watch: hub.Watch) -> Step:
        nonlocal cursor
        try:
            chunks, cursor = await sync_to_async(catch_up)(cursor, player)
        except GameNotFound:  # deleted, or private and the reader no longer seated
            return Step([], end="not_found")
        watch.seen["game"] = (cursor.game_id, cursor.mark)
        return Step(chunks, end="game_over" if cursor.over else None)

    return follow([bus.game_topic(cursor.game_id)], player.pk, digest, claim, read)
