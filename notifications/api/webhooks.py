"""The webhooks in the OpenAPI document (3.1's ``webhooks``): one entry per notification kind, its
body's schema, the signature's headers, and ``Notification``, every body under a discriminator on
``type`` (what a receiver behind one URL parses).

A game's kinds (``GAME_KINDS``) share one body, the game as the subscriber's seat sees it
(``notifications.payloads``): ``GameNotification``. Each lobby kind has its own body,
``<Kind>Notification``, which the lobby documents (``lobby.api.webhooks``, a hook run before this
one); a kind nobody documented stops the document's generation. ``install`` is a drf-spectacular
postprocessing hook, run before ``games.contract.install`` adds the components referred to here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import contract, engine
from notifications.models import GAME_KINDS, Kind
from truc_api.components import REF, ref

Schema = dict[str, Any]

DESCRIPTION = """\
What we POST to a subscription's URL (`application/json`), one request per notification, for the
kinds it subscribed to; the body's `type` is the kind (every body: `Notification`).

- `your_turn`: the subscriber's seat may act now and could not before;
- `call_pending`: a call (truco, envido, a raise) awaits the answer of the subscriber's side;
- `deadline_near`: the turn times out within the server's reminder lead time;
- `hand_ended`, `match_ended`: at any game the subscriber is seated at;
- the lobby's (`match_found`, `seek_expired`, `challenge_*`, `rematch_*`): ids and settings only,
  never a name or a card.

A call also hands the turn over: a seat that must now answer one gets both `your_turn` and
`call_pending` when it subscribed to both.

