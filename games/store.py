"""The event store: every read and write of a game's log, and the read models kept with it.

Like the ``eventsourcing`` library's PostgreSQL recorder, this module owns the log and writes it out
explicitly: ``lock_game`` locks a game row (every writer of a game goes through it, and holds the
lock for the whole transaction, so ``seq`` is gapless and ``UNIQUE(game, seq)`` is only a
backstop); ``load_state`` reads the last snapshot and the log's tail; a ``Recorder`` appends events
and brings the game row, its seats and the hand, cama and snapshot records up to date, in a few
statements (``save_all`` writes those of many games together: the timeout sweep).

The ORM does the work, except for one statement (``_SNAPSHOT_AND_TAIL``), the only hand-written
SQL of the project: the snapshot and the tail read at one moment (and ``one_moment``'s isolation
level, which the ORM cannot set).

After the events are written ``games.signals.events_recorded`` is sent within the transaction
(the outbox's writes commit with them), and ``games.signals.events_committed`` once it commits
(clocks, bots, ratings, streams follow it): this module knows none of them.
"""

from __future__ import annotations

import copy
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import reduce
from typing import Any

import structlog
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Prefetch, prefetch_related_objects
from django.utils import timezone

from games import clock, engine, signals
from games.engine import events as ev
from games.errors import GameNotFound
from games.models import CamaRecord, Game, GameEvent, HandRecord, HandSnapshot, Seat

logger = structlog.get_logger(__name__)
_shuffler = secrets.SystemRandom()  # the deal's shuffle: a CSPRNG, never `random` (RULES.md §1)


def _seats() -> Prefetch[Any]:
    """A game's seats, in order, each with its player (the name it shows)."""
    return Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))


def lock_game(game_id: Any) -> Game:
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


def get_game(game_id: Any, *, lock: bool = False) -> Game:
    """One game by id with its seats (``seats_of``). A missing game and a malformed id are both
    ``GameNotFound``. The snapshot column is left out (deferred): only a fold that misses the
    recent states reads it, with the tail (``load_state``)."""
    games = Game.objects.defer("snapshot").prefetch_related(_seats())
    if lock:
        games = games.select_for_update()
    try:
        return games.get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError, ValidationError):
        raise GameNotFound() from None


def seats_of(game: Game) -> list[Seat]:
    """Every seat of the game with its player, read once for the rest of the request (Django's
    prefetch: free when the game came from ``get_game``)."""
    prefetch_related_objects([game], _seats())
    return list(game.seats.all())


def forget_seats(game: Game) -> None:
    """After seating or unseating someone: the next ``seats_of`` reads them again."""
    seats_of(game)
    game.refresh_from_db(fields=["seats"])  # drops the prefetched seats, without a query


def load_state(game: Game) -> engine.State:
    """The state at ``game.version``: kept in memory from an earlier request of this process when
    it can be, else folded from the last snapshot on (one statement for both), or from the first
    event when there is none."""
    state = _recent.get(game.pk, game.version)
    if state is not None:
        return state
    with connection.cursor() as cursor:
        pk = Game._meta.pk.get_db_prep_value(game.pk, connection)  # type: ignore[union-attr]
        cursor.execute(_SNAPSHOT_AND_TAIL, [pk, pk, pk])
        found = cursor.fetchall()
    snapshot = _json(found[0][2]) if found and found[0][0] == 0 else None
    events = (engine.event_from_json(_json(payload)) for kind, _, payload in found if kind)
    if snapshot is None:
        state = engine.replay(events)
    else:
        state = reduce(engine.evolve, events, engine.restore(snapshot))
    # Kept once what it was read from is committed: within a transaction that wrote events, the
    # fold could see some that never will be.
    transaction.on_commit(lambda: _recent.put(game.pk, state))
    return state


def _json(value: Any) -> Any:
    """A JSON column as a cursor gives it: text (Django's backends), or already decoded."""
    return json.loads(value) if isinstance(value, str | bytes) else value


