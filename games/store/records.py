"""The read models kept with the log, written in the transaction that appends the events: the game
row (version, turn, scores, status, deadline...), the seats' flags, the hand and cama records,
and the hand snapshots (the state folded at each deal, a cache the next fold starts from).

``ReadModels`` gathers in memory what one game's new events change; ``write`` writes it for one
game or many (a sweep) alike, a statement a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog
from django.utils import timezone

from games import clock, engine
from games.engine import events as ev
from games.models import CamaRecord, Game, HandRecord, HandSnapshot, Seat
from games.store import sql

logger = structlog.get_logger(__name__)


class ReadModels:
    """What one game's new events change in its read models, kept until ``write``."""

    def __init__(self, game: Game, seats: list[Seat]) -> None:
        self.game = game
        self.every_seat = seats  # the game's, read with its row
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

    def record(self, event: ev.Event, before: engine.State | None, after: engine.State) -> None:
        """The records ``event`` changes, the step from ``before`` to ``after``."""
        if isinstance(event, ev.MatchStarted):
            self.started = True
        elif isinstance(event, ev.HandDealt):
            assert before is not None
            self._snapshot(event, before)
        self._hand_records(event, after)

    def game_row(self, state: engine.State) -> list[str]:
        """The game row brought up to ``state``, in memory; the names of the columns set."""
        game = self.game
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

    def seat_rows(self, state: engine.State) -> list[Seat]:
        """The seats whose row changes: the ``awaiting`` flag set in memory, and those touched."""
        for seat in self.every_seat:
            awaiting = engine.may_act(state, seat.number)
            if seat.awaiting != awaiting:
                seat.awaiting = awaiting
                self.seats[seat.number] = seat
        changed, self.seats = list(self.seats.values()), {}
        return changed

    def _snapshot(self, deal: ev.HandDealt, before: engine.State) -> None:
        """The state folded just before a deal: a fold of the game may start from it."""
        snapshot = engine.snapshot(before)
        seq = before.version
        self.snapshots.append(
            HandSnapshot(game=self.game, hand_number=deal.number, seq=seq, state=snapshot)
        )
        self.game.snapshot, self.game.snapshot_seq = snapshot, seq

    def _hand_records(self, event: ev.Event, state: engine.State) -> None:
        """The hand and cama records ``event`` starts or ends, ``state`` the one after it."""
        now = timezone.now()
        game = self.game
        if isinstance(event, ev.HandDealt):
            hand = state.hand
            assert hand is not None
            cama = sum(state.camas) + 1
            # A cama's record is started by its first hand's deal (``write`` skips the others).
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


def write(changes: Sequence[tuple[ReadModels, engine.State]]) -> None:
    """The read models of one game or many, each brought up to its state, a statement a table:
    snapshots, hand and cama records inserted; the ended records, the game rows and the seats'
    flags updated."""
    games: list[Game] = []
    dealt: list[Game] = []
    seats: list[Seat] = []
    for models, state in changes:
        written = models.game_row(state)
        missing = set(written) - set(sql.DEALT_GAME_COLUMNS)
        assert not missing, f"the game row's UPDATE does not write {missing}"
        (dealt if models.snapshots else games).append(models.game)
        seats += models.seat_rows(state)
    every = [models for models, _ in changes]
    HandSnapshot.objects.bulk_create([s for models in every for s in models.snapshots])
    # A cama's later hands find its record there already.
    camas = [cama for models in every for cama in models.camas]
    CamaRecord.objects.bulk_create(camas, ignore_conflicts=True)
    HandRecord.objects.bulk_create([hand for models in every for hand in models.hands])
    for model, (game, number), ended in (e for models in every for e in models.ended):
        model.objects.filter(game=game, number=number).update(**ended)
    if sql.postgresql():
        sql.update_games(games, dealt)
        sql.update_seats(seats)
    else:
        for group, columns in ((games, sql.GAME_COLUMNS), (dealt, sql.DEALT_GAME_COLUMNS)):
            if group:
                Game.objects.bulk_update(group, list(columns))
        if seats:
            Seat.objects.bulk_update(seats, list(sql.SEAT_COLUMNS))
