"""Writes: every change to a game goes through one of these functions, in one transaction.

The pattern is always the same (STYLE.md): lock the game row, check the request against the locked
state, let the referee decide, append the events with their read models, and return what was done
(or raise a typed error, games/errors.py): the API makes the answer. The seat always comes from
the caller's account, never from the request body.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import string
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import bot_players, contract, engine, open_tables, timeouts
from games.errors import (
    AlreadySeated,
    GameNotFound,
    GameNotStarted,
    GameOver,
    GameStarted,
    IdempotencyConflict,
    InvalidRequest,
    NotSeated,
    RuleViolation,
    SeatsRefused,
    SeatTaken,
    StaleVersion,
    rules_error,
)
from games.models import Game, GameEvent, GameId, IdempotencyRecord, Seat
from games.store.log import append, forget_seats, load_events, load_state, lock_game, seats_of
from players.models import Player

logger = structlog.get_logger(__name__)
_CODE_ALPHABET = string.ascii_uppercase.replace("O", "").replace("I", "") + "23456789"


@dataclass(frozen=True)
class Acted:
    """What an action did: the game row after it, its state, the events written (the engine's
    and the shell's: a deal), and the acting seat. ``replayed``: the action an earlier request
    with the same Idempotency-Key did, read back from the log (``_earlier``)."""

    game: Game
    state: engine.State
    rows: list[GameEvent]
    seat: int
    replayed: bool = False


def create_game(
    player: Player,
    *,
    preset: str,
    options: dict[str, Any],
    players: int,
    visibility: str,
    turn_seconds: int = 86_400,
    forfeit_after: int = 3,
    bots: list[dict[str, Any]] | None = None,
    rated: bool = True,
    seat: int = 0,
    joined: Mapping[int, Any] | None = None,
) -> Game:
    """A new game with its creator at ``seat``, any ``bots`` ({seat, level}) and any people
    ``joined`` ({seat: player}, the lobby's paired tables) seated; a full table starts at once
    (and so never waits open). A game with a bot is never rated; ``rated=False`` makes a casual
    game of a table of people (the lobby's unrated seeks and challenges)."""
    try:
        rules = engine.resolve_rules(preset, {**options, "players": players})
    except engine.InvalidRules as error:
        raise rules_error(error) from None
    bots = bots or []
    joined = dict(joined or {})
    others = [bot["seat"] for bot in bots] + list(joined)
    if len(set(others)) != len(others) or not all(
        0 <= number < players and number != seat for number in others
    ):
        problem = engine.InvalidAction(
            f"bots take distinct seats from 0 to {players - 1} but the creator's", "bad_seat"
        )
        raise SeatsRefused(problem, "bots")
    with transaction.atomic():
        if len(others) + 1 < players:  # the game opens: the creator waits at it
            open_tables.check_room(player)
        game = Game.objects.create(
            preset=preset,
            rules=rules.to_json(),
            players=players,
            visibility=visibility,
            join_code=_new_join_code() if visibility == Game.Visibility.PRIVATE else None,
            created_by=player,
            turn_seconds=turn_seconds,
            forfeit_after=forfeit_after,
            rated=rated and not bots,
            has_bots=bool(bots),
            scores=[0, 0],
            camas=[0, 0],
        )
        Seat.objects.create(game=game, number=seat, player=player)
        for bot in bots:
            Seat.objects.create(
                game=game,
                number=bot["seat"],
                player=bot_players.bot_player(bot["level"], bot["seat"]),
                bot_level=bot["level"],
                has_acted=True,  # a bot is never a no-show
            )
        for number, person in sorted(joined.items()):
            Seat.objects.create(game=game, number=number, player=person)
        if len(others) + 1 == players:
            _start(game)
    return game


def join_game(
    player: Player, game_id: GameId, *, seat: int | None = None, code: str | None = None
) -> Game:
    """Take a seat (the first free one unless ``seat`` is given); the game starts when full."""
    with transaction.atomic():
        game = lock_game(game_id)
        seated = Seat.objects.filter(game=game, player=player).exists()
        if game.visibility == Game.Visibility.PRIVATE and code != game.join_code and not seated:
            raise GameNotFound()  # a private game's existence is not told without its code
        return _seat_player(game, player, seat)


def join_by_code(player: Player, code: str, *, seat: int | None = None) -> Game:
    game_id = Game.objects.filter(join_code=code).values_list("id", flat=True).first()
    if game_id is None:
        raise GameNotFound("No game has that join code.")
    return join_game(player, game_id, seat=seat, code=code)


def leave_game(player: Player, game_id: GameId) -> Game:
    """Give up a seat before the game starts; a game left empty is aborted."""
    with transaction.atomic():
        game = lock_game(game_id)
        seat = _seat_of(game, player)
        if game.status != Game.Status.OPEN:
            raise GameStarted("A started game is left by resigning.")
        Seat.objects.filter(pk=seat.pk).delete()
        forget_seats(game)
        if not Seat.objects.filter(game=game).exists():
            game.status = Game.Status.ABORTED
            game.end_reason = contract.ABANDONED
            game.finished_at = timezone.now()
        game.updated_at = timezone.now()
        game.save()
        return game


def resign(player: Player, game_id: GameId) -> Game:
    with transaction.atomic():
        game = lock_game(game_id)
        seat = _seat_of(game, player)
        state = _active_state(game)
        append(game, state, [engine.resign(state, seat.number)], actor=player, seat=seat.number)
        return game


def act(player: Player, game_id: GameId, body: dict[str, Any], idempotency_key: str) -> Acted:
    """One player's action: ``body`` holds the action and the ``expected_version``.

    Retried with the same Idempotency-Key and body, it gives back what the first request did
    (``replayed``) and stores nothing new; the same key with another body is a conflict. A move
    after the deadline comes too late: the timeout is applied (and committed) instead, and the
    move is refused as stale with the new version.
    """
    action = _parse_action(body)
    with transaction.atomic():
        game = lock_game(game_id)
        seat = _seat_of(game, player)
        # The game's own id in the fingerprint, however the URL spelt it.
        request = _Request(
            action, body["expected_version"], idempotency_key, _fingerprint(game.pk, body)
        )
        # The key is looked up only when the request cannot go through as it is (a retry of an
        # action that was done finds the game moved on); a key reused for a new action that goes
        # through fails at its INSERT (``_remember``).
        if request.expected_version != game.version or timeouts.is_due(game):
            earlier = _earlier(player, game, request)
            if earlier is not None:
                return earlier
        state = _active_state(game)
        if timeouts.is_due(game):
            timeouts.apply_due(game, state)  # the clock is the truth: it commits, not the move
            too_late: StaleVersion | None = _stale(game)
        else:
            too_late = None
            acted = _perform(player, game, seat, state, request)
    if too_late is not None:
        raise too_late
    return acted


@dataclass(frozen=True)
class _Request:
    action: engine.Action
    expected_version: int
    key: str
    fingerprint: str


def _perform(
    player: Player, game: Game, seat: Seat, state: engine.State, request: _Request
) -> Acted:
    # The version is checked here, under the lock: a stale client cannot slip through.
    if request.expected_version != game.version:
        raise _stale(game)
    action = request.action
    try:
        events = engine.decide(state, seat.number, action)
    except engine.IllegalAction as error:
        earlier = _earlier(player, game, request)  # a key reused for another request: a conflict
        if earlier is not None:
            return earlier
        raise RuleViolation(error, current_version=game.version) from None
    touched = [seat] if seat.timeouts or not seat.has_acted else []
    seat.timeouts, seat.has_acted = 0, True  # acting in time resets the count of timeouts
    done = append(game, state, events, actor=player, seat=seat.number, touched=touched)
    acted = Acted(game, done.state, list(done.rows), seat.number)
    _remember(player, request, acted)
    # What was done, by whom, at which version: the kind of action only, never a card.
    logger.info("game.action", seat=seat.number, action=action.type, version=game.version)
    return acted


def _remember(player: Player, request: _Request, acted: Acted) -> None:
    """Keep what the action did for a retry with the same key: which events it wrote, for which
    seat, and the turn's deadline it set (the one thing of its answer the log does not hold). No
    savepoint: a clash with an earlier use of the key (of this game, or at this moment of another
    game's) aborts the whole action."""
    record = IdempotencyRecord(
        player=player, key=request.key, game=acted.game, request_hash=request.fingerprint
    )
    record.seat, record.deadline = acted.seat, acted.game.deadline
    record.first_seq, record.last_seq = request.expected_version + 1, acted.state.version
    try:
        IdempotencyRecord.objects.bulk_create([record])
    except IntegrityError:
        raise IdempotencyConflict() from None


def _earlier(player: Player, game: Game, request: _Request) -> Acted | None:
    """What this request did when it was made before, read back from the log; the same key with
    another request is a conflict."""
    found = (
        IdempotencyRecord.objects.filter(player=player, key=request.key)
        .values_list("request_hash", "seat", "first_seq", "last_seq", "deadline")
        .first()
    )
    if found is None:
        return None
    request_hash, seat, first_seq, last_seq, deadline = found
    if request_hash != request.fingerprint:
        raise IdempotencyConflict()
    # The same fingerprint names the same game (``_fingerprint``): ``game`` is the record's.
    rows = load_events(game, 0, last_seq)
    state = engine.replay(engine.event_from_json(row.payload) for row in rows)
    return Acted(_as_left(game, state, deadline), state, rows[first_seq - 1 :], seat, True)


def _as_left(game: Game, state: engine.State, deadline: datetime | None) -> Game:
    """The game row as an action left it, at ``state``'s version: a state is the fold of its
    log, and the row's deadline is the one the action set. A match that ended with the action
    leaves the row as it is now (only its rating follows, after the commit)."""
    row = copy.copy(game)
    row.version, row.deadline = state.version, deadline
    if not state.match_over:  # the game went on, at least until this action
        row.status, row.winner_side, row.end_reason = Game.Status.ACTIVE, None, ""
    return row


def purge_idempotency_records(batch: int = 10_000) -> int:
    """Delete the idempotency records older than ``IDEMPOTENCY_HOURS``, ``batch`` at a time (a
    short transaction each, by the ``created_at`` index); how many were deleted. A retry with
    such a key is then a new request: it finds the game moved on (409 ``stale_version``)."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_HOURS)
    deleted = 0
    while True:
        old = IdempotencyRecord.objects.filter(created_at__lt=cutoff).order_by("created_at")
        ids = list(old.values_list("pk", flat=True)[:batch])
        if not ids:
            return deleted
        deleted += IdempotencyRecord.objects.filter(pk__in=ids).delete()[0]


def _stale(game: Game) -> StaleVersion:
    return StaleVersion(
        f"The game is at version {game.version}.", extra={"current_version": game.version}
    )


def _seat_player(game: Game, player: Player, number: int | None) -> Game:
    if game.status != Game.Status.OPEN:
        raise GameStarted("This game is no longer taking players.")
    taken = dict(game.seats.values_list("number", "player_id"))
    if player.pk in taken.values():
        raise AlreadySeated()
    if len(taken) + 1 < game.players:  # the game stays open: the player waits at it
        open_tables.check_room(player)
    free = [seat for seat in range(game.players) if seat not in taken]  # never empty: full starts
    if number is None:
        number = free[0]
    elif number not in free:
        raise (
            SeatTaken()
            if 0 <= number < game.players
            else SeatsRefused(
                engine.InvalidAction(f"seats run from 0 to {game.players - 1}", "no_such_seat"),
                "seat",
            )
        )
    try:
        with transaction.atomic():
            Seat.objects.create(game=game, number=number, player=player)
    except IntegrityError:
        raise SeatTaken() from None
    forget_seats(game)
    if len(taken) + 1 == game.players:
        _start(game)
    else:
        game.updated_at = timezone.now()
        game.save(update_fields=["updated_at"])
    return game


def _start(game: Game) -> None:
    """A full table starts at once: the first event holds the resolved rules, then the deal."""
    append(game, None, [engine.start_match(engine.Rules.from_json(game.rules))])


def _seat_of(game: Game, player: Player) -> Seat:
    """The player's seat, with every seat of the game (and its player) loaded once for the
    answer's view too."""
    seat = next((seat for seat in seats_of(game) if seat.player_id == player.pk), None)
    if seat is None:
        if game.visibility == Game.Visibility.PRIVATE:
            raise GameNotFound()
        raise NotSeated()
    return seat


def _active_state(game: Game) -> engine.State:
    if game.status == Game.Status.OPEN:
        raise GameNotStarted()
    if game.status != Game.Status.ACTIVE:
        raise GameOver()
    return load_state(game)


def _parse_action(body: dict[str, Any]) -> engine.Action:
    fields = {key: value for key, value in body.items() if key != "expected_version"}
    try:
        return engine.Action.from_json(fields)
    except engine.InvalidAction as error:
        raise InvalidRequest(error, error.field or "non_field_errors") from None


def _fingerprint(game_id: GameId, body: dict[str, Any]) -> str:
    canonical = json.dumps({"game": str(game_id), "body": body}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _new_join_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
