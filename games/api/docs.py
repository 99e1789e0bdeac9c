"""OpenAPI pieces shared by the games views: headers, request examples, and problem responses
with an example for every error code they can answer with."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from games import errors
from games.engine import REASONS
from games.engine.actions import ALIASES, CANONICAL
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    THROTTLED,
    UNKNOWN_FIELD,
    error_example,
    invalid_request_example,
    problem_example,
    problem_responses,
)

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` of the caller's last read: answered with 304 while nothing changed.",
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    # As views._idempotency_key checks it: 1 to 255 characters, not only whitespace.
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S"},
    OpenApiParameter.HEADER,
    required=True,
    description=(
        "A unique key per intended action (e.g. a UUID); reuse it only to retry. The answer is"
        " kept for a retry for 24 hours (`IDEMPOTENCY_HOURS`), then forgotten."
    ),
)

_CONFLICTS = (
    errors.StaleVersion,
    errors.IdempotencyConflict,
    errors.GameNotStarted,
    errors.GameOver,
    errors.GameStarted,
    errors.GameNotOver,
    errors.SeatTaken,
    errors.AlreadySeated,
    errors.TooManyOpenGames,
)

# Every problem the games endpoints may answer with, by status.
_EXAMPLES: dict[int, list[OpenApiExample]] = {
    400: [
        UNKNOWN_FIELD,
        invalid_request_example("Unknown action", "type", "invalid_choice", '"fold" is not valid.'),
    ],
    401: [NOT_AUTHENTICATED],
    403: [error_example("Not seated", errors.NotSeated)],
    404: [error_example("Not found", errors.GameNotFound)],
    409: [error_example(error.code, error) for error in _CONFLICTS],
    422: [
        problem_example(code, 422, code, reason[0].upper() + reason[1:] + ".")
        for code, reason in REASONS.items()
    ],
    429: [THROTTLED],
}


def problems(*statuses: int) -> dict[tuple[int, str], OpenApiResponse]:
    """``responses`` entries for these statuses (and 429), problem+json with an example each."""
    examples = [example for status in (*statuses, 429) for example in _EXAMPLES[status]]
    return problem_responses(*examples)


CREATE_EXAMPLES = [
    OpenApiExample(
        "valenciano, 2 players",
        value={"preset": "valenciano", "players": 2, "visibility": "public"},
        request_only=True,
    ),
    OpenApiExample(
        "argentino, 4 players, private, to 15",
        value={
            "preset": "argentino",
            "players": 4,
            "visibility": "private",
            "options": {"target": 15, "buenas_from": 8},
        },
        request_only=True,
    ),
    OpenApiExample(
        "argentino, 6 players (3 v 3) with the flor and pica-pica",
        value={
            "preset": "argentino",
            "players": 6,
            "visibility": "public",
            "options": {"flor": True, "pica_pica": True},
        },
        request_only=True,
    ),
]


def _action_example(name: str) -> OpenApiExample:
    value: dict[str, Any] = {"type": name, "expected_version": 14}
    if name == "play":
        value["card"] = "7O"
    alias_of = ALIASES.get(name)
    summary = f"{name} (valenciano name of {alias_of})" if alias_of else name
    return OpenApiExample(name, summary=summary, value=value, request_only=True)


ACTION_EXAMPLES = [_action_example(name) for name in (*CANONICAL, *ALIASES)]
