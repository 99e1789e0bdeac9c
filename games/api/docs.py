"""OpenAPI pieces of the games views: headers, request examples, and for each operation the
problems it answers with, each example built by the code that answers it (``problem_of``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from games import engine, errors
from games.api.serializers import (
    ActionSerializer,
    FeedQuerySerializer,
    GameCreateSerializer,
    JoinByCodeSerializer,
    JoinSerializer,
    OpenGamesQuerySerializer,
)
from games.engine import REASONS
from games.engine.actions import ALIASES, CANONICAL
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    THROTTLED,
    answer,
    page_refusal,
    problem_responses,
    refusal,
)

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` of the caller's last read: answered with 304 while nothing changed.",
)
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200, 201, 304],
    required=True,
    description="The caller's view's tag: send it back as `If-None-Match` to poll for a change.",
)
#: What ``GET /api/rules`` is cached for: the rules change only with a release.
RULES_CACHE_CONTROL = "public, max-age=3600"
RULES_CACHING = OpenApiParameter(
    "Cache-Control",
    str,
    OpenApiParameter.HEADER,
    response=[200],
    required=True,
    description=f"`{RULES_CACHE_CONTROL}`: the rules change only with a release.",
)
#: A game's view is the reader's own and changes with any move: kept, but checked each time.
VIEW_CACHE_CONTROL = "private, no-cache"
VIEW_CACHING = OpenApiParameter(
    "Cache-Control",
    str,
    OpenApiParameter.HEADER,
    response=[200, 304],
    required=True,
    description=f"`{VIEW_CACHE_CONTROL}`: the reader's own view; revalidate it (`ETag`).",
)
ETAG_OF_ACTION = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[201],
    description=(
        "The tag of the view in this answer, as a read would send it: poll with it. Not sent"
        " on a replay (`Idempotent-Replayed`), whose view may be old."
    ),
)
REPLAYED = OpenApiParameter(
    "Idempotent-Replayed",
    {"type": "string", "enum": ["true"]},
    OpenApiParameter.HEADER,
    response=[201],
    description="`true` when this is the stored answer to an earlier request with the same key.",
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

# --- the problems each operation answers with, built by the code that answers them -------------


def _action_refusal(name: str, body: dict[str, Any]) -> OpenApiExample:
    """The 400 the engine's reading of an action answers (services.act)."""
    try:
        engine.Action.from_json(body)
    except engine.InvalidAction as error:
        return answer(name, errors.InvalidRequest(error, error.field or "non_field_errors"))
    raise AssertionError(body)


def _rules_refusal(name: str, preset: str, options: dict[str, Any]) -> OpenApiExample:
    try:
        engine.resolve_rules(preset, options)
    except engine.InvalidRules as error:
        return answer(name, errors.rules_error(error))
    raise AssertionError(options)


def _rule(code: str) -> OpenApiExample:
    refused = engine.IllegalAction(REASONS[code], code)
    return answer(code, errors.RuleViolation(refused, current_version=14))


#: What views.idempotency_key answers when the header is missing, empty or too long.
MISSING_KEY = {"Idempotency-Key": ["Send a unique key (1 to 255 characters) with every action."]}
_STALE = errors.StaleVersion("The game is at version 15.", extra={"current_version": 15})
_SEAT_TAKEN = answer("Seat taken", errors.SeatTaken())
_ALREADY_SEATED = answer("Already seated", errors.AlreadySeated())
_STARTED = answer("Game started", errors.GameStarted("This game is no longer taking players."))
_NO_SUCH_SEAT = answer(
    "No such seat",
    errors.SeatsRefused(engine.InvalidAction("seats run from 0 to 1", "no_such_seat"), "seat"),
)
_NOT_FOUND = answer("Not found", errors.GameNotFound())
_NOT_SEATED = answer("Not seated", errors.NotSeated())


