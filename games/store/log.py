"""The log: a game's events, the one truth of its state (a state is the fold of its events).

``lock_game`` locks a game row: every writer of a game goes through it and holds the lock for the
whole transaction, so ``seq`` is gapless and ``UNIQUE(game, seq)`` is only a backstop.
``load_state`` folds the log from the last hand snapshot on, or takes the state from the recent
states (``store.recent``). ``append`` is the one way events enter the log, for every writer (an
action, a bot, a timeout, a sweep of many games): it records them, deals when the next hand is
due, writes them with their read models (``store.records``) and sends the signals.

``games.signals.events_recorded`` is sent within the transaction (the outbox's writes commit
with the events), ``events_committed`` once it commits (clocks, bots, ratings, streams follow
it): this module knows none of them.

On PostgreSQL the statements are ``store.sql``'s; elsewhere (SQLite, ``make run``'s default)
the ORM's.
"""

from __future__ import annotations

import copy
import json
import secrets
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, OuterRef, Q, QuerySet, Subquery

from games import engine, signals
from games.engine import events as ev
from games.errors import GameNotFound
from games.models import Game, GameEvent, GameId, Seat
from games.store import sql
from games.store.recent import keep_after_commit, recent
from games.store.records import ReadModels, write
from players.models import Player

_shuffler = secrets.SystemRandom()  # the deal's shuffle: a CSPRNG, never `random` (RULES.md §1)


# --- the game rows and their seats --------------------------------------------------------------


def lock_game(game_id: GameId) -> Game:
    """The game row, locked until the transaction ends: every writer of a game goes through here.
    Its seats are read after the lock is granted (a second statement), so they are current."""
    return get_game(game_id, lock=True)


def get_game(game_id: GameId, *, lock: bool = False) -> Game:
    """One game by id with its seats (``seats_of``). A missing game and a malformed id are both
    ``GameNotFound``. The snapshot column is left out (deferred): only a fold that misses the
    recent states reads it, with the tail (``load_state``)."""
    try:
        pk = game_key(game_id)
    except (ValueError, TypeError, ValidationError):
        raise GameNotFound() from None
    if sql.postgresql():
        game = sql.game(pk, lock=lock)
    else:
        found = _game_rows().filter(pk=pk)
        game = next(iter(found.select_for_update() if lock else found), None)
    if game is None:
        raise GameNotFound()
    seats_of(game)
    return game


def lock_overdue(now: datetime, limit: int) -> list[Game]:
    """Up to ``limit`` active games whose deadline has passed, oldest first, each with its
    seats (two statements in all), locked until the transaction ends. Games another transaction
    holds (a move, a timeout's task, another sweep) are skipped, not waited for: their holder
    moves them on or leaves them to the next sweep."""
    if sql.postgresql():
        games = sql.overdue(now, limit)
    else:
        due = _game_rows().filter(status=Game.Status.ACTIVE, deadline__lte=now)
        games = list(due.order_by("deadline").select_for_update(skip_locked=True)[:limit])
    read_seats(games)
    return games


#: What a game's ETag is made of for one viewer: (version, status, updated_at, visibility, the
#: viewer's seat or None).
EtagParts = tuple[int, str, datetime, str, int | None]


def etag_parts(game_id: GameId, player: Player) -> EtagParts | None:
    """What the game's ETag is made of for ``player``, in one statement (a poll of an unchanged
    game reads nothing else); None when there is no such game, or the id is malformed."""
    try:
        pk = game_key(game_id)
    except (ValueError, TypeError, ValidationError):
        return None
    if sql.postgresql():
        return sql.etag_parts(pk, player.pk)
    seat = Seat.objects.filter(game=OuterRef("pk"), player=player).values("number")[:1]
    found = _game_rows().filter(pk=pk).annotate(seat_of=Subquery(seat))
    return found.values_list("version", "status", "updated_at", "visibility", "seat_of").first()


def game_key(game_id: GameId) -> uuid.UUID:
    """A game's id as a UUID; a malformed one raises ``ValidationError``."""
    key: uuid.UUID = Game._meta.get_field("id").to_python(game_id)
    return key


def seats_of(game: Game) -> list[Seat]:
    """Every seat of the game, each with its player's ``display_name`` and ``username`` (what
    ``Player.public_name`` is made of), read once and kept on the row (``Game.seats_read``)."""
    if game.seats_read is None:
        if sql.postgresql():
            game.seats_read = sql.seats(game.pk)
        else:
            game.seats_read = list(_seat_rows().filter(game_id=game.pk).order_by("number"))
    return game.seats_read


