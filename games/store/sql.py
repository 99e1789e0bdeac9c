"""The event store's hand-written SQL: PostgreSQL's, and only PostgreSQL's.

The statements of an action, a read, a sweep and a streams process on the game's tables are
written out here because building each through the ORM's compiler costs several times what
running it costs (the floor bench, bench/README.md), and because the ORM has neither a UNION of two
models' columns (``snapshots_and_tails``) nor psycopg's pipeline (``games_and_events``). Every
function here runs on PostgreSQL only: the store's other modules choose, once a call,
``postgresql()`` or the ORM, and on SQLite (``make run``'s default database) the ORM does the same
work in its own way, so no statement here has a second dialect.

Rows become model instances through Django's own ``raw()``, or ``Model.from_db`` where the
columns are known in advance (``truc_api.rows.instances``); values are written as the models'
fields prepare them (``params``). A game's id is passed as a ``uuid.UUID``, which psycopg sends
as PostgreSQL's ``uuid``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from games.models import Game, GameEvent, Seat
from truc_api.rows import instances


def postgresql() -> bool:
    """Whether this module's statements apply: the database is PostgreSQL."""
    return connection.vendor == "postgresql"


# --- reads --------------------------------------------------------------------------------------

#: Every column of the game row but its copy of the last snapshot, which only a fold that misses
#: the recent states reads (``snapshots_and_tails``): it stays deferred on the instance.
GAME_FIELDS = [field for field in Game._meta.concrete_fields if field.name != "snapshot"]
_SEAT_FIELDS = Seat._meta.concrete_fields
_EVENT_FIELDS = GameEvent._meta.concrete_fields
#: The seat's player's names, read with the seat (``store.log.seat_names``).
NAMES = ("display_name", "username")

_GAME_READ = "SELECT {} FROM games_game".format(", ".join(str(f.column) for f in GAME_FIELDS))
_GAME = _GAME_READ + " WHERE id = %s"
_GAMES = _GAME_READ + " WHERE id = ANY(%s)"
_OVERDUE = (
    _GAME_READ + " WHERE status = %s AND deadline <= %s ORDER BY deadline LIMIT %s"
    " FOR UPDATE SKIP LOCKED"
)
_SEATS_WITH_NAMES = (
    "SELECT {}, p.display_name, p.username"
    " FROM games_seat s JOIN players_player p ON p.id = s.player_id"
).format(", ".join(f"s.{field.column}" for field in _SEAT_FIELDS))
_SEATS = _SEATS_WITH_NAMES + " WHERE s.game_id = %s ORDER BY s.number"
_SEATS_OF_GAMES = _SEATS_WITH_NAMES + " WHERE s.game_id = ANY(%s) ORDER BY s.game_id, s.number"
# Each game row's copy of its last snapshot and the events after it, read at one moment (an
# action may commit between two statements of a read, with a new snapshot).
_SNAPSHOTS_AND_TAILS = (
    "SELECT id, 0, snapshot_seq, snapshot FROM games_game"
    " WHERE id = ANY(%s) AND snapshot IS NOT NULL"
    " UNION ALL SELECT e.game_id, 1, e.seq, e.payload FROM games_gameevent e"
    " JOIN games_game g ON g.id = e.game_id WHERE g.id = ANY(%s) AND e.seq > g.snapshot_seq"
    " ORDER BY 1, 2, 3"
)
_ETAG_PARTS = (
    "SELECT g.version, g.status, g.updated_at, g.visibility, s.number FROM games_game g"
    " LEFT JOIN games_seat s ON s.game_id = g.id AND s.player_id = %s WHERE g.id = %s"
)
# One text whatever the number of keys, so each is prepared once (``prepare_threshold``).
_EVENTS_AFTER = (
    "SELECT {} FROM unnest(%s::uuid[], %s::integer[]) AS k(game_id, after)"
    " JOIN games_gameevent e ON e.game_id = k.game_id AND e.seq > k.after"
    " AND e.seq <= k.after + %s ORDER BY e.game_id, e.seq"
).format(", ".join(f"e.{field.column}" for field in _EVENT_FIELDS))


def etag_parts(pk: uuid.UUID, player_id: Any) -> tuple[int, str, datetime, str, int | None] | None:
    """(version, status, updated_at, visibility, the player's seat or None) of a game, or None
    when there is no such game: what its ETag for the player is made of."""
    with connection.cursor() as cursor:
        cursor.execute(_ETAG_PARTS, [player_id, pk])
        found: tuple[int, str, datetime, str, int | None] | None = cursor.fetchone()
        return found


def game(pk: uuid.UUID, *, lock: bool) -> Game | None:
    """The game row of ``pk`` (locked until the transaction ends: ``lock``), or None."""
    return next(iter(Game.objects.raw(_GAME + (" FOR UPDATE" if lock else ""), [pk])), None)


def overdue(now: datetime, limit: int) -> list[Game]:
    """Up to ``limit`` active games past their deadline, oldest first, locked; the games
    another transaction holds are skipped."""
    return list(Game.objects.raw(_OVERDUE, [Game.Status.ACTIVE, now, limit]))


def seats(pk: uuid.UUID) -> list[Seat]:
    """The seats of one game in number order, each with its player's ``NAMES``."""
    return list(Seat.objects.raw(_SEATS, [pk]))


def seats_of_games(pks: list[uuid.UUID]) -> list[Seat]:
    """The seats of many games, in (game, number) order, each with its player's ``NAMES``."""
    return list(Seat.objects.raw(_SEATS_OF_GAMES, [pks]))


