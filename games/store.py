"""The event store: every read and write of a game's log, and the read models kept with it.

Like the ``eventsourcing`` library's PostgreSQL recorder, this module owns the log and writes it out
explicitly: ``lock_game`` locks a game row (every writer of a game goes through it, and holds the
lock for the whole transaction, so ``seq`` is gapless and ``UNIQUE(game, seq)`` is only a
backstop); ``load_state`` reads the last snapshot and the log's tail; a ``Recorder`` appends events
and brings the game row, its seats and the hand, cama and snapshot records up to date, in a few
statements (``save_all`` writes those of many games together: the timeout sweep).

The statements an action, a read or a sweep makes on these tables are written out here: building
each through the ORM's compiler cost several times what running it costs (bench/README.md, "The
floor"); they are the project's only hand-written SQL (with ``one_moment``'s isolation level,
which the ORM cannot set). Rows become model instances through Django's own ``raw()``, values are
written as the models' fields prepare them, and the rest (the records written once a hand) goes
through the ORM.

After the events are written ``games.signals.events_recorded`` is sent within the transaction
(the outbox's writes commit with them), and ``games.signals.events_committed`` once it commits
(clocks, bots, ratings, streams follow it): this module knows none of them.
"""

from __future__ import annotations

import copy
import json
import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import reduce
from typing import Any, TypeVar

import structlog
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from knox.models import AuthToken

from games import clock, engine, signals
from games.engine import events as ev
from games.errors import GameNotFound
from games.models import CamaRecord, Game, GameEvent, GameId, HandRecord, HandSnapshot, Seat
from players.models import Player

logger = structlog.get_logger(__name__)
_M = TypeVar("_M", bound=Model)
_shuffler = secrets.SystemRandom()  # the deal's shuffle: a CSPRNG, never `random` (RULES.md §1)


def lock_game(game_id: GameId) -> Game:
    """The game row, locked until the transaction ends: every writer of a game goes through here.
    Its seats are read after the lock is granted (a second statement), so they are current."""
    return get_game(game_id, lock=True)


@contextmanager
def one_moment() -> Iterator[None]:
    """Reads inside see the database as of one moment: on PostgreSQL a REPEATABLE READ
    transaction, whose snapshot is taken at its first statement. A game row and its log read by
    two statements could otherwise come from either side of an action's commit. Inside another
    transaction (its snapshot rules are the caller's), and on SQLite (whose transactions here
    take the write lock at BEGIN), nothing is added."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def get_game(game_id: GameId, *, lock: bool = False) -> Game:
    """One game by id with its seats (``seats_of``). A missing game and a malformed id are both
    ``GameNotFound``. The snapshot column is left out (deferred): only a fold that misses the
    recent states reads it, with the tail (``load_state``)."""
    try:
        pk = _key(game_id)
    except (ValueError, TypeError, ValidationError):
        raise GameNotFound() from None
    locking = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    game = next(iter(Game.objects.raw(_GAME + locking, [pk])), None)
    if game is None:
        raise GameNotFound()
    seats_of(game)
    return game


def lock_overdue(now: datetime, limit: int) -> list[Game]:
    """Up to ``limit`` active games whose deadline has passed, oldest first, each with its
    seats (two statements in all), locked until the transaction ends. Games another transaction
    holds (a move, a timeout's task, another sweep) are skipped, not waited for: their holder
    moves them on or leaves them to the next sweep."""
    locking = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update else ""
    games = list(Game.objects.raw(_OVERDUE + locking, [Game.Status.ACTIVE, now, limit]))
    _read_seats(games)
    return games


def get_games(game_ids: Sequence[GameId]) -> list[Game]:
    """The games of these (well-formed) ids that exist, each with its seats: two statements
    for all of them (a stream process reads every game a notification woke at once)."""
    keys = [_key(pk) for pk in dict.fromkeys(game_ids)]
    games: list[Game] = []
    for part in _parts(keys):
        marks = ", ".join(["%s"] * len(part))
        games += Game.objects.raw(f"{_GAME_READ} WHERE id IN ({marks})", part)
    _read_seats(games)
    return games


def _read_seats(games: list[Game]) -> None:
    """``seats_of`` of many games, read in one statement (a part of them at a time)."""
    by_game: dict[Any, list[Seat]] = {game.pk: [] for game in games}
    for part in _parts([_key(game.pk) for game in games]):
        marks = ", ".join(["%s"] * len(part))
        for seat in Seat.objects.raw(_SEATS_OF_GAMES.format(marks), part):
            by_game[seat.game_id].append(seat)
    for game in games:
        game.seats_read = by_game[game.pk]


#: Values a statement takes at most (SQLite's default limit is 999 parameters).
_PARAMETERS = 900


def _parts(values: list[Any], each: int = 1) -> Iterator[list[Any]]:
    step = _PARAMETERS // each
    for start in range(0, len(values), step):
        yield values[start : start + step]


def seats_of(game: Game) -> list[Seat]:
    """Every seat of the game, each with its player's ``display_name`` and ``username`` (what
    ``Player.public_name`` is made of), read once and kept on the row (``Game.seats_read``)."""
    if game.seats_read is None:
        game.seats_read = list(Seat.objects.raw(_SEATS, [_key(game.pk)]))
    return game.seats_read


def seat_names(seat: Seat) -> tuple[str, str]:
    """(display name, username) of a seat's player, as ``seats_of`` read them."""
    names: tuple[str, str] = (getattr(seat, "display_name"), getattr(seat, "username"))  # noqa: B009
    return names