def read_seats(games: list[Game]) -> None:
    """``seats_of`` of many games, read in one statement."""
    by_game: dict[Any, list[Seat]] = {game.pk: [] for game in games}
    if sql.postgresql():
        seats = sql.seats_of_games(list(by_game))
    else:
        seats = list(_seat_rows().filter(game_id__in=list(by_game)).order_by("game", "number"))
    for seat in seats:  # in (game, number) order
        by_game[seat.game_id].append(seat)
    for game in games:
        game.seats_read = by_game[game.pk]


def seat_names(seat: Seat) -> tuple[str, str]:
    """(display name, username) of a seat's player, as ``seats_of`` read them."""
    names: tuple[str, str] = (getattr(seat, "display_name"), getattr(seat, "username"))  # noqa: B009
    return names


def forget_seats(game: Game) -> None:
    """After seating or unseating someone: the next ``seats_of`` reads them again."""
    game.seats_read = None


def _game_rows() -> QuerySet[Game]:
    """The ORM's game rows, as ``sql`` reads them: without the snapshot's copy."""
    return Game.objects.defer("snapshot").order_by()


def _seat_rows() -> QuerySet[Seat]:
    """The ORM's seats, each with its player's names, as ``sql`` reads them."""
    names = {name: F(f"player__{name}") for name in sql.NAMES}
    return Seat.objects.annotate(**names)


# --- reading the log ----------------------------------------------------------------------------


@contextmanager
def one_moment() -> Iterator[None]:
    """Reads inside see the database as of one moment: on PostgreSQL a REPEATABLE READ
    transaction, which sees what was committed before its first statement. A game row and its
    log read by two statements could otherwise come from either side of an action's commit.
    Inside another transaction (its isolation is the caller's), and on SQLite (whose
    transactions here take the write lock at BEGIN), nothing is added."""
    if connection.in_atomic_block or not sql.postgresql():
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def load_state(game: Game) -> engine.State:
    """The state at ``game.version``: kept in memory from an earlier request of this process when
    it can be, else folded from the last hand snapshot on (one statement for both), or from the
    first event when there is none."""
    return load_states([game])[0]


def load_states(games: Sequence[Game]) -> list[engine.State]:
    """``load_state`` of each game; those not in memory read together, in one statement."""
    states = {game.pk: recent.get(game.pk, game.version) for game in games}
    missing = [game.pk for game in games if states[game.pk] is None]
    if missing:
        for pk, (snapshot, payloads) in _snapshots_and_tails(missing).items():
            states[pk] = folded = fold(snapshot, payloads)
            keep_after_commit(pk, folded)
    return [_known(states[game.pk]) for game in games]


def fold(snapshot: Any | None, payloads: Iterable[Any]) -> engine.State:
    """The state from a hand snapshot (None: from the first event) and the events after it, each
    as a JSON column gives it."""
    events = (engine.event_from_json(json_of(payload)) for payload in payloads)
    if snapshot is None:
        return engine.replay(events)
    return reduce(engine.evolve, events, engine.restore(json_of(snapshot)))