# The game row's copy of its last snapshot and the events after it, read at one moment (an action
# may commit between two statements of a read, with a new snapshot). The one hand-written
# statement: the ORM has no UNION of two models' columns in one query.
_SNAPSHOT_AND_TAIL = (
    "SELECT 0, snapshot_seq, snapshot FROM games_game WHERE id = %s AND snapshot IS NOT NULL"
    " UNION ALL SELECT 1, seq, payload FROM games_gameevent"
    " WHERE game_id = %s AND seq > (SELECT snapshot_seq FROM games_game WHERE id = %s)"
    " ORDER BY 1, 2"
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

    def get(self, game_id: Any, version: int) -> engine.State | None:
        with self.lock:
            state = self.states.get(game_id)
            if state is None or state.version != version:
                return None
            self.states.move_to_end(game_id)
            return state

    def put(self, game_id: Any, state: engine.State) -> None:
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


def recent_state(game_id: Any, version: int) -> engine.State | None:
    return _recent.get(game_id, version)


def forget_recent_states() -> None:
    _recent.clear()


def load_events(game: Game, after: int = 0, limit: int | None = None) -> list[GameEvent]:
    rows = GameEvent.objects.filter(game=game, seq__gt=after).order_by("seq")
    return list(rows[:limit] if limit is not None else rows)


class Recorder:
    """Appends one game's events to its log, and keeps its read models in step."""

    def __init__(self, game: Game, state: engine.State | None) -> None:
        self.game = game
        self.state = state
        self.rows: list[GameEvent] = []  # recorded, not yet written
        self.written: list[GameEvent] = []
        self.snapshots: list[HandSnapshot] = []
        self.hands: list[HandRecord] = []  # started
        self.camas: list[CamaRecord] = []  # started
        self.ended: list[tuple[type[HandRecord] | type[CamaRecord], int, dict[str, Any]]] = []
        self.started = False  # the match starts with these events

    def record(
        self, events: Iterable[ev.Event], actor: Any = None, seat: int | None = None
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
        """The game row brought up to the state, in memory; the names of the columns set: the
        row is written with exactly these, so a column set here cannot be forgotten."""
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

    def _awaiting(self) -> list[Seat]:
        """The seats whose ``awaiting`` flag changes, set in memory."""
        assert self.state is not None
        state = self.state
        changed = []
        for seat in seats_of(self.game):
            awaiting = engine.may_act(state, seat.number)
            if seat.awaiting != awaiting:
                seat.awaiting = awaiting
                changed.append(seat)
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
            points = [list(entry) for entry in event.points]
            ended = {"winner_side": event.winner, "reason": event.reason, "points": points}
            ended |= {"scores": list(event.scores), "last_seq": state.version, "ended_at": now}
            self.ended.append((HandRecord, event.number, ended))
        elif isinstance(event, ev.CamaEnded):
            ended = {"winner_side": event.winner, "scores": list(state.scores), "ended_at": now}
            self.ended.append((CamaRecord, sum(event.camas), ended))


def save_all(recorders: Sequence[Recorder]) -> None:
    """Write what ``recorders`` recorded, for one game or many (the sweep) alike, one statement a
    table where the ORM allows it: the events, snapshots, hand and cama records inserted; the
    ended records, the game rows and the seats' flags updated. Then the signals, per game."""
    columns = [recorder._game_row() for recorder in recorders]
    seats = [seat for recorder in recorders for seat in recorder._awaiting()]
    GameEvent.objects.bulk_create([row for recorder in recorders for row in recorder.rows])
    HandSnapshot.objects.bulk_create([s for recorder in recorders for s in recorder.snapshots])
    # A cama's later hands find its record there already.
    camas = [cama for recorder in recorders for cama in recorder.camas]
    CamaRecord.objects.bulk_create(camas, ignore_conflicts=True)
    HandRecord.objects.bulk_create([hand for recorder in recorders for hand in recorder.hands])
    for recorder in recorders:
        for model, number, ended in recorder.ended:
            model.objects.filter(game=recorder.game, number=number).update(**ended)
    if len(recorders) == 1:
        recorders[0].game.save(update_fields=columns[0])
    else:
        fields = sorted({name for names in columns for name in names})
        Game.objects.bulk_update([recorder.game for recorder in recorders], fields)
    if seats:
        Seat.objects.bulk_update(seats, ["awaiting"])
    for recorder in recorders:
        _recorded(recorder)


def _recorded(recorder: Recorder) -> None:
    game, state = recorder.game, recorder.state
    assert state is not None
    written, recorder.rows = recorder.rows, []
    recorder.written += written
    recorder.snapshots, recorder.hands, recorder.camas, recorder.ended = [], [], [], []
    recorder.started = False
    signals.events_recorded.send(sender=Game, game=game, rows=written, state=state)
    # The row as this save left it: the transaction may change the game again before it commits.
    committed = copy.copy(game)
    transaction.on_commit(lambda: _recent.put(game.pk, state))
    transaction.on_commit(
        lambda: signals.events_committed.send(
            sender=Game, game=committed, rows=written, state=state
        )
    )
