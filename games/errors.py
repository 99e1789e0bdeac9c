"""The errors the game services raise; ``truc_api.problems`` turns each into a problem response."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from games.engine import REASONS, EngineError, InvalidAction, InvalidRules
from games.engine.errors import FIELD_CODES
from games.engine.rules import REFUSED_TOGETHER
from truc_api.problems import ApplicationError


class GameNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "No such game, or it is private."


class NotSeated(ApplicationError):
    code = "not_seated"
    status = HTTPStatus.FORBIDDEN
    title = "Only a player seated at this game may do that."


class StaleVersion(ApplicationError):
    code = "stale_version"
    status = HTTPStatus.CONFLICT
    title = "The game has moved on since the version you acted on."


class IdempotencyConflict(ApplicationError):
    code = "idempotency_conflict"
    status = HTTPStatus.CONFLICT
    title = "This Idempotency-Key was already used with another request."


class GameNotStarted(ApplicationError):
    code = "game_not_started"
    status = HTTPStatus.CONFLICT
    title = "The game has not started: it waits for players."


class GameOver(ApplicationError):
    code = "game_over"
    status = HTTPStatus.CONFLICT
    title = "The game is over."


class GameNotOver(ApplicationError):
    code = "game_not_over"
    status = HTTPStatus.CONFLICT
    title = "The game is still going on."


class GameStarted(ApplicationError):
    code = "game_started"
    status = HTTPStatus.CONFLICT
    title = "The game has already started."


class SeatTaken(ApplicationError):
    code = "seat_taken"
    status = HTTPStatus.CONFLICT
    title = "That seat is taken."


class AlreadySeated(ApplicationError):
    code = "already_seated"
    status = HTTPStatus.CONFLICT
    title = "You already have a seat at this game."


class TooManyOpenGames(ApplicationError):
    code = "too_many_open_games"
    status = HTTPStatus.CONFLICT
    title = "You already wait at as many open games as a player may."

    def __init__(self, limit: int | None = None) -> None:
        detail = None
        if limit is not None:
            detail = f"A player waits at {limit} open games at most: start, leave or await one."
        super().__init__(detail)


class InvalidRequest(ApplicationError):
    """A request the engine cannot read (unknown action, bad rules): a 400 naming the field at
    fault with the engine's code, as a serializer's would."""

    code = "invalid_request"
    status = HTTPStatus.BAD_REQUEST
    title = "The request is not valid."

    def __init__(self, error: InvalidAction | InvalidRules, field: str) -> None:
        super().__init__(
            error.message,
            extra={"errors": [{"field": field, "code": error.code, "message": error.message}]},
        )

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return FIELD_CODES


class RulesRefused(InvalidRequest):
    """Options each of a valid value that the rules refuse together (RULES.md §2): a 422."""

    code = "invalid_rules"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "The rules do not allow these options together."


class SeatsRefused(InvalidRequest):
    """Seats each of a valid number that this table cannot give (beyond its size, taken twice)."""

    code = "invalid_seats"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "This table has no such seats to give."


class RuleViolation(ApplicationError):
    """The referee says no (RULES.md §8): 422 with the code that names the rule."""

    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "The rules do not allow this action now."

    def __init__(self, error: EngineError, **extra: Any) -> None:
        super().__init__(error.message, extra=extra)
        # The engine's code for this refusal: per instance, where ApplicationError has a ClassVar.
        self.code = error.code  # type: ignore[misc]

    @classmethod
    def codes(cls) -> tuple[str, ...]:
        return tuple(REASONS)


def rules_error(error: InvalidRules) -> InvalidRequest:
    """The engine checks the options (one validator): its error, at the field it names."""
    option = getattr(error, "option", None)
    field = (
        "options" if option is None else "players" if option == "players" else f"options.{option}"
    )
    if error.code in REFUSED_TOGETHER:
        return RulesRefused(error, field)
    return InvalidRequest(error, field)


class CursorAhead(ApplicationError):
    """A well-formed cursor that no log has reached: a 422, with the version to ask from."""

    code = "after_beyond_log"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "There is no event at that seq yet."

    def __init__(self, version: int, what: str = "the game's last event") -> None:
        message = f"The cursor is beyond {what} ({version}): use a seq you received."
        super().__init__(message, extra={"current_version": version})
