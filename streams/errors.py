"""The errors the streams raise; ``truc_api.problems`` answers each (a cursor beyond the log
is ``games.errors.CursorAhead``, as the feed refuses it)."""

from __future__ import annotations

from http import HTTPStatus

from truc_api.problems import ApplicationError


class TooManyStreams(ApplicationError):
    """A cap on open streams (per player, per server process) is reached: try again later."""

    code = "too_many_streams"
    status = HTTPStatus.TOO_MANY_REQUESTS
    title = "Too many open streams."

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})
