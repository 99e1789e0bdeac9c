"""The ``PushData`` component: what every push carries for the app that receives it (FCM's
``data``, APNs' payload beside ``aps``, a Web Push's decrypted ``data``). Every value is a string:
FCM's data holds strings only, so the three services carry the same thing."""

from __future__ import annotations

from typing import Any

from truc_api.components import ref

Schema = dict[str, Any]

#: Each field, documented for app makers (docs/push.md tells how each service delivers it).
FIELDS: Schema = {
    "push_id": {
        "type": "string",
        "format": "uuid",
        "description": "This push: the same on a second copy, so an app drops it.",
        "examples": ["0b7e2a4c-5f0e-4c1e-9d7a-3f2f6c1d9e10"],
    },
    "kind": {**ref("PushKindEnum"), "description": "What it tells.", "examples": ["your_turn"]},
    "game_id": {
        "type": "string",
        "description": "The game's UUID; empty for a notice about no game (a challenge).",
        "examples": ["5d1c8a52-0f3b-4f7e-8d65-3c2b1a0e9f77"],
    },
    "version": {
        "type": "string",
        "pattern": "^[0-9]+$",
        "description": "The game's version that caused it (`0`: the lobby's).",
        "examples": ["12"],
    },
    "deadline": {
        "type": "string",
        "description": "When the turn times out (ISO 8601), or empty.",
        "examples": ["2026-05-01T20:30:00+00:00"],
    },
    "badge": {
        "type": "string",
        "pattern": "^[0-9]+$",
        "description": "The number of games waiting for the player's move.",
        "examples": ["2"],
    },
    "url": {
        "type": "string",
        "description": "Where the web table opens it: `/play/#/game/<game_id>`.",
        "examples": ["/play/#/game/5d1c8a52-0f3b-4f7e-8d65-3c2b1a0e9f77"],
    },
    "title": {
        "type": "string",
        "description": "The notification's title, in the device's language.",
        "examples": ["Et toca"],
    },
    "body": {
        "type": "string",
        "description": "The notification's text: names and scores, never a card.",
        "examples": ["Contra Pepa."],
    },
}


def install(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular hook: the ``PushData`` component."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["PushData"] = {
        "type": "object",
        "description": (
            "What every push carries for the app that receives it: FCM's `data`, APNs' payload"
            " beside `aps`, a Web Push's decrypted `data`. Every value is a string (FCM's data"
            " holds strings only). Never a card. More in docs/push.md."
        ),
        "properties": FIELDS,
        "required": list(FIELDS),
        "additionalProperties": False,
        "examples": [{key: field["examples"][0] for key, field in FIELDS.items()}],
    }
    return result
