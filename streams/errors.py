"""The errors the streams raise; ``truc_api.problems`` answers each."""

from __future__ import annotations

from http import HTTPStatus

from truc_api.problems import ApplicationError


class CursorAhead(ApplicationError):
    """A well-formed cursor that no log has reached: a 422, with the version to ask from."""

    code = "after_beyond_log"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "There is no event at that seq yet."

    def __init__(self, version: int, what: str = "the game's last event") -> None:
        message = f"The cursor is beyond {what} ({version}): use a seq you received."
        super().__init__(message, extra={"current_version": version})


class TooManyStreams(ApplicationError):
    """A cap on open streams (per player, per server process) is reached: try again later."""

    code = "too_many_streams"
    status = HTTPStatus.TOO_MANY_REQUESTS
    title = "Too many open streams."

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})
