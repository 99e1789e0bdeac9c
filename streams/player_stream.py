"""The stream of one player: his notices after the cursor, then his turns, then live.

``catch_up`` reads on the database thread the notices after the cursor (each with ``id:`` its
seq) and the games that await him now (``Seat.awaiting``, kept by the store at every save): a
``your_turn`` for each game and version not told yet, and a ``call_pending`` when what awaits
him is the answer to a call.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

from games import engine
from games.models import GameId, Seat
from games.store.log import get_game, load_state
from streams import bus, hub, sse
from streams.limits import Claim
from streams.live import Step, follow
from streams.models import PlayerFeed, PlayerNotice
from streams.notices import CALL_PENDING, YOUR_TURN, notice_item

BATCH = 500

#: A game awaiting the player: (game id, version, seat).
Turn = tuple[Any, int, int]


@dataclass(frozen=True)
class PlayerCursor:
    player_id: int
    after: int
    told: frozenset[Turn] = frozenset()


def last_seq(player_id: int) -> int:
    found = PlayerFeed.objects.filter(pk=player_id).values_list("last_seq", flat=True).first()
    return found or 0


def awaiting(player_ids: list[int]) -> dict[int, frozenset[Turn]]:
    rows = Seat.objects.filter(player_id__in=player_ids, awaiting=True).values_list(
        "player_id", "game_id", "game__version", "number"
    )
    found: dict[int, set[Turn]] = defaultdict(set)
    for player_id, game_id, version, seat in rows:
        found[player_id].add((game_id, version, seat))
    return {player_id: frozenset(turns) for player_id, turns in found.items()}


def marks(player_ids: list[int]) -> dict[int, Any]:
    """The probe: each player's last notice and the games awaiting him, two queries for all."""
    feeds = dict(PlayerFeed.objects.filter(pk__in=player_ids).values_list("pk", "last_seq"))
    turns = awaiting(player_ids)
    return {key: (feeds.get(key, 0), turns.get(key, frozenset())) for key in player_ids}


hub.register_probe("player", marks)


def catch_up(cursor: PlayerCursor) -> tuple[list[bytes], PlayerCursor, Any]:
    """The messages from ``cursor`` to now, the new cursor, and the probe's mark of it."""
    chunks: list[bytes] = []
    player_id = cursor.player_id
    while True:
        notices = list(
            PlayerNotice.objects.filter(player_id=player_id, seq__gt=cursor.after)[:BATCH]
        )
        chunks += [sse.message(notice_item(n), event=n.kind, id=n.seq) for n in notices]
        if notices:
            cursor = replace(cursor, after=notices[-1].seq)
        if len(notices) < BATCH:
            break
    turns = awaiting([player_id]).get(player_id, frozenset())
    for turn in sorted(turns - cursor.told, key=str):
        chunks += _turn_messages(*turn)
    return chunks, replace(cursor, told=turns), (cursor.after, turns)


def _turn_messages(game_id: GameId, version: int, seat: int) -> list[bytes]:
    game = get_game(game_id)
    if game.version != version:
        return []  # moved on since: the next read tells the new turn
    view = engine.view_for(load_state(game), seat)  # the seat's own projection
    call = (view.get("hand") or {}).get("pending_call")
    turn = {
        "game_id": str(game_id),
        "version": version,
        "seat": seat,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "call": call,
    }
    messages = [sse.message(turn, event=YOUR_TURN)]
    if call is not None:
        messages.append(sse.message(turn, event=CALL_PENDING))
    return messages


def catch_up_many(cursors: list[PlayerCursor]) -> dict[PlayerCursor, Any]:
    """``catch_up`` of every player stream woken at once, on the hub's database threads (not
    the one sync thread every request's synchronous parts share)."""
    return {cursor: catch_up(cursor) for cursor in cursors}


def live(cursor: PlayerCursor, digest: str, claim: Claim) -> AsyncIterator[bytes]:
    async def read(watch: hub.Watch) -> Step:
        nonlocal cursor
        chunks, cursor, mark = await hub.hub().read(catch_up_many, cursor, watch)
        watch.seen["player"] = (cursor.player_id, mark)
        return Step(chunks)

    topic = bus.player_topic(cursor.player_id)
    return follow([topic], cursor.player_id, digest, claim, read)
