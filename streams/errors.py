"""The errors the streams raise; ``truc_api.problems`` answers each."""

from __future__ import annotations

from http import HTTPStatus

from truc_api.problems import ApplicationError


class CursorAhead(ApplicationError):
    code = "invalid_request"
    status = HTTPStatus.BAD_REQUEST
    title = "The request is not valid."

    def __init__(self, version: int, field: str = "after") -> None:
        message = f"`{field}` is beyond the log's last entry ({version}): use a seq you received."
        error = {"field": field, "code": "after_beyond_log", "message": message}
        super().__init__(message, extra={"errors": [error]})


class TooManyStreams(ApplicationError):
    """A cap on open streams (per player, per server process) is reached: try again later."""

    code = "too_many_streams"
    status = HTTPStatus.TOO_MANY_REQUESTS
    title = "Too many open streams."

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})
