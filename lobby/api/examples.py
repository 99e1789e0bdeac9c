"""The lobby's OpenAPI parameters, examples and error examples, shared by its views."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from games import errors as game_errors
from lobby import errors as lobby_errors
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    THROTTLED,
    error_example,
    invalid_request_example,
    problem_responses,
)

SEEK_ID = OpenApiParameter(
    "seek_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The seek's id."
)
CHALLENGE_ID = OpenApiParameter(
    "challenge_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The challenge's id."
)
GAME_ID = OpenApiParameter(
    "game_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The game's id."
)
TOKEN = OpenApiParameter("token", str, OpenApiParameter.PATH, description="The link's token.")
GAME = "8d6b2c1e-5f0a-4a43-9c7e-2b1f9e3d4a55"
SEEK = "2f4e1c9a-7b3d-4e8f-a1c2-9d0e5b6f7a81"
CHALLENGE = "c1a2b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
AT = "2026-05-01T20:30:00Z"
LATER = "2026-05-01T21:00:00Z"


def error_responses(*examples: OpenApiExample) -> dict[Any, Any]:
    return problem_responses(*examples, NOT_AUTHENTICATED, THROTTLED)


def response_example(name: str, value: dict[str, Any], status_code: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[status_code])


def request_example(name: str, value: dict[str, Any]) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


SEEK_EXAMPLE = {
    "id": SEEK,
    "status": "matched",
    "player_id": 7,
    "partner_id": None,
    "preset": "valenciano",
    "players": 2,
    "options": {},
    "turn_seconds": 60,
    "rated": True,
    "rating": 1512,
    "rating_min": None,
    "rating_max": None,
    "bot_after": None,
    "created_at": AT,
    "expires_at": LATER,
    "ended_at": AT,
    "game_id": GAME,
}
CHALLENGE_EXAMPLE = {
    "id": CHALLENGE,
    "status": "pending",
    "challenger_id": 7,
    "preset": "argentino",
    "players": 2,
    "options": {},
    "turn_seconds": 86400,
    "rated": False,
    "visibility": "public",
    "seats": [
        {"number": 0, "player_id": 7, "accepted": True},
        {"number": 1, "player_id": 9, "accepted": False},
    ],
    "link_token": None,
    "decline_reason": None,
    "created_at": AT,
    "expires_at": "2026-05-02T20:30:00Z",
    "ended_at": None,
    "game_id": None,
}
REMATCH_EXAMPLE = {
    "game_id": GAME,
    "status": "offered",
    "offered_by": 7,
    "accepted_by": [7],
    "next_game_id": None,
    "previous_game_id": None,
}
BAD_OPTION = invalid_request_example(
    "Unknown preset", "preset", "invalid_choice", '"bisca" is not a valid choice.'
)
SEEK_NOT_FOUND = error_example("No such seek", lobby_errors.SeekNotFound)
CHALLENGE_NOT_FOUND = error_example("No such challenge", lobby_errors.ChallengeNotFound)
CHALLENGE_CLOSED = error_example("Challenge closed", lobby_errors.ChallengeClosed)
CHALLENGE_EXPIRED = error_example("Challenge expired", lobby_errors.ChallengeExpired)
NOT_CHALLENGED = error_example("Not challenged", lobby_errors.NotChallenged)
GAME_NOT_FOUND = error_example("No such game", game_errors.GameNotFound)
NOT_SEATED = error_example("Not seated", game_errors.NotSeated)