def forget_seats(game: Game) -> None:
    """After seating or unseating someone: the next ``seats_of`` reads them again."""
    game.seats_read = None


#: What a game's ETag is made of for one viewer: (version, status, updated_at, visibility, the
#: viewer's seat or None).
EtagParts = tuple[int, str, datetime, str, int | None]


@dataclass(frozen=True, slots=True)
class Poll:
    """What a poll's one statement reads: the presented token with its player, and the polled
    game's ETag parts for that player (None: there is no such game)."""

    token: AuthToken
    etag_parts: EtagParts | None


def poll_token(digest: str, key: str, game_id: GameId) -> Poll | None:
    """The token of ``digest`` and ``key`` with its player, as the authentication's lookup
    finds it (``truc_api.authentication.find_token``), and what ``game_id``'s ETag is made of
    for that player: a poll is answered with this one statement, or None when there is no such
    token. knox's checks (expiry and its signal, AUTO_REFRESH, the inactive player) are the
    authentication's, as for any token. A malformed id reads no parts (the view's read answers
    404).

    Written out, and its row made into the two instances by ``Model.from_db`` (``_loaded``):
    through the ORM, building the token's query cost more than the rest of a 304, and through
    ``raw()`` mapping the columns to fields on every call cost a quarter of a 304 (bench/README.md,
    "The floor")."""
    try:
        pk = _key(game_id)
    except (ValueError, TypeError, ValidationError):
        pk = None
    with connection.cursor() as cursor:
        cursor.execute(_POLL, [pk, digest, key])
        row = cursor.fetchone()
    if row is None:
        return None
    players = len(_PLAYER_FIELDS)
    token = _loaded(AuthToken, _TOKEN_FIELDS, row[players:-1], cursor.db)
    token.user = _loaded(Player, _PLAYER_FIELDS, row[:players], cursor.db)
    return Poll(token, _etag_parts(row[-1]))


def _loaded(
    model: type[_M], fields: Sequence[Field[Any, Any]], values: Sequence[Any], db: Any
) -> _M:
    """An instance of ``model`` from the values of its ``fields`` (all its concrete fields, in
    order) as a cursor of ``db`` gives them, each converted as Django's compiler converts a
    column (the backend's converters, the field's ``from_db_value``: SQLite's times come back as
    text)."""
    return _instances(model, fields, [tuple(values)], db)[0]


def _etag_parts(found: str | None) -> EtagParts | None:
    if found is None:
        return None
    version, status, updated_at, visibility, seat = found.split("|")
    moment = _moment(updated_at)
    assert moment is not None
    return int(version), status, moment, visibility, int(seat) if seat else None