#: By operation: every problem it answers with but 401 and 429, which every one may.
_BY_OPERATION: dict[str, list[OpenApiExample]] = {
    "rules_read": [],
    "games_create": [
        refusal("Unknown field", GameCreateSerializer, {"preset": "valenciano", "colour": "red"}),
        refusal("Unknown preset", GameCreateSerializer, {"preset": "poker"}),
        _rules_refusal("Target out of range", "valenciano", {"target": 100}),
        _rules_refusal("Unknown option", "valenciano", {"jokers": True}),
        _rules_refusal("Buenas above the target", "argentino", {"target": 10, "buenas_from": 12}),
        _rules_refusal("Flor with valencian22", "valenciano", {"flor": True}),
        _rules_refusal("Pica-pica without 6 players", "argentino", {"pica_pica": True}),
        answer(
            "Bots' seats",
            errors.SeatsRefused(
                engine.InvalidAction("bots take distinct seats from 1 to 1", "bad_seat"), "bots"
            ),
        ),
        answer("Too many open games", errors.TooManyOpenGames(10)),
    ],
    "games_open": [
        refusal("Unknown preset", OpenGamesQuerySerializer, {"preset": "poker"}),
        page_refusal("Limit out of range"),
    ],
    "games_live": [
        refusal("Unknown table size", OpenGamesQuerySerializer, {"players": 3}),
        page_refusal("Limit out of range"),
    ],
    "games_mine": [page_refusal("Limit out of range")],
    "games_join_by_code": [
        refusal("No code", JoinByCodeSerializer, {}),
        answer("No game has that code", errors.GameNotFound("No game has that join code.")),
        _STARTED,
        _SEAT_TAKEN,
        _ALREADY_SEATED,
        _NO_SUCH_SEAT,
        answer("Too many open games", errors.TooManyOpenGames(10)),
    ],
    "games_read": [_NOT_FOUND],
    "games_join": [
        refusal("Seat not a number", JoinSerializer, {"seat": "1"}),
        _NOT_FOUND,
        _STARTED,
        _SEAT_TAKEN,
        _ALREADY_SEATED,
        _NO_SUCH_SEAT,
        answer("Too many open games", errors.TooManyOpenGames(10)),
    ],
    "games_leave": [
        _NOT_SEATED,
        _NOT_FOUND,
        answer("Game started", errors.GameStarted("A started game is left by resigning.")),
    ],
    "games_resign": [
        _NOT_SEATED,
        _NOT_FOUND,
        answer("Game not started", errors.GameNotStarted()),
        answer("Game over", errors.GameOver()),
    ],
    "games_act": [
        _action_refusal("Unknown action", {"type": "fold"}),
        _action_refusal("No card", {"type": "play"}),
        _action_refusal("Not a card", {"type": "play", "card": "8E"}),
        _action_refusal("A card with a call", {"type": "truco", "card": "7O"}),
        refusal(
            "Version not a number", ActionSerializer, {"type": "mazo", "expected_version": "3"}
        ),
        answer("No Idempotency-Key", serializers.ValidationError(MISSING_KEY)),
        _NOT_SEATED,
        _NOT_FOUND,
        answer("Stale version", _STALE),
        answer("Key reused", errors.IdempotencyConflict()),
        answer("Game not started", errors.GameNotStarted()),
        answer("Game over", errors.GameOver()),
        *(_rule(code) for code in REASONS),
    ],
    "games_events": [
        refusal("After not a number", FeedQuerySerializer, {"after": "x"}),
        _NOT_FOUND,
        answer("Cursor beyond the log", errors.CursorAhead(12)),
    ],
    "games_history": [_NOT_FOUND],
    "games_export": [
        _NOT_FOUND,
        answer("Not over", errors.GameNotOver("A game is exported once it is over.")),
    ],
}


def problems(operation_id: str, *more: OpenApiExample) -> dict[tuple[int, str], OpenApiResponse]:
    """``responses`` entries: the operation's own problems, 401 and 429, an example each."""
    own = [*_BY_OPERATION[operation_id], *more]
    authenticated = operation_id != "rules_read"
    return problem_responses(*own, *([NOT_AUTHENTICATED] if authenticated else []), THROTTLED)


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


def _live_row(preset: str, names: list[str | None], scores: list[int], turn: int) -> dict[str, Any]:
    """A row of ``GET /api/games/live``, as ``selectors.game_summary`` writes it for a
    spectator (``my_seat`` null)."""
    seats = [
        {"seat": n, "side": n % 2, "player": {"id": 10 + n, "name": name} if name else None}
        for n, name in enumerate(names)
    ]
    return {
        "id": "6f1c2a9e-3b7d-4c5e-9a8f-0d1e2f3a4b5c",
        "preset": preset,
        "players": len(names),
        "visibility": "public",
        "status": "active",
        "version": 37,
        "seats": seats,
        "scores": scores,
        "camas": [0, 0],
        "turn": turn,
        "deadline": "2026-12-01T15:04:05+00:00",
        "created_at": "2026-12-01T14:51:00+00:00",
        "updated_at": "2026-12-01T15:03:05+00:00",
        "my_seat": None,
        "awaiting": False,
    }


LIVE_EXAMPLES = [
    OpenApiExample(
        "A valenciano game against a bot",
        value=_live_row("valenciano", ["ana", "Bot strong 1"], [9, 4], 1),
        response_only=True,
    ),
    OpenApiExample(
        "Four people playing argentino",
        value=_live_row("argentino", ["beto", "caro", "dani", "eli"], [3, 12], 2),
        response_only=True,
    ),
]
