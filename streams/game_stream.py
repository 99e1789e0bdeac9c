"""The stream of one game: its log as the reader may see it, then a view after each batch.

``read_many`` takes, on a database thread, for every (game, cursor) readers wait on at once, the
events after the cursor up to the game's version and every seat's projection of them
(``selectors.feed_item``, exactly as the REST feed projects) and of the view, in one round trip
to PostgreSQL for all the games (``batch_read.read_games_and_events``); ``project`` hands a reader
his seat's part. ``live`` does it each time the hub wakes the stream, with heartbeats between:
every reader woken by one notification is served by one read, and the games woken while a read
is in flight by the next (``Hub.read``). ``catch_up`` does it once (a stream served through
WSGI). The seat is found again at each read (a player who left an open game is a spectator
again), and a game that became hidden from the reader ends the stream.

A move's notification carries what a read of it would give (``offer``), made by the process that
recorded the move from the rows and the state it had in hand: a stream woken only by such
notifications takes them while each continues from its cursor (``_from_offers``), with no read at
all; any other wake (a notification without one, a gap between them, a stream's first step)
reads as above.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from games import engine
from games.errors import GameNotFound
from games.models import Game, GameEvent, GameId
from games.selectors import etag, feed_item, game_payload, rating_changes_of
from games.store.batch_read import read_games_and_events, states_after
from games.store.log import seats_of
from players.models import Player
from streams import bus, hub, presence, sse
from streams.limits import Claim
from streams.live import Step, follow

#: Events read at once; a longer backlog is read in several batches, each sent as it is read.
BATCH = 500
OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


@dataclass(frozen=True)
class Cursor:
    """Where a reader is: the last seq sent, the view's ETag, and what the hub compares."""

    game_id: GameId
    after: int
    tag: str | None = None
    mark: Any = None
    over: bool = False


def mark(game: Game) -> tuple[int, str, int]:
    """What changes when the reader's view may: the log's version and the lobby's last change."""
    return (game.version, game.status, int(game.updated_at.timestamp() * 1_000_000))


def marks(game_ids: list[uuid.UUID]) -> dict[uuid.UUID, Any]:
    """The probe: ``mark`` of many games in one query."""
    rows = Game.objects.filter(pk__in=game_ids).values_list("pk", "version", "status", "updated_at")
    return {pk: (v, status, int(at.timestamp() * 1_000_000)) for pk, v, status, at in rows}


hub.register_probe("game", marks)


@dataclass(frozen=True)
class Projection:
    """What one seat (None: a spectator) is sent from a ``GameRead``: the events, and the view with
    its ETag (sent when the reader's last differs)."""

    events: list[bytes]
    tag: str | None
    view: bytes | None


@dataclass(frozen=True)
class GameRead:
    """One read of a game: the events after a cursor up to the row's version and every seat's
    projection of them and of the view. Every reader of the game at that cursor is served from
    it (``Hub.read``), so a move followed by many readers costs a share of one read of the
    database and one projection a seat, and a reader's wake none of the database thread's time."""

    game_id: GameId
    last_seq: int | None  # of the events read; None when there were none
    complete: bool  # the events reach the row's version (else: read again at once)
    over: bool
    mark: Any
    private: bool
    seats: dict[int, int]  # player id -> seat
    projections: dict[int | None, Projection]


#: A reader's wait: (game id, the last seq he has).
Key = tuple[uuid.UUID, int]


def read_many(keys: list[Key]) -> dict[Key, GameRead]:
    """A game_read for every (game, cursor) that readers wait on, in one round trip for all of
    them (the games with their seats and the events; the states folded on in memory): the hub
    gathers every key asked while a read is in flight into the next (``Hub.read``). A game that
    is gone is left out."""
    found, read = read_games_and_events(keys, BATCH)
    games = {game.pk: game for game in found}
    ranges = [(game_id, after, _upto(games[game_id], after)) for game_id, after in keys
              if game_id in games]  # fmt: skip
    # Up to each game row's version: the events' statement may have seen a later commit.
    rows = {game_id: [row for row in read[game_id] if row.seq <= games[game_id].version]
            for game_id in games}  # fmt: skip
    # The state of each game a reader is brought up to (its view goes with the last events).
    ready = list({game_id: games[game_id] for game_id, _, upto in ranges
                  if upto == games[game_id].version > 0}.values())  # fmt: skip
    states = dict(zip([game.pk for game in ready], states_after(ready, rows), strict=True))
    return {
        (game_id, after): _game_read(
            games[game_id],
            [row for row in rows[game_id] if after < row.seq <= upto],
            complete=upto == games[game_id].version,
            state=states.get(game_id),
        )
        for game_id, after, upto in ranges
    }


def _upto(game: Game, after: int) -> int:
    return min(game.version, after + BATCH)


def read(game_id: GameId, after: int) -> GameRead:
    try:
        key = (game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(game_id), after)
    except ValueError:
        raise GameNotFound() from None
    found = read_many([key]).get(key)
    if found is None:
        raise GameNotFound()
    return found


def _game_read(
    game: Game, rows: list[GameEvent], complete: bool, state: engine.State | None
) -> GameRead:
    seats = {seat.player_id: seat.number for seat in seats_of(game)}
    projections = {}
    # Read once for every viewer kind's view (a finished game's only).
    changes = rating_changes_of(game) if complete else []
    for seat in [None, *sorted(set(seats.values()))]:
        events = [_event(feed_item(row, seat)) for row in rows]
        if complete:
            view = sse.message(game_payload(game, state, seat, changes), event="view")
            projections[seat] = Projection(events, etag(game, seat), view)
        else:
            projections[seat] = Projection(events, None, None)
    return GameRead(
        game_id=game.pk,
        last_seq=rows[-1].seq if rows else None,
        complete=complete,
        over=game.status in OVER,
        mark=mark(game),
        private=game.visibility == Game.Visibility.PRIVATE,
        seats=seats,
        projections=projections,
    )