def _moment(value: datetime | str | None) -> datetime | None:
    """A time read outside a model's fields: from SQLite text or a naive datetime (UTC, kept
    without the offset), from PostgreSQL an aware datetime."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


_PLAYER_FIELDS = Player._meta.concrete_fields
_TOKEN_FIELDS = AuthToken._meta.concrete_fields
# One text value (a subquery gives one column), correlated with the token's player; the same SQL
# in PostgreSQL and SQLite.
_ETAG_PARTS = (
    "SELECT CAST(g.version AS TEXT) || '|' || g.status || '|' || CAST(g.updated_at AS TEXT)"
    " || '|' || g.visibility || '|' || COALESCE(CAST(s.number AS TEXT), '')"
    " FROM games_game g LEFT JOIN games_seat s"
    " ON s.game_id = g.id AND s.player_id = t.user_id WHERE g.id = %s"
)
# The player's columns, the token's, and the game's ETag parts.
_POLL = (
    "SELECT {}, {}, ({}) FROM knox_authtoken t JOIN players_player p ON p.id = t.user_id"
    " WHERE t.digest = %s AND t.token_key = %s"
).format(
    ", ".join(f"p.{field.column}" for field in _PLAYER_FIELDS),
    ", ".join(f"t.{field.column}" for field in _TOKEN_FIELDS),
    _ETAG_PARTS,
)


def _key(game_id: GameId) -> Any:
    """A game's id as the database takes it (SQLite keeps a UUID as 32 hex digits)."""
    field = Game._meta.pk
    assert field is not None
    return field.get_db_prep_value(field.to_python(game_id), connection)


# The statements of an action's hot path, written out: building each through the ORM's compiler
# cost several times what running it costs (bench/README.md, "The floor").
_GAME_FIELDS = [field for field in Game._meta.concrete_fields if field.name != "snapshot"]
_GAME_READ = "SELECT {} FROM games_game".format(
    ", ".join(str(field.column) for field in _GAME_FIELDS)
)
_GAME = _GAME_READ + " WHERE id = %s"
# A seat with its player's names (``seat_names``), the players' columns after the seat's.
_SEAT_AND_NAMES = (
    "SELECT {}, p.display_name, p.username"
    " FROM games_seat s JOIN players_player p ON p.id = s.player_id"
)
_SEATS = _SEAT_AND_NAMES.format("s.*") + " WHERE s.game_id = %s ORDER BY s.number"
_OVERDUE = _GAME_READ + " WHERE status = %s AND deadline <= %s ORDER BY deadline LIMIT %s"
_EVENTS_IN = "SELECT * FROM games_gameevent WHERE {} ORDER BY game_id, seq"
_SEATS_OF_GAMES = (
    _SEAT_AND_NAMES.format("s.*") + " WHERE s.game_id IN ({}) ORDER BY s.game_id, s.number"
)


def load_state(game: Game) -> engine.State:
    """The state at ``game.version``: kept in memory from an earlier request of this process when
    it can be, else folded from the last snapshot on (one statement for both), or from the first
    event when there is none."""
    return load_states([game])[0]


def load_states(games: Sequence[Game]) -> list[engine.State]:
    """``load_state`` of each game; those not in memory read together, in one statement."""
    states = {game.pk: _recent.get(game.pk, game.version) for game in games}
    missing = [game.pk for game in games if states[game.pk] is None]
    if missing:
        found: dict[Any, list[tuple[int, Any]]] = {pk: [] for pk in missing}
        with connection.cursor() as cursor:
            keys = [_key(pk) for pk in missing]
            marks = ", ".join(["%s"] * len(keys))
            cursor.execute(_SNAPSHOTS_AND_TAILS.format(marks=marks), [*keys, *keys])
            key = Game._meta.get_field("id")
            for game_id, kind, _, value in cursor.fetchall():
                found[key.to_python(game_id)].append((kind, value))
        for pk, rows in found.items():
            states[pk] = folded = _fold(rows)
            _keep_after_commit(pk, folded)
    return [_known(states[game.pk]) for game in games]