A game's body is the game as the subscriber's seat sees it: its own cards, never another seat's
unplayed card. Signed per Standard Webhooks (https://www.standardwebhooks.com/), with headers:

- `webhook-id`: the delivery's id, the same on every retry: **dedupe by it**. Delivery is at
  least once: a request whose answer was lost (a timeout, a crash) is sent again with this id.
- `webhook-timestamp`: Unix seconds of this attempt; refuse one far from your clock (5 minutes).
- `webhook-signature`: `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`,
  keyed with the base64-decoded part of the secret after `whsec_`; space-separated when several.

Answer 2xx within the timeout (10 s by default) to acknowledge; anything else (redirects included)
is retried after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h and 6 h, then the delivery fails.
"""

#: The request's headers (notifications/signing.py), as the receiver reads them: components
#: every webhook refers to.
HEADERS: dict[str, Schema] = {
    "WebhookId": {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
        "description": "The delivery's id (`GET /api/webhooks/deliveries/{id}`), the same on "
        "every retry: dedupe by it.",
    },
    "WebhookTimestamp": {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
        "description": "Unix seconds of this attempt: refuse one far from your clock.",
    },
    "WebhookSignature": {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
        "description": "`v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}."
        "{body}`, keyed with the secret's base64 after `whsec_`; space-separated when several.",
    },
}

_ABOUT = (
    "Signed (the headers); delivered at least once: dedupe by `webhook-id`. Answer 2xx within"
    " the timeout, or it is retried (the whole story: the `notification` callback of `POST"
    " /api/webhooks/subscriptions`)."
)

_RESPONSES = {
    "200": {"description": "Received: any 2xx status acknowledges it."},
    "4XX": {"description": "Refused: retried later, as any answer but a 2xx."},
}


def body_component(kind: str) -> str:
    """The component of ``kind``'s request body."""
    return "GameNotification" if kind in GAME_KINDS else f"{_camel(kind)}Notification"


def envelope(kinds: Iterable[str], data: str, description: str) -> Schema:
    """The Standard Webhooks shape of a body: ``type`` (one of ``kinds``), ``timestamp``, and
    ``data``, the component named ``data``."""
    return {
        "type": "object",
        "description": description,
        "properties": {
            "type": {"type": "string", "enum": list(kinds)},
            "timestamp": {
                "type": "string",
                "format": "date-time",
                "description": "When the notification was written.",
            },
            "data": ref(data),
        },
        "required": ["type", "timestamp", "data"],
        "additionalProperties": False,
    }


_GAME_DATA: Schema = {
    "type": "object",
    "description": "The game as the subscriber's seat sees it, and the events that caused this.",
    "properties": {
        "game_id": {"type": "string", "format": "uuid"},
        "version": {"type": "integer", "minimum": 0, "description": "The game's version then."},
        "seat": {**ref("Seat"), "description": "The subscriber's seat at that game."},
        "status": ref("GameStatusEnum"),
        "deadline": {
            "type": ["string", "null"],
            "format": "date-time",
            "description": "When the current turn times out; null when no turn is running.",
        },
        "events": {
            "type": "array",
            "items": ref("FeedItem"),
            "description": "The events that caused it, redacted for the seat (none for "
            "`deadline_near`).",
        },
        "state": {**ref("StateView"), "description": "The game as the seat sees it now."},
    },
    "required": ["game_id", "version", "seat", "status", "deadline", "events", "state"],
    "additionalProperties": False,
}


def install(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular hook: the game's body, ``Notification``, and a webhook per kind."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["GameNotificationData"] = _GAME_DATA
    schemas["GameNotification"] = envelope(
        GAME_KINDS, "GameNotificationData", "A notification about a game of the subscriber's."
    )
    missing = [kind.value for kind in Kind if body_component(kind) not in schemas]
    assert not missing, f"notification kinds with no documented body: {missing}"
    targets = {kind.value: REF + body_component(kind) for kind in Kind}
    schemas["Notification"] = {
        "description": "Any notification's body: switch on `type`.",
        "oneOf": [{"$ref": target} for target in dict.fromkeys(targets.values())],
        "discriminator": {"propertyName": "type", "mapping": targets},
    }
    result["components"]["parameters"] = result["components"].get("parameters", {}) | HEADERS
    result["webhooks"] = {kind.value: {"post": _operation(kind, schemas)} for kind in Kind}
    return result


def _operation(kind: Kind, schemas: Schema) -> Schema:
    body: Schema = {"schema": ref(body_component(kind))}
    # A lobby body carries its own example (JSON Schema's ``examples``), the game's are made here.
    examples = schemas[body_component(kind)].get("examples", [])
    examples = [EXAMPLES[kind]] if kind in EXAMPLES else examples
    if examples:
        body["examples"] = {kind.value: {"value": examples[0]}}
    return {
        "operationId": f"webhook_{kind.value}",
        "summary": f"{kind.label[0].upper()}{kind.label[1:]}",
        "description": f"Sent to a subscription of `{kind.value}`. {_ABOUT}",
        "tags": ["webhooks"],
        "security": [],  # signed (the headers), not sent with a token
        "parameters": [{"$ref": f"#/components/parameters/{name}"} for name in HEADERS],
        "requestBody": {"required": True, "content": {"application/json": body}},
        "responses": _RESPONSES,
    }


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# --- the game's examples, made by the engine -----------------------------------------------------
#
# Each is what ``notifications.payloads.payload`` sends seat 1 of a valenciano game after the
# moves named, the events and the view made by the engine and redacted as the feed redacts them,
# so an example cannot show a field the real body lacks, nor a card seat 1 may not see.

_GAME_ID = "0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11"
_READER = 1
_HANDS = [["4B", "5O", "6C"], ["1E", "7O", "3C"]]
_NEXT_HANDS = [["3O", "5E", "7C"], ["3B", "6O", "4C"]]  # the deal after a hand ends


def _game_example(kind: str, moves: list[tuple[int, engine.Action | None]]) -> Schema:
    """Seat 1's notification of ``kind`` after ``moves`` (a seat's action, or its resignation)
    from the first deal; its events are those of the last move and of a deal that followed."""
    state = engine.start(engine.start_match(engine.PRESETS["valenciano"]))
    state = engine.evolve(state, engine.deal_hands(state, _HANDS))
    events: list[tuple[int | None, engine.Event]] = []
    for seat, action in moves:
        made = engine.decide(state, seat, action) if action else [engine.resign(state, seat)]
        events = [(seat, event) for event in made]
        for event in made:
            state = engine.evolve(state, event)
        if state.needs_deal and state.winner is None:
            deal = engine.deal_hands(state, _NEXT_HANDS)
            events.append((None, deal))
            state = engine.evolve(state, deal)
    first = state.version - len(events) + 1
    view = engine.view_for(state, _READER)
    for key in ("rules", "version", "seat"):  # the body's own fields say these
        del view[key]
    over = state.winner is not None
    return {
        "type": kind,
        "timestamp": "2025-05-01T18:30:02.118000+00:00",
        "data": {
            "game_id": _GAME_ID,
            "version": state.version,
            "seat": _READER,
            "status": "finished" if over else "active",
            "deadline": None if over else "2025-05-02T18:30:02.104000+00:00",
            "events": [
                contract.present(
                    first + i,
                    event.TYPE,
                    "2025-05-01T18:30:02.101000+00:00",
                    seat,
                    engine.redact_json(event.to_json(), _READER),
                )
                for i, (seat, event) in enumerate(events)
            ],
            "state": view,
        },
    }


def _reminder(example: Schema) -> Schema:
    """A reminder is written by the beat, not by a move: no events (``reminders.remind``)."""
    data = {**example["data"], "events": []}
    return {**example, "timestamp": "2025-05-02T18:25:02.104000+00:00", "data": data}


_LEAD = (0, engine.play("4B"))
_TRUCO = (0, engine.Action("truco"))

EXAMPLES: dict[str, Schema] = {
    Kind.YOUR_TURN: _game_example(Kind.YOUR_TURN, [_LEAD]),
    Kind.CALL_PENDING: _game_example(Kind.CALL_PENDING, [_TRUCO]),
    Kind.DEADLINE_NEAR: _reminder(_game_example(Kind.DEADLINE_NEAR, [_LEAD])),
    Kind.HAND_ENDED: _game_example(Kind.HAND_ENDED, [_TRUCO, (1, engine.Action("no_quiero"))]),
    Kind.MATCH_ENDED: _game_example(Kind.MATCH_ENDED, [_LEAD, (0, None)]),
}
