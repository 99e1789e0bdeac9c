"""The event log: rebuild a game's state, and append events with their read models in step.

Only this module writes ``GameEvent``, ``HandSnapshot``, ``HandRecord`` and ``CamaRecord``. Callers
hold the game row's lock (``lock_game``) for the whole transaction, so ``seq`` is gapless and the
``UNIQUE(game, seq)`` constraint is only a backstop.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, reduce
from typing import Any

import structlog
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from games import clock, engine, signals
from games.engine import events as ev
from games.errors import GameNotFound
from games.models import CamaRecord, Game, GameEvent, HandRecord, HandSnapshot, Seat
from players.tasks import rate_game
from truc_api import db

logger = structlog.get_logger(__name__)
#: The columns of a game row that its events change (``Recorder.save`` writes only these, and the
#: snapshot's two only after a deal).
_CHANGING = [
    *("version", "turn", "scores", "camas", "updated_at", "deadline", "status", "rated"),
    *("winner_side", "end_reason", "started_at", "finished_at"),
]
_SNAPSHOT = ["snapshot", "snapshot_seq"]
#: The columns of an event row, as ``Recorder.save`` inserts them.
_EVENT = ("game_id", "seq", "type", "schema_version", "payload", "actor_id", "seat", "created_at")
_shuffler = secrets.SystemRandom()  # the deal's shuffle: a CSPRNG, never `random` (RULES.md §1)


def lock_game(game_id: Any) -> Game:
    """The game row, locked until the transaction ends: every writer of a game goes through here."""
    return get_game(game_id, lock=True)


def get_game(game_id: Any, *, lock: bool = False) -> Game:
    """One game by id, with its seats (``seats_of``), in one round trip (truc_api/db.py). A
    missing game and a malformed id are both ``GameNotFound``.

    To lock it, the transaction's BEGIN, the game and its seats travel together in a pipeline,
    and the seats are read by a statement of their own, after the lock is granted: a join would
    see them as they were before waiting for the lock. A read takes both in one join."""
    try:
        pk = db.key(Game, game_id)
    except (ValueError, TypeError, ValidationError):
        raise GameNotFound() from None
    sql = _statements()
    if lock:
        games, seats = db.several((Game, sql.game + db.for_update(), [pk]), (Seat, sql.seats, [pk]))
        game = games[0] if games else None
    else:
        game, seats = db.parent_and_children(Game, Seat, sql.game_and_seats, [pk], len(_COLUMNS))
    if game is None:
        raise GameNotFound()
    game._seats = seats  # type: ignore[attr-defined]
    return game


def seat_column(name: str, expression: str) -> None:
    """Read ``expression`` (SQL on ``s``, the seat, and ``p``, its player) with every game's seats,
    as each seat's attribute ``name``: how an app that follows the game log (notifications, say)
    learns something of each seat without a statement of its own."""
    _SEAT_EXTRAS[name] = expression
    _statements.cache_clear()


# Every column but the snapshot, which only a fold that misses the recent states reads (in
# ``load_state``, with the log's tail): left out, the field is deferred.
_COLUMNS = [field.column for field in Game._meta.concrete_fields if field.name != "snapshot"]
_SEAT_EXTRAS: dict[str, str] = {}


@dataclass(frozen=True)
class _Statements:
    game: str
    seats: str
    game_and_seats: str


@cache
def _statements() -> _Statements:
    # Each seat with the name its player shows (``Player.public_name``) as ``player_name``.
    seat = ", ".join(
        ["s.*", "COALESCE(NULLIF(p.display_name, ''), p.username) AS player_name"]
        + [f"{expression} AS {name}" for name, expression in _SEAT_EXTRAS.items()]
    )
    return _Statements(
        game=f"SELECT {', '.join(_COLUMNS)} FROM games_game WHERE id = %s",
        seats=(
            f"SELECT {seat} FROM games_seat s JOIN players_player p ON p.id = s.player_id"
            " WHERE s.game_id = %s ORDER BY s.number"
        ),
        game_and_seats=(
            f"SELECT {', '.join('g.' + column for column in _COLUMNS)}, {seat}"
            " FROM games_game g LEFT JOIN games_seat s ON s.game_id = g.id"
            " LEFT JOIN players_player p ON p.id = s.player_id WHERE g.id = %s ORDER BY s.number"
        ),
    )


def seats_of(game: Game) -> list[Seat]:
    """Every seat of the game, each with its player's name, in one query; kept on the game for
    the rest of the request (``forget_seats`` after seating or unseating someone)."""
    seats: list[Seat] | None = getattr(game, "_seats", None)
    if seats is None:
        seats = db.instances(Seat, _statements().seats, [db.key(Game, game.pk)])
        game._seats = seats  # type: ignore[attr-defined]
    return seats


def forget_seats(game: Game) -> None:
    game.__dict__.pop("_seats", None)


def load_state(game: Game) -> engine.State:
    """The state at ``game.version``: kept in memory from an earlier request of this process when
    it can be, else folded from the last snapshot on (one query for both), or from the first event
    when there is none."""
    state = _recent.get(game.pk, game.version)
    if state is not None:
        return state
    pk = db.key(Game, game.pk)
    found = db.rows(_SNAPSHOT_AND_TAIL, [pk, pk, pk])
    snapshot = json.loads(found[0][2]) if found and found[0][0] == 0 else None
    events = (engine.event_from_json(json.loads(payload)) for kind, _, payload in found if kind)
    if snapshot is None:
        state = engine.replay(events)
    else:
        state = reduce(engine.evolve, events, engine.restore(snapshot))
    # Kept once what it was read from is committed: within a transaction that wrote events, the
    # fold could see some that never will be.
    transaction.on_commit(lambda: _recent.put(game.pk, state))
    return state


# The game row's copy of its last snapshot and the events after it, read at one moment (an action
# may commit between two statements of a read, with a new snapshot).
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
    """Appends one transaction's events to a game's log and keeps the read models in step."""

    def __init__(self, game: Game, state: engine.State | None) -> None:
        self.game = game
        self.state = state
        self.rows: list[GameEvent] = []  # recorded, not yet written
        self.written: list[GameEvent] = []
        self.dealt = False  # a deal took a new snapshot

    def record(
        self, events: Iterable[ev.Event], actor: Any = None, seat: int | None = None
    ) -> None:
        for event in events:
            if isinstance(event, ev.MatchStarted):
                self.state = engine.start(event)
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
        state = self.state
        assert state is not None
        db.insert(GameEvent, [{name: getattr(row, name) for name in _EVENT} for row in self.rows])
        written, self.rows = self.rows, []
        self.written += written
        game = self.game
        game.version = state.version
        game.turn = engine.turn(state)
        game.scores = list(state.scores)
        game.camas = list(state.camas)
        game.updated_at = timezone.now()
        if state.match_over and game.status == Game.Status.ACTIVE:
            # A match ended with no winner (a no-show, say) is aborted, and never rated.
            game.status = Game.Status.FINISHED if state.winner is not None else Game.Status.ABORTED
            game.rated = game.rated and state.winner is not None
            game.winner_side = state.winner
            game.end_reason = state.end_reason or ""
            game.finished_at = game.updated_at
            if game.rated:
                rate_game.delay_on_commit(str(game.pk))  # the reconciler catches a lost one
            logger.info(
                "game.over", game_id=str(game.pk), winner=state.winner, reason=state.end_reason
            )
        game.deadline = clock.next_deadline(game, state)
        # Not the rules and the other fixed columns.
        db.update(game, _CHANGING + _SNAPSHOT if self.dealt else _CHANGING)
        self._update_awaiting(state)
        clock.schedule(game)
        signals.events_recorded.send(sender=Game, game=game, rows=written, state=state)
        transaction.on_commit(lambda: _recent.put(game.pk, state))
        return state

    def _update_awaiting(self, state: engine.State) -> None:
        seats = seats_of(self.game)
        waiting = {seat for seat in range(state.players) if engine.may_act(state, seat)}
        if all(seat.awaiting == (seat.number in waiting) for seat in seats):
            return  # the same seat acts again: nothing to write
        marks = ", ".join(["%s"] * len(waiting or [-1]))  # nobody: IN () is no SQL
        db.execute(
            f"UPDATE games_seat SET awaiting = (number IN ({marks})) WHERE game_id = %s",
            [*(waiting or [-1]), db.key(Game, self.game.pk)],
            writes="games_seat",
        )
        for seat in seats:
            seat.awaiting = seat.number in waiting

    def _snapshot(self, deal: ev.HandDealt) -> None:
        assert self.state is not None
        snapshot = engine.snapshot(self.state)
        record = {"game_id": self.game.pk, "hand_number": deal.number}
        db.insert(HandSnapshot, [{**record, "seq": self.state.version, "state": snapshot}])
        self.game.snapshot, self.game.snapshot_seq = snapshot, self.state.version
        self.dealt = True

    def _follow(self, event: ev.Event) -> None:
        """The hand and cama records, written with the events (in ``_perform``'s batch)."""
        state = self.state
        assert state is not None
        now = timezone.now()
        game = self.game.pk
        if isinstance(event, ev.HandDealt):
            hand = state.hand
            assert hand is not None
            cama = sum(state.camas) + 1
            started = {"game_id": game, "number": cama, "scores": [], "started_at": now}
            db.insert(CamaRecord, [started], unless=("game_id", "number"))  # its first hand's
            record = {"game_id": game, "number": event.number, "cama": cama}
            record |= {"dealer": hand.dealer, "mano": hand.mano, "first_seq": state.version}
            record |= {"scores": list(state.scores), "points": [], "reason": "", "started_at": now}
            db.insert(HandRecord, [record])
        elif isinstance(event, ev.HandEnded):
            assert state.hand is not None  # a pica-pica hand's points were scored by its duels
            points = [list(entry) for entry in (*state.hand.duel_points, *event.points)]
            ended = {"winner_side": event.winner, "reason": event.reason, "points": points}
            ended |= {"scores": list(event.scores), "last_seq": state.version, "ended_at": now}
            db.update_where(HandRecord, ended, game_id=game, number=event.number)
        elif isinstance(event, ev.CamaEnded):
            ended = {"winner_side": event.winner, "scores": list(state.scores), "ended_at": now}
            db.update_where(CamaRecord, ended, game_id=game, number=sum(event.camas))