def states_after(
    games: Sequence[Game], events: dict[uuid.UUID, list[GameEvent]]
) -> list[engine.State]:
    """``load_states``, except that a game whose events just read (``events``, in seq order, up
    to its version) follow on a state this process keeps is brought up to date by folding them
    onto it: no statement and no fold of the hand from its snapshot. A stream's process reads
    every move's events anyway, and a state is the fold of its log (the event store's one rule),
    wherever the fold starts."""
    states: dict[Any, engine.State] = {}
    for game in games:
        known = _recent.latest(game.pk)
        rows = events.get(game.pk, [])
        if known is None or not rows or rows[-1].seq != game.version:
            continue
        newer = [row for row in rows if row.seq > known.version]
        if len(newer) == game.version - known.version:  # gapless from the kept state on
            payloads = (engine.event_from_json(_json(row.payload)) for row in newer)
            states[game.pk] = folded = reduce(engine.evolve, payloads, known)
            _keep_after_commit(game.pk, folded)
    rest = [game for game in games if game.pk not in states]
    states.update(zip([game.pk for game in rest], load_states(rest), strict=True))
    return [states[game.pk] for game in games]


def _keep_after_commit(pk: Any, state: engine.State) -> None:
    """Kept once what it was read from is committed: within a transaction that wrote events, the
    fold could see some that never will be."""
    transaction.on_commit(lambda: _recent.put(pk, state))


def _known(state: engine.State | None) -> engine.State:
    assert state is not None
    return state


def _fold(rows: list[tuple[int, Any]]) -> engine.State:
    """The state from a game's snapshot row (kind 0), if any, and its events after it (1)."""
    snapshot = _json(rows[0][1]) if rows and rows[0][0] == 0 else None
    events = (engine.event_from_json(_json(payload)) for kind, payload in rows if kind)
    if snapshot is None:
        return engine.replay(events)
    return reduce(engine.evolve, events, engine.restore(snapshot))


def _json(value: Any) -> Any:
    """A JSON column as a cursor gives it: text (Django's backends), or already decoded."""
    return json.loads(value) if isinstance(value, str | bytes) else value


# Each game row's copy of its last snapshot and the events after it, read at one moment (an
# action may commit between two statements of a read, with a new snapshot). Hand-written: the ORM
# has no UNION of two models' columns in one query.
_SNAPSHOTS_AND_TAILS = (
    "SELECT id, 0, snapshot_seq, snapshot FROM games_game"
    " WHERE id IN ({marks}) AND snapshot IS NOT NULL"
    " UNION ALL SELECT e.game_id, 1, e.seq, e.payload FROM games_gameevent e"
    " JOIN games_game g ON g.id = e.game_id WHERE g.id IN ({marks}) AND e.seq > g.snapshot_seq"
    " ORDER BY 1, 2, 3"
)


