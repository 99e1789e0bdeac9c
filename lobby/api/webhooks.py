"""The lobby's notices in the OpenAPI document: each kind's ``data`` (what ``lobby.notices.tell``
sends from seeks.py, challenges.py and rematch.py), as the ``<Kind>Notification`` components that
``notifications.api.webhooks`` makes its webhooks and its ``Notification`` union of.

A notice holds ids and settings only, never a name (a deleted account's must not outlive it in a
stored notice) and never anything of a game's state. ``install`` is a drf-spectacular
postprocessing hook, run before the notifications' one.
"""

from __future__ import annotations

from typing import Any

from notifications.api.webhooks import body_component, envelope
from notifications.models import Kind
from truc_api.components import ref

Schema = dict[str, Any]

_GAME = "8d6b2c1e-5f0a-4a43-9c7e-2b1f9e3d4a55"
_SEEK = "2f4e1c9a-7b3d-4e8f-a1c2-9d0e5b6f7a81"
_CHALLENGE = "c1a2b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"


def _id(description: str, example: str) -> Schema:
    return {"type": "string", "format": "uuid", "description": description, "examples": [example]}


_CHALLENGE_ID = _id("The challenge (`GET /api/challenges/{id}`).", _CHALLENGE)

#: Each lobby kind's ``data``: its fields, every one always sent.
DATA: dict[Kind, dict[str, Schema]] = {
    Kind.MATCH_FOUND: {
        "game_id": _id("The game that started (your seat is in its `seats`).", _GAME),
        "seats": {
            "type": "array",
            "items": {"type": ["integer", "null"]},
            "description": "By seat: the player id in it; null for a bot.",
            "examples": [[12, None]],
        },
        "bots": {
            "type": "integer",
            "minimum": 0,
            "description": "Seats bots took: an unrated seek's after its `bot_after`, else 0.",
            "examples": [1],
        },
    },
    Kind.SEEK_EXPIRED: {"seek_id": _id("Your seek, closed unpaired.", _SEEK)},
    Kind.CHALLENGE_RECEIVED: {"challenge_id": _CHALLENGE_ID},
    Kind.CHALLENGE_ACCEPTED: {
        "challenge_id": _CHALLENGE_ID,
        "game_id": _id("The game that started.", _GAME),
    },
    Kind.CHALLENGE_DECLINED: {
        "challenge_id": _CHALLENGE_ID,
        "reason": {
            **ref("DeclineReasonEnum"),
            "description": "Why it was declined.",
            "examples": ["too_fast"],
        },
    },
    Kind.CHALLENGE_CANCELLED: {"challenge_id": _CHALLENGE_ID},
    Kind.CHALLENGE_EXPIRED: {"challenge_id": _CHALLENGE_ID},
    Kind.REMATCH_OFFERED: {
        "game_id": _id("The finished game: accept with `POST /api/games/{id}/rematch`.", _GAME)
    },
    Kind.REMATCH_STARTED: {"game_id": _id("The rematch's new game.", _GAME)},
    Kind.REMATCH_DECLINED: {"game_id": _id("The finished game whose rematch is off.", _GAME)},
}


def install(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular hook: ``<Kind>Notification`` and its ``<Kind>NotificationData``."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for kind, fields in DATA.items():
        name = body_component(kind)
        schemas[f"{name}Data"] = {
            "type": "object",
            "properties": fields,
            "required": list(fields),
            "additionalProperties": False,
        }
        data = {key: field["examples"][0] for key, field in fields.items()}
        example = {"type": kind.value, "timestamp": "2026-05-01T20:30:00Z", "data": data}
        schemas[name] = {
            **envelope([kind.value], f"{name}Data", f"The lobby's notice: {kind.label}."),
            "examples": [example],
        }
    return result