def snapshots_and_tails(pks: list[uuid.UUID]) -> list[tuple[uuid.UUID, int, Any]]:
    """(game id, kind, value) by game then seq: kind 0 the game row's copy of its last snapshot,
    if any, then kind 1 the payload of each event after it. One statement for every game."""
    with connection.cursor() as cursor:
        cursor.execute(_SNAPSHOTS_AND_TAILS, [pks, pks])
        return [(game_id, kind, value) for game_id, kind, _, value in cursor.fetchall()]


def games_and_events(
    keys: list[tuple[uuid.UUID, int]], most: int
) -> tuple[list[Game], list[Seat], list[GameEvent]]:
    """The games of ``keys`` (game id, the last seq a reader has), their seats in (game, number)
    order, and each key's next events (at most ``most``) in (game, seq) order: the three
    statements in one pipeline, one round trip for the whole read instead of three (each a wait
    for the server and for the reading thread to run again)."""
    ids = list(dict.fromkeys(pk for pk, _ in keys))
    params: list[Any] = [[pk for pk, _ in keys], [after for _, after in keys], most]
    # The errors of a pipeline come at its end, outside the cursors' own wrapping: Django's
    # error classes for them too (a read thread retries on a dead connection, streams/hub.py).
    with (
        connection.wrap_database_errors,
        connection.cursor() as games_read,
        connection.cursor() as seats_read,
        connection.cursor() as events_read,
    ):
        with connection.connection.pipeline():
            games_read.execute(_GAMES, [ids])
            seats_read.execute(_SEATS_OF_GAMES, [ids])
            events_read.execute(_EVENTS_AFTER, params)
        db = games_read.db
        return (
            instances(Game, GAME_FIELDS, games_read.fetchall(), db),
            instances(Seat, _SEAT_FIELDS, seats_read.fetchall(), db, NAMES),
            instances(GameEvent, _EVENT_FIELDS, events_read.fetchall(), db),
        )


# --- writes -------------------------------------------------------------------------------------

#: A column an event changes is in ``GAME_COLUMNS`` (``store.records`` checks what it sets
#: against it); the rules and the other fixed columns never change.
GAME_COLUMNS: tuple[str, ...] = ("version", "turn", "scores", "camas", "updated_at", "status")
GAME_COLUMNS += ("rated", "winner_side", "end_reason", "started_at", "finished_at", "deadline")
#: A deal also copies its snapshot to the game row.
DEALT_GAME_COLUMNS = (*GAME_COLUMNS, "snapshot", "snapshot_seq")
SEAT_COLUMNS = ("awaiting", "timeouts", "has_acted")
_EVENT_COLUMNS: tuple[str, ...] = ("game_id", "seq", "type", "schema_version", "payload")
_EVENT_COLUMNS += ("actor_id", "seat", "created_at")

_INSERT_EVENT = "INSERT INTO games_gameevent ({}) VALUES ({})".format(
    ", ".join(_EVENT_COLUMNS), ", ".join(["%s"] * len(_EVENT_COLUMNS))
)
_UPDATE_GAME, _UPDATE_DEALT_GAME = (
    "UPDATE games_game SET {} WHERE id = %s".format(", ".join(f"{c} = %s" for c in columns))
    for columns in (GAME_COLUMNS, DEALT_GAME_COLUMNS)
)
_UPDATE_SEAT = "UPDATE games_seat SET {} WHERE id = %s".format(
    ", ".join(f"{column} = %s" for column in SEAT_COLUMNS)
)


def insert_events(rows: Sequence[GameEvent]) -> None:
    """The events, in one statement for every row (``executemany``: psycopg sends the rows
    together)."""
    with connection.cursor() as cursor:
        values = [params(row, _EVENT_COLUMNS, cursor.db) for row in rows]
        cursor.executemany(_INSERT_EVENT, values)


def update_games(games: Sequence[Game], dealt: Sequence[Game]) -> None:
    """The game rows' ``GAME_COLUMNS``, and those of the ``dealt`` games with their snapshot's
    copy: a statement for each kind, for every row."""
    with connection.cursor() as cursor:
        db = cursor.db
        for sql, changed, columns in (
            (_UPDATE_GAME, games, GAME_COLUMNS),
            (_UPDATE_DEALT_GAME, dealt, DEALT_GAME_COLUMNS),
        ):
            if changed:
                cursor.executemany(sql, [[*params(g, columns, db), g.pk] for g in changed])


def update_seats(seats: Sequence[Seat]) -> None:
    """The seats' ``SEAT_COLUMNS``, one statement for every row."""
    if seats:
        with connection.cursor() as cursor:
            values = [[*params(seat, SEAT_COLUMNS, cursor.db), seat.pk] for seat in seats]
            cursor.executemany(_UPDATE_SEAT, values)


def params(instance: Any, columns: tuple[str, ...], db: BaseDatabaseWrapper) -> list[Any]:
    """The values of ``columns`` of a model instance, as its fields write them for ``db`` (JSON
    adapted...): the cursor's connection itself, not the ``connection`` proxy, which looks it up
    again at every use."""
    return [
        field.get_db_prep_save(getattr(instance, field.attname), db)
        for field in _fields(type(instance), columns)
    ]


def _fields(model: type[Model], columns: tuple[str, ...]) -> tuple[Field[Any, Any], ...]:
    """The fields of ``columns``, looked up once: a sweep prepares thousands of rows' values."""
    found = _FIELDS.get((model, columns))
    if found is None:
        found = tuple(_concrete(model._meta.get_field(name)) for name in columns)
        _FIELDS[(model, columns)] = found
    return found


def _concrete(field: Any) -> Field[Any, Any]:
    assert isinstance(field, Field)  # a column, never a reverse relation
    return field


_FIELDS: dict[tuple[type[Model], tuple[str, ...]], tuple[Field[Any, Any], ...]] = {}