class _RecentStates:
    """The last state of the games this process served lately. A state is the fold of the log up
    to its version, and the log below a version never changes: an entry is never wrong, only
    old, and an old one is not used. Filled after commit only (a rolled-back action's state
    never was)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.states: OrderedDict[Any, engine.State] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, game_id: GameId, version: int) -> engine.State | None:
        with self.lock:
            state = self.states.get(game_id)
            if state is None or state.version != version:
                return None
            self.states.move_to_end(game_id)
            return state

    def latest(self, game_id: GameId) -> engine.State | None:
        """The newest state kept of the game, whatever its version."""
        with self.lock:
            return self.states.get(game_id)

    def put(self, game_id: GameId, state: engine.State) -> None:
        with self.lock:
            known = self.states.get(game_id)
            if known is None or known.version < state.version:
                self.states[game_id] = state
            self.states.move_to_end(game_id)
            if len(self.states) > self.size:
                self.states.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.states.clear()


_recent = _RecentStates(size=4096)


def recent_state(game_id: GameId, version: int) -> engine.State | None:
    return _recent.get(game_id, version)


def forget_recent_states() -> None:
    _recent.clear()


def load_events(game: Game, after: int = 0, limit: int | None = None) -> list[GameEvent]:
    rows = GameEvent.objects.filter(game=game, seq__gt=after).order_by("seq")
    return list(rows[:limit] if limit is not None else rows)


def load_event_ranges(
    ranges: Sequence[tuple[GameId, int, int]],
) -> dict[uuid.UUID, list[GameEvent]]:
    """The events of many games, each its own range: (game id, after, up to and with) ->
    {game id: its events in seq order}, in one statement (a part of the ranges at a time)."""
    pk = Game._meta.get_field("id")
    found: dict[uuid.UUID, list[GameEvent]] = {
        pk.to_python(game_id): [] for game_id, _, _ in ranges
    }
    wanted = [(_key(game_id), after, upto) for game_id, after, upto in ranges if upto > after]
    for part in _parts(wanted, each=3):
        where = " OR ".join(["(game_id = %s AND seq > %s AND seq <= %s)"] * len(part))
        params = [value for bounds in part for value in bounds]
        for row in GameEvent.objects.raw(_EVENTS_IN.format(where), params):
            found[row.game_id].append(row)
    return found


def read_games_and_events(
    keys: Sequence[tuple[GameId, int]], most: int
) -> tuple[list[Game], dict[uuid.UUID, list[GameEvent]]]:
    """For a streams process's gathered read: the games of ``keys`` (game id, the last seq a
    reader has) that exist, each with its seats, and each key's next events, at most ``most``
    (the caller keeps those up to the game row's version: the events' statement may see a later
    commit than the games' one; the log only grows, so nothing before that version is missed).

    On PostgreSQL the three statements go in one pipeline, one round trip for the whole read
    instead of three (each a wait for the server and for the reading thread to run again), and
    their rows become instances by ``Model.from_db`` with the converters found once a read
    (``raw()`` maps the columns to fields again for every statement: bench/README.md, "The
    gathered read"). Elsewhere (SQLite) the same result from ``get_games`` and
    ``load_event_ranges``."""
    wanted = list(dict.fromkeys((_key(game_id), after) for game_id, after in keys))
    ids = list(dict.fromkeys(pk for pk, _ in wanted))
    if connection.vendor != "postgresql":
        ranges = [(pk, after, after + most) for pk, after in wanted]
        return get_games(ids), load_event_ranges(ranges)
    params: list[Any] = [[pk for pk, _ in wanted], [after for _, after in wanted], most]
    # The errors of a pipeline come at its end, outside the cursors' own wrapping: Django's
    # error classes for them too (a read thread retries on a dead connection, streams/hub.py).
    with (
        connection.wrap_database_errors,
        connection.cursor() as games_read,
        connection.cursor() as seats_read,
        connection.cursor() as events_read,
    ):
        with connection.connection.pipeline():
            games_read.execute(_GAMES_ANY, [ids])
            seats_read.execute(_SEATS_ANY, [ids])
            events_read.execute(_EVENTS_AFTER, params)
        games = _instances(Game, _GAME_FIELDS, games_read.fetchall(), connection)
        seats = _instances(Seat, _SEAT_FIELDS, seats_read.fetchall(), connection, _NAMES)
        events = _instances(GameEvent, _EVENT_FIELDS, events_read.fetchall(), connection)
    seats_by_game: dict[Any, list[Seat]] = {game.pk: [] for game in games}
    for seat in seats:  # in (game, number) order
        seats_by_game[seat.game_id].append(seat)
    for game in games:
        game.seats_read = seats_by_game[game.pk]
    found: dict[uuid.UUID, list[GameEvent]] = {game.pk: [] for game in games}
    for row in events:  # in (game, seq) order; two keys of one game may both read a row
        same_game = found[row.game_id]
        if not same_game or same_game[-1].seq != row.seq:
            same_game.append(row)
    return games, found


def _instances(
    model: type[_M],
    fields: Sequence[Field[Any, Any]],
    rows: list[tuple[Any, ...]],
    db: Any,
    extra: Sequence[str] = (),
) -> list[_M]:
    """``model`` instances of rows holding ``fields``' columns in order, then the ``extra``
    columns set as attributes (as ``raw()`` sets a column that is no field), each value
    converted as Django's compiler converts a column, the converters found once a call."""
    converting = [  # a field's plain column: its converters are its field's
        (index, converters, field.cached_col)
        for index, field in enumerate(fields)
        if (converters := [*db.ops.get_db_converters(field.cached_col),
                           *field.get_db_converters(db)])
    ]  # fmt: skip
    names = [field.attname for field in fields]
    width = len(fields)
    made = []
    for row in rows:
        values = list(row[:width])
        for index, converters, column in converting:
            for convert in converters:
                values[index] = convert(values[index], column, db)
        instance = model.from_db(db.alias, names, values)
        for name, value in zip(extra, row[width:], strict=True):
            setattr(instance, name, value)
        made.append(instance)
    return made


_SEAT_FIELDS = Seat._meta.concrete_fields
_EVENT_FIELDS = GameEvent._meta.concrete_fields
_NAMES = ("display_name", "username")  # the seat's player's, for ``seat_names``
# PostgreSQL only (``read_games_and_events``): one text a statement whatever the number of keys,
# so each is prepared once (``prepare_threshold``).
_GAMES_ANY = _GAME_READ + " WHERE id = ANY(%s)"
_SEATS_ANY = (
    _SEAT_AND_NAMES.format(", ".join(f"s.{field.column}" for field in _SEAT_FIELDS))
    + " WHERE s.game_id = ANY(%s) ORDER BY s.game_id, s.number"
)
_EVENTS_AFTER = (
    "SELECT {} FROM unnest(%s::uuid[], %s::integer[]) AS k(game_id, after)"
    " JOIN games_gameevent e ON e.game_id = k.game_id AND e.seq > k.after"
    " AND e.seq <= k.after + %s ORDER BY e.game_id, e.seq"
).format(", ".join(f"e.{field.column}" for field in _EVENT_FIELDS))


class Recorder:
    """Appends one game's events to its log, and keeps its read models in step."""

    def __init__(self, game: Game, state: engine.State | None) -> None:
        self.game = game
        self.state = state
        self.before = state  # the state before the events not yet saved
        self.rows: list[GameEvent] = []  # recorded, not yet written
        self.written: list[GameEvent] = []
        self.snapshots: list[HandSnapshot] = []
        self.hands: list[HandRecord] = []  # started
        self.camas: list[CamaRecord] = []  # started
        # (model, (game, number), the columns an ended hand or cama sets)
        self.ended: list[tuple[type[HandRecord] | type[CamaRecord], Any, dict[str, Any]]] = []
        self.started = False  # the match starts with these events
        self.seats: dict[int, Seat] = {}  # by number: those whose row changes

    def touch(self, seat: Seat) -> None:
        """Write ``seat``'s counters (``timeouts``, ``has_acted``) with the events."""
        self.seats[seat.number] = seat

    def record(
        self, events: Iterable[ev.Event], actor: Player | None = None, seat: int | None = None
    ) -> None:
        for event in events:
            if isinstance(event, ev.MatchStarted):
                self.state = engine.start(event)
                self.started = True
            else:
                assert self.state is not None
                if isinstance(event, ev.HandDealt):
                    self._snapshot(event)
                self.state = engine.evolve(self.state, event)
            self.rows.append(
                GameEvent(
                    game=self.game,
                    seq=self.state.version,
                    type=event.TYPE,
                    schema_version=event.SCHEMA,
                    payload=event.to_json(),
                    actor=actor,
                    seat=seat,
                )
            )
            self._follow(event)

    def deal_if_due(self) -> None:
        """Between hands the next deal follows at once: the shell shuffles, the engine deals."""
        assert self.state is not None
        if self.state.needs_deal:
            deck = list(engine.DECKS[self.state.rules.deck])
            _shuffler.shuffle(deck)
            self.record([engine.deal(self.state, deck)])

    def save(self) -> engine.State:
        """Write the events and bring the game row and the seats up to date."""
        save_all([self])
        assert self.state is not None
        return self.state

    def _game_row(self) -> list[str]:
        """The game row brought up to the state, in memory; the names of the columns set
        (``save_all`` checks that its UPDATE writes each of them)."""
        state, game = self.state, self.game
        assert state is not None
        now = timezone.now()
        changed: dict[str, Any] = {"version": state.version, "turn": engine.turn(state)}
        changed |= {"scores": list(state.scores), "camas": list(state.camas), "updated_at": now}
        if self.started:  # a full table starts (RULES.md §2): its first events
            changed |= {"status": Game.Status.ACTIVE, "started_at": now}
        if state.match_over and changed.get("status", game.status) == Game.Status.ACTIVE:
            # A match ended with no winner (a no-show, say) is aborted, and never rated.
            finished = state.winner is not None
            changed["status"] = Game.Status.FINISHED if finished else Game.Status.ABORTED
            changed |= {"rated": game.rated and finished, "winner_side": state.winner}
            changed |= {"end_reason": state.end_reason or "", "finished_at": now}
            logger.info(
                "game.over", game_id=str(game.pk), winner=state.winner, reason=state.end_reason
            )
        if self.snapshots:
            changed |= {"snapshot": game.snapshot, "snapshot_seq": game.snapshot_seq}
        for name, value in changed.items():
            setattr(game, name, value)
        game.deadline = clock.next_deadline(game, state)
        return [*changed, "deadline"]

    def _seat_rows(self) -> list[Seat]:
        """The seats whose row changes: the ``awaiting`` flag set in memory, and those touched."""
        assert self.state is not None
        state = self.state
        for seat in seats_of(self.game):
            awaiting = engine.may_act(state, seat.number)
            if seat.awaiting != awaiting:
                seat.awaiting = awaiting
                self.seats[seat.number] = seat
        changed, self.seats = list(self.seats.values()), {}
        return changed

    def _snapshot(self, deal: ev.HandDealt) -> None:
        assert self.state is not None
        snapshot = engine.snapshot(self.state)
        seq = self.state.version
        self.snapshots.append(
            HandSnapshot(game=self.game, hand_number=deal.number, seq=seq, state=snapshot)
        )
        self.game.snapshot, self.game.snapshot_seq = snapshot, seq

    def _follow(self, event: ev.Event) -> None:
        """The hand and cama records, written with the events."""
        state = self.state
        assert state is not None
        now = timezone.now()
        game = self.game
        if isinstance(event, ev.HandDealt):
            hand = state.hand
            assert hand is not None
            cama = sum(state.camas) + 1
            # A cama's record is started by its first hand's deal (``save_all`` skips the others).
            self.camas.append(CamaRecord(game=game, number=cama, scores=[], started_at=now))
            self.hands.append(
                HandRecord(
                    game=game,
                    number=event.number,
                    cama=cama,
                    dealer=hand.dealer,
                    mano=hand.mano,
                    first_seq=state.version,
                    scores=list(state.scores),
                    points=[],
                    reason="",
                    started_at=now,
                )
            )
        elif isinstance(event, ev.HandEnded):
            assert state.hand is not None  # a pica-pica hand's points were scored by its duels
            points = [list(entry) for entry in (*state.hand.duel_points, *event.points)]
            ended: dict[str, Any] = {"winner_side": event.winner, "reason": event.reason}
            ended |= {"points": points, "scores": list(event.scores)}
            ended |= {"last_seq": state.version, "ended_at": now}
            self.ended.append((HandRecord, (game.pk, event.number), ended))
        elif isinstance(event, ev.CamaEnded):
            closed: dict[str, Any] = {"winner_side": event.winner, "ended_at": now}
            closed["scores"] = list(state.scores)
            self.ended.append((CamaRecord, (game.pk, sum(event.camas)), closed))


def save_all(recorders: Sequence[Recorder]) -> None:
    """Write what ``recorders`` recorded, for one game or many (the sweep) alike, a statement a
    table: the events, snapshots, hand and cama records inserted; the ended records, the game
    rows and the seats' flags updated (one statement for every row, ``executemany``: psycopg
    sends the rows together). Then the signals, per game."""
    for recorder in recorders:
        written = recorder._game_row()
        missing = set(written) - set(_GAME_COLUMNS) - {"snapshot", "snapshot_seq"}
        assert not missing, f"the game row's UPDATE does not write {missing}"
    seats = [seat for recorder in recorders for seat in recorder._seat_rows()]
    rows = [row for recorder in recorders for row in recorder.rows]
    with connection.cursor() as cursor:
        db = cursor.db
        cursor.executemany(_INSERT_EVENT, [_params(row, _EVENT_COLUMNS, db) for row in rows])
        HandSnapshot.objects.bulk_create([s for recorder in recorders for s in recorder.snapshots])
        # A cama's later hands find its record there already.
        camas = [cama for recorder in recorders for cama in recorder.camas]
        CamaRecord.objects.bulk_create(camas, ignore_conflicts=True)
        HandRecord.objects.bulk_create([hand for recorder in recorders for hand in recorder.hands])
        for model, (game, number), ended in (e for rec in recorders for e in rec.ended):
            model.objects.filter(game=game, number=number).update(**ended)
        dealt = [recorder.game for recorder in recorders if recorder.snapshots]
        games = [recorder.game for recorder in recorders if not recorder.snapshots]
        for sql, changed, columns in (
            (_UPDATE_GAME, games, _GAME_COLUMNS),
            (_UPDATE_DEALT_GAME, dealt, _DEALT_GAME_COLUMNS),
        ):
            if changed:
                cursor.executemany(sql, [[*_params(g, columns, db), _key(g.pk)] for g in changed])
        if seats:
            values = [[*_params(seat, _SEAT_COLUMNS, db), seat.pk] for seat in seats]
            cursor.executemany(_UPDATE_SEAT, values)
    together = [_recorded(recorder, len(recorders)) for recorder in recorders]
    signals.recorded_together.send(sender=Game, recorded=together)


def _params(instance: Any, columns: tuple[str, ...], db: BaseDatabaseWrapper) -> list[Any]:
    """The values of ``columns`` of a model instance, as its fields write them for ``db`` (JSON
    adapted, a UUID as SQLite keeps it...): the cursor's connection itself, not the
    ``connection`` proxy, which looks it up again at every use."""
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


# The writes of every save, written out. A column an event changes is in ``_GAME_COLUMNS``
# (``save_all`` checks it against what ``Recorder._game_row`` set); the rules and the other
# fixed columns never change.
_EVENT_COLUMNS: tuple[str, ...] = ("game_id", "seq", "type", "schema_version", "payload")
_EVENT_COLUMNS += ("actor_id", "seat", "created_at")
_INSERT_EVENT = "INSERT INTO games_gameevent ({}) VALUES ({})".format(
    ", ".join(_EVENT_COLUMNS), ", ".join(["%s"] * len(_EVENT_COLUMNS))
)
_GAME_COLUMNS: tuple[str, ...] = ("version", "turn", "scores", "camas", "updated_at", "status")
_GAME_COLUMNS += ("rated",)
_GAME_COLUMNS += ("winner_side", "end_reason", "started_at", "finished_at", "deadline")
_DEALT_GAME_COLUMNS = (*_GAME_COLUMNS, "snapshot", "snapshot_seq")
_UPDATE_GAME, _UPDATE_DEALT_GAME = (
    "UPDATE games_game SET {} WHERE id = %s".format(", ".join(f"{c} = %s" for c in columns))
    for columns in (_GAME_COLUMNS, _DEALT_GAME_COLUMNS)
)
_SEAT_COLUMNS = ("awaiting", "timeouts", "has_acted")
_UPDATE_SEAT = "UPDATE games_seat SET awaiting = %s, timeouts = %s, has_acted = %s WHERE id = %s"


def _recorded(recorder: Recorder, saved: int) -> signals.Recorded:
    game, state, before = recorder.game, recorder.state, recorder.before
    assert state is not None
    written, recorder.rows = recorder.rows, []
    recorder.written += written
    recorder.snapshots, recorder.hands, recorder.camas, recorder.ended = [], [], [], []
    recorder.started, recorder.before = False, state
    signals.events_recorded.send(sender=Game, game=game, rows=written, state=state, before=before)
    # The row as this save left it: the transaction may change the game again before it commits.
    committed = copy.copy(game)
    transaction.on_commit(lambda: _recent.put(game.pk, state))
    transaction.on_commit(
        lambda: signals.events_committed.send(
            sender=Game, game=committed, rows=written, state=state, before=before, saved=saved
        )
    )
    return signals.Recorded(game, written, state, before)