def offer(game: Game, rows: Sequence[GameEvent], state: engine.State) -> bytes:
    """What a move's notification carries for its game's streams: the game_read of its events
    (``rows``, just committed, and ``state`` after them) that a read at the seq before them
    would give, every viewer kind's projection made once, here."""
    found = _game_read(game, list(rows), complete=True, state=state)
    return orjson.dumps(
        {
            "game": str(game.pk),
            "after": rows[0].seq - 1,
            "last_seq": found.last_seq,
            "over": found.over,
            "mark": found.mark,
            "private": found.private,
            "seats": list(found.seats.items()),
            "projections": [
                [seat, [event.decode() for event in made.events], made.tag, _text(made.view)]
                for seat, made in found.projections.items()
            ],
        }
    )


def _text(view: bytes | None) -> str | None:
    return None if view is None else view.decode()


def offered(data: bytes) -> tuple[int, GameRead]:
    """An offer read back (``Hub.poke_many``, once a process): its cursor, and its ``GameRead``."""
    try:
        found = orjson.loads(data)
        game_read = GameRead(
            game_id=uuid.UUID(found["game"]),
            last_seq=found["last_seq"],
            complete=True,
            over=found["over"],
            mark=tuple(found["mark"]),  # compared with the probe's tuple (``marks``)
            private=found["private"],
            seats={player: seat for player, seat in found["seats"]},
            projections={
                seat: Projection([event.encode() for event in events], tag, view and view.encode())
                for seat, events, tag, view in found["projections"]
            },
        )
        return int(found["after"]), game_read
    except (KeyError, TypeError) as error:
        raise ValueError(f"not an offer: {error}") from None


hub.register_offer("game", offered)


def _from_offers(kept: dict[Any, GameRead], after: int) -> GameRead | None | bool:
    """What the offers kept give a reader at ``after``: the one that continues from there; True
    when none holds a move he lacks (a read saw them first); None when one does but none starts
    where he is (a move between was lost, comes late, or was dropped as old): he must read."""
    found = kept.get(after)
    if found is not None:
        return found
    if all(
        game_read.last_seq is not None and game_read.last_seq <= after
        for game_read in kept.values()
    ):
        return True
    return None


def project(game_read: GameRead, cursor: Cursor, player_id: int) -> tuple[list[bytes], Cursor]:
    """The reader's messages from a ``GameRead`` (no database: the event loop does it). His seat is
    found again each time: a player who left an open game is a spectator again."""
    seat = game_read.seats.get(player_id)
    if seat is None and game_read.private:
        raise GameNotFound()
    projection = game_read.projections[seat]
    chunks = list(projection.events)
    after = cursor.after if game_read.last_seq is None else game_read.last_seq
    # One new cursor a wake, made directly: this runs for every reader of every move, and
    # ``dataclasses.replace`` (twice) showed in the streams process's profile.
    if not game_read.complete:
        return chunks, Cursor(cursor.game_id, after, cursor.tag, game_read.mark, cursor.over)
    if projection.tag != cursor.tag and projection.view is not None:
        chunks.append(projection.view)
    return chunks, Cursor(cursor.game_id, after, projection.tag, game_read.mark, game_read.over)


def catch_up(cursor: Cursor, player: Player) -> tuple[list[bytes], Cursor]:
    """The messages that bring the reader from ``cursor`` to the game's version (WSGI: once)."""
    chunks: list[bytes] = []
    while True:
        game_read = read(cursor.game_id, cursor.after)
        more, cursor = project(game_read, cursor, player.pk)
        chunks += more
        if game_read.complete:
            return chunks, cursor


def _event(item: dict[str, Any]) -> bytes:
    return sse.message(item, event=item["type"], id=item["seq"])


def live(cursor: Cursor, player: Player, digest: str, claim: Claim) -> AsyncIterator[bytes]:
    """Catch up, then follow: until the game is over, the token revoked, or the client gone."""

    here = hub.hub()

    topic = bus.game_topic(cursor.game_id)
    read_next = False  # a read left events beyond its batch: the next step reads them

    async def step(watch: hub.Watch) -> Step:
        nonlocal cursor, read_next
        kept = here.offers.get(topic)
        # Offers alone only when every poke since the last wait carried one (``Watch.plain``).
        found = None if read_next or watch.plain or not kept else _from_offers(kept, cursor.after)
        if found is True:
            return Step([])
        try:
            if isinstance(found, GameRead):
                game_read = found
            else:
                key = (cursor.game_id, cursor.after)
                game_read = await here.read(read_many, key, watch)
            if game_read is None:
                raise GameNotFound()
            chunks, cursor = project(game_read, cursor, player.pk)
        except GameNotFound:  # deleted, or private and the reader no longer seated
            return Step([], end="not_found")
        await presence.amark(here.redis, player.pk, cursor.game_id)  # no push about it now
        watch.seen["game"] = (cursor.game_id, cursor.mark)
        read_next = not game_read.complete
        if cursor.over:
            return Step(chunks, end="game_over")
        # More moves offered meanwhile, or more of a long backlog: at once, not after a wait.
        again = read_next or (
            isinstance(found, GameRead) and cursor.after in here.offers.get(topic, {})
        )
        return Step(chunks, again=again)

    return follow([topic], player.pk, digest, claim, step)