def json_of(value: Any) -> Any:
    """A JSON column as a cursor gives it: text (Django's backends), or already decoded."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def load_events(game: Game, after: int = 0, limit: int | None = None) -> list[GameEvent]:
    rows = GameEvent.objects.filter(game=game, seq__gt=after).order_by("seq")
    return list(rows[:limit] if limit is not None else rows)


def _snapshots_and_tails(pks: list[Any]) -> dict[Any, tuple[Any | None, list[Any]]]:
    """{game id: (the game row's copy of its last snapshot or None, the payloads after it)}."""
    found: dict[Any, tuple[Any | None, list[Any]]] = {}
    if sql.postgresql():
        for pk, kind, value in sql.snapshots_and_tails(pks):
            _, payloads = found.setdefault(pk, (None, []))
            if kind:
                payloads.append(value)
            else:
                found[pk] = (value, payloads)
        return {pk: found.get(pk, (None, [])) for pk in pks}
    # Two statements, the snapshots first: the tails read after each one's own seq, so a deal
    # committed between them leaves a tail longer than needed, never a gap.
    rows = Game.objects.filter(pk__in=pks).values_list("pk", "snapshot_seq", "snapshot")
    after = {pk: (seq, snapshot) for pk, seq, snapshot in rows}
    tails: dict[Any, list[Any]] = {pk: [] for pk in pks}
    if after:
        wanted = Q()
        for pk, (seq, _) in after.items():
            wanted |= Q(game_id=pk, seq__gt=seq)
        events = GameEvent.objects.filter(wanted).order_by("game", "seq")
        for pk, payload in events.values_list("game_id", "payload"):
            tails[pk].append(payload)
    return {pk: (after.get(pk, (0, None))[1], tails[pk]) for pk in pks}


def _known(state: engine.State | None) -> engine.State:
    assert state is not None
    return state


# --- appending ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Append:
    """New events for one game, as its writer decided them: ``state`` the game's state before
    them (None before the match starts); ``actor`` and ``seat`` recorded with each;
    ``touched`` the seats whose counters (``timeouts``, ``has_acted``) the writer changed."""

    game: Game
    state: engine.State | None
    events: Sequence[ev.Event]
    actor: Player | None = None
    seat: int | None = None
    touched: Sequence[Seat] = ()


def append(
    game: Game,
    state: engine.State | None,
    events: Iterable[ev.Event],
    *,
    actor: Player | None = None,
    seat: int | None = None,
    touched: Sequence[Seat] = (),
) -> signals.Recorded:
    """Append ``events`` to the log of ``game`` (locked by ``lock_game``), the next deal with
    them when a hand is due, and write its read models; then the signals. What was appended:
    the game row as it left it, the rows written (the deal's too), the state before and after."""
    appended = Append(game, state, tuple(events), actor, seat, tuple(touched))
    [recorded] = append_all([appended])
    return recorded


def append_all(appends: Sequence[Append]) -> list[signals.Recorded]:
    """``append`` of many games at once (a sweep), a statement a table for all of them: the
    events, then the read models (``records.write``). Then the signals: ``events_recorded`` of
    each game, ``recorded_together`` once for all, and after commit ``events_committed`` of each
    game (with ``saved``, the number of games)."""
    pending = [_Pending(one) for one in appends]
    rows = [row for one in pending for row in one.rows]
    if sql.postgresql():
        sql.insert_events(rows)
    else:
        GameEvent.objects.bulk_create(rows)
    write([(one.models, one.state) for one in pending])
    recorded = [one.recorded(len(pending)) for one in pending]
    signals.recorded_together.send(sender=Game, recorded=recorded)
    return recorded


class _Pending:
    """One game's append, recorded in memory: its events folded onto its state, each as a
    ``GameEvent`` row, the deal added when due, the read models they change."""

    def __init__(self, appended: Append) -> None:
        self.game = appended.game
        self.before = appended.state
        self.rows: list[GameEvent] = []
        self.models = ReadModels(self.game, seats_of(self.game))
        for seat in appended.touched:
            self.models.touch(seat)
        self.state = self._record(appended.state, appended.events, appended.actor, appended.seat)
        if self.state.needs_deal:
            # Between hands the next deal follows at once: the shell shuffles, the engine deals.
            deck = list(engine.DECKS[self.state.rules.deck])
            _shuffler.shuffle(deck)
            self.state = self._record(self.state, [engine.deal(self.state, deck)], None, None)

    def _record(
        self,
        state: engine.State | None,
        events: Iterable[ev.Event],
        actor: Player | None,
        seat: int | None,
    ) -> engine.State:
        for event in events:
            before = state
            if isinstance(event, ev.MatchStarted):
                state = engine.start(event)
            else:
                assert state is not None
                state = engine.evolve(state, event)
            self.rows.append(
                GameEvent(
                    game=self.game,
                    seq=state.version,
                    type=event.TYPE,
                    schema_version=event.SCHEMA,
                    payload=event.to_json(),
                    actor=actor,
                    seat=seat,
                )
            )
            self.models.record(event, before, state)
        assert state is not None
        return state

    def recorded(self, saved: int) -> signals.Recorded:
        """``events_recorded`` sent now, ``events_committed`` once the transaction commits."""
        game, rows, state, before = self.game, self.rows, self.state, self.before
        signals.events_recorded.send(sender=Game, game=game, rows=rows, state=state, before=before)
        # The row as this append left it: the transaction may change the game again before it
        # commits.
        committed = copy.copy(game)
        keep_after_commit(game.pk, state)
        transaction.on_commit(
            lambda: signals.events_committed.send(
                sender=Game, game=committed, rows=rows, state=state, before=before, saved=saved
            )
        )
        return signals.Recorded(game, rows, state, before)
