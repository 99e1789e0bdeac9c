"""The streams in the OpenAPI document (a drf-spectacular postprocessing hook).

The streams are Django async views, which drf-spectacular does not see (it documents DRF's
views), so this hook writes their operations: ``text/event-stream`` answers, the message types
with their schemas (``x-sse-messages``, and a component per message that has its own shape),
the resume rules, and the problem answers with examples built by the code that builds them.
"""

from __future__ import annotations

from typing import Any

from games.engine import EVENT_TYPES
from notifications.api.webhooks import body_component
from notifications.models import GAME_KINDS, Kind
from streams import notices
from streams.errors import CursorAhead, TooManyStreams
from truc_api.authentication import TokenScheme
from truc_api.problems import PROBLEM_CONTENT_TYPE, problem_body, problem_of
from truc_api.scopes import GAMES_READ
from truc_api.serializers import NOT_AUTHENTICATED

_GAME_ID = "0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11"

GAME_STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`): the game's event log as the caller may see it (the same
projection as `GET /api/games/{game_id}/events`: a seat never receives another seat's unplayed
card, a spectator no hidden card at all), then live, each event the moment it is committed.

Messages (`event:` names the type, `data:` is JSON on one line):

- one per event of the log: `id:` is the event's `seq`, `event:` its type (`match_started`,
  `hand_dealt`, `card_played`, ...), `data:` a `FeedItem`;
- `view` after each batch of events (and on connecting): the caller's whole view, the `Game` of
  `GET /api/games/{game_id}` (version, legal actions, turn, deadline), so no second request is
  needed; it has no `id:`;
- `end` just before the server closes the stream: `{"reason": "game_over" | "token_revoked" |
  "not_found"}`;
- comment lines (`: heartbeat`) every ~15 s while nothing happens.

Resume: send the last `id:` received as `Last-Event-ID` (EventSource does it by itself when it
reconnects) or as `?after=`; the stream replays from the log what came after it, then goes live:
nothing lost, nothing repeated. The server says `retry:` (milliseconds) for the reconnection
delay. A game that is over ends its stream once its last events are sent; reconnecting with every
event in hand answers `204 No Content`, which makes an EventSource stop.

Authentication: `Authorization: Token <token>`, checked at connect and again whenever the player's
tokens are revoked (logout): a revoked token's streams end. Spectators may follow public games
only. A player may hold a limited number of streams at once (all servers counted), and each
server a limited number: past either cap the answer is `429 too_many_streams` with
`Retry-After`. Browsers: EventSource cannot send the header, so read the stream with `fetch()`
(its body is a ReadableStream) or a fetch-based EventSource; CORS allows `Last-Event-ID`.
"""

GAME_STREAM_EXAMPLE = """\
retry: 2000

id: 3
event: card_played
data: {"seq":3,"type":"card_played","at":"2025-05-01T18:30:02.101000+00:00","seat":0,\
"data":{"seat":0,"card":"4B"}}

event: view
data: {"id":"0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11","version":3,"status":"active",...}

: heartbeat

"""

END_SCHEMA = {
    "type": "object",
    "description": "The last message of a stream the server closes.",
    "properties": {
        "reason": {"type": "string", "enum": ["game_over", "token_revoked", "not_found"]},
    },
    "required": ["reason"],
}


def _problem(name: str, body: dict[str, Any]) -> dict[str, Any]:
    return {name: {"value": body}}


def _problems(*entries: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for name, body in entries:
        response = responses.setdefault(
            str(body["status"]),
            {
                "description": body["title"],
                "content": {
                    PROBLEM_CONTENT_TYPE: {
                        "schema": {"$ref": "#/components/schemas/Problem"},
                        "examples": {},
                    }
                },
            },
        )
        response["content"][PROBLEM_CONTENT_TYPE]["examples"].update(_problem(name, body))
    return responses


def _body(error: Exception) -> dict[str, Any]:
    found = problem_of(error)
    assert found is not None
    return found[0]


def _too_many() -> dict[str, Any]:
    response: dict[str, Any] = _problems(
        (
            "TooManyStreams",
            _body(TooManyStreams("You have 16 streams open already: close one.", 10)),
        )
    )["429"]
    response["headers"] = {
        "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}
    }
    return response


def _stream_content(description: str, example: str, message: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            "text/event-stream": {
                "schema": {"$ref": f"#/components/schemas/{message}"},
                "example": example,
            }
        },
    }


#: An SSE `id:` of this server: a seq, a whole number from 1, written in decimal.
SEQ_ID = "^[1-9][0-9]*$"


def message_schema(
    description: str, messages: dict[str, str], events: tuple[str, ...], cursor: str
) -> dict[str, Any]:
    """One Server-Sent Event: its fields as the wire has them (``data`` is JSON text, ``event``
    one of ``events``, ``id`` what ``cursor`` says), and in ``x-sse-messages`` the schema of
    ``data`` for each ``event``."""
    shapes = ", ".join(f"`{name}`: `{schema}`" for name, schema in messages.items())
    return {
        "type": "object",
        "description": f"{description} The JSON in `data`, by `event`: {shapes}.",
        "properties": {
            "id": {"type": "string", "pattern": SEQ_ID, "description": cursor},
            "event": {"type": "string", "enum": list(events)},
            "data": {"type": "string", "description": "JSON on one line."},
            "retry": {"type": "integer", "description": "Milliseconds before reconnecting."},
        },
        "required": ["event", "data"],
        "x-sse-messages": {
            name: {"$ref": f"#/components/schemas/{schema}"} for name, schema in messages.items()
        },
    }


def _stream_messages() -> dict[str, Any]:
    game = {"<event type>": "FeedItem", "view": "Game", "end": "StreamEnd"}
    player = {
        "<notice kind>": "PlayerNotice",
        notices.YOUR_TURN: "PlayerTurn",
        notices.CALL_PENDING: "PlayerTurn",
        "end": "StreamEnd",
    }
    return {
        "GameStreamMessage": message_schema(
            "A message of a game's stream.",
            game,
            (*EVENT_TYPES, *list(game)[1:]),
            "On an event's message only: the event's `seq` (the same as in `data`), which counts"
            " the game's events from 1. Send it back as `Last-Event-ID` (or `after`) to resume"
            " after it; `view` and `end` carry none.",
        ),
        "PlayerStreamMessage": message_schema(
            "A message of a player's stream.",
            player,
            (*NOTICE_KINDS, *list(player)[1:]),
            "On a notice's message only: the notice's `seq` (the same as in `data`), which counts"
            " this player's notices from 1, across all his games (not a game's event seq). Send"
            " it back as `Last-Event-ID` (or `after`) to resume after it; turns and `end` carry"
            " none.",
        ),
    }


CURSOR_HEADER = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "schema": {"type": "integer", "minimum": 0},
    "description": "The last `id:` received: resume after it (takes the place of `after`).",
}


def _invalid_cursor() -> dict[str, Any]:
    invalid = problem_body(400, "invalid_request", "The request has invalid fields.")
    invalid["errors"] = [
        {"field": "after", "code": "min_value", "message": "Ensure this value is >= 0."}
    ]
    return invalid


def game_stream_operation() -> dict[str, Any]:
    return {
        "operationId": "games_stream",
        "tags": ["games"],
        "summary": "Follow a game live (Server-Sent Events)",
        "description": GAME_STREAM_DESCRIPTION,
        "parameters": [
            {
                "name": "game_id",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
                "description": "The game's UUID.",
            },
            {
                "name": "after",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 0, "default": 0},
                "description": "Send the events after this seq (`Last-Event-ID` wins).",
            },
            CURSOR_HEADER,
        ],
        "security": [{TokenScheme.name: []}, {"oauth2": GAMES_READ}],
        "responses": {
            "200": _stream_content(
                "The stream: the events after the cursor, the view, then live.",
                GAME_STREAM_EXAMPLE,
                "GameStreamMessage",
            ),
            "204": {"description": "The game is over and the cursor is at its last event."},
            **_problems(
                ("Invalid cursor", _invalid_cursor()),
                ("Cursor beyond the log", _body(CursorAhead(12))),
                ("Not authenticated", NOT_AUTHENTICATED.value),
                ("Not found", problem_body(404, "not_found", "No game with this id.")),
            ),
            "429": _too_many(),
        },
    }


PLAYER_STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`): what the caller must react to, across all his games.

Notices, kept and replayed (`id:` is the notice's seq, counted per player, `event:` its kind,
`data:` a `PlayerNotice`):

- `game_started`, `game_ended` (won or not, the reason; a rated game's change follows),
  `rating_changed` (before, after, delta), `deadline_near` (the turn times out soon),
  `player_joined` (someone took a seat at your open game);
- the lobby's, the same kinds and `data` as its webhooks (ids and settings, never a name):
  `match_found`, `seek_expired`, `challenge_received`, `challenge_accepted`,
  `challenge_declined`, `challenge_cancelled`, `challenge_expired`, `rematch_offered`,
  `rematch_started`, `rematch_declined`.

The state of his games, told on connecting and whenever it changes (no `id:`: not replayed, as
only the current one matters):

- `your_turn` (`PlayerTurn`: game, version, seat, deadline, and the call to answer if any), once
  per game and version that awaits you;
- `call_pending` (`PlayerTurn`) beside it when what awaits you is the answer to a call.

Resume with the last `id:` received as `Last-Event-ID` (or `?after=`): the notices after it, then
your current turns, then live. `end` (`{"reason": "token_revoked"}`) comes before the server
closes; `: heartbeat` comments every ~15 s. Authentication, caps and CORS as for the game stream.
"""

_UUID = {"type": "string", "format": "uuid"}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


#: The ``data`` of the notices the streams write themselves (streams/receivers.py), by kind.
NOTICE_DATA: dict[str, dict[str, Any]] = {
    notices.GAME_STARTED: {
        "game_id": _UUID,
        "preset": _ref("Preset"),
        "players": _ref("Players"),
        "seat": {**_ref("Seat"), "description": "Your seat at it."},
    },
    notices.GAME_ENDED: {
        "game_id": _UUID,
        "seat": {**_ref("Seat"), "description": "Your seat at it."},
        "status": _ref("GameStatusEnum"),
        "winner_side": {"oneOf": [_ref("Side"), {"type": "null"}]},
        "won": {"type": ["boolean", "null"], "description": "Null when nobody won (aborted)."},
        "reason": {"oneOf": [_ref("GameEndReason"), {"type": "null"}]},
        "rated": {"type": "boolean", "description": "A rated game's `rating_changed` follows."},
    },
    notices.RATING_CHANGED: {
        "game_id": _UUID,
        "family": _ref("FamilyEnum"),
        "size": _ref("SizeEnum"),
        "before": {"type": "integer"},
        "after": {"type": "integer"},
        "delta": {"type": "integer"},
    },
    notices.DEADLINE_NEAR: {
        "game_id": _UUID,
        "version": {"type": "integer", "minimum": 0},
        "deadline": {"type": ["string", "null"], "format": "date-time"},
        "seat": {**_ref("Seat"), "description": "Your seat, whose turn times out."},
    },
    notices.PLAYER_JOINED: {
        "game_id": _UUID,
        "seat": {**_ref("Seat"), "description": "The seat taken."},
        "player_id": {"type": "integer"},
    },
}


def _notice_data(kind: str) -> str:
    """The component of a notice kind's ``data``: the lobby's are its webhooks' own."""
    if kind in NOTICE_DATA:
        return f"{_camel(kind)}NoticeData"
    return f"{body_component(kind)}Data"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


#: Every kind of notice kept in a player's log: the streams' own, then the lobby's.
NOTICE_KINDS = (*NOTICE_DATA, *(kind.value for kind in Kind if kind not in GAME_KINDS))


def notice_schemas() -> dict[str, Any]:
    """``PlayerNotice`` (under a discriminator on ``kind``), a ``<Kind>Notice`` per kind, and
    the streams' own notices' data."""
    schemas: dict[str, Any] = {
        f"{_camel(kind)}NoticeData": {
            "type": "object",
            "properties": fields,
            "required": list(fields),
            "additionalProperties": False,
        }
        for kind, fields in NOTICE_DATA.items()
    }
    mapping = {kind: f"#/components/schemas/{_camel(kind)}Notice" for kind in NOTICE_KINDS}
    for kind in NOTICE_KINDS:
        schemas[f"{_camel(kind)}Notice"] = {
            "type": "object",
            "description": f"A `{kind}` notice (its seq is the message's `id:`).",
            "properties": {
                "seq": {"type": "integer", "minimum": 1},
                "kind": {"type": "string", "enum": [kind]},
                "at": {"type": "string", "format": "date-time"},
                "data": _ref(_notice_data(kind)),
            },
            "required": ["seq", "kind", "at", "data"],
            "additionalProperties": False,
        }
    schemas["PlayerNotice"] = {
        "description": "A notice kept in the player's log: switch on `kind`.",
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    }
    return schemas


TURN_SCHEMA = {
    "type": "object",
    "description": "A game that awaits the player now.",
    "properties": {
        "game_id": {"type": "string", "format": "uuid"},
        "version": {"type": "integer"},
        "seat": {**_ref("Seat"), "description": "Your seat at it."},
        "deadline": {"type": "string", "format": "date-time", "nullable": True},
        "call": {
            "allOf": [{"$ref": "#/components/schemas/PendingCall"}],
            "nullable": True,
            "description": "The call the player's side must answer, if that is what awaits.",
        },
    },
    "required": ["game_id", "version", "seat", "deadline", "call"],
}

PLAYER_STREAM_EXAMPLE = """\
retry: 2000

id: 4
event: game_started
data: {"seq":4,"kind":"game_started","at":"2025-05-01T18:30:00.118000+00:00",\
"data":{"game_id":"0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11","preset":"valenciano","players":2,"seat":1}}

event: your_turn
data: {"game_id":"0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11","version":3,"seat":1,\
"deadline":"2025-05-02T18:30:02.104000+00:00","call":null}

"""


def player_stream_operation() -> dict[str, Any]:
    return {
        "operationId": "players_stream",
        "tags": ["players"],
        "summary": "Follow everything that concerns you (Server-Sent Events)",
        "description": PLAYER_STREAM_DESCRIPTION,
        "parameters": [
            {
                "name": "after",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 0, "default": 0},
                "description": "Send the notices after this seq (`Last-Event-ID` wins).",
            },
            CURSOR_HEADER,
        ],
        "security": [{TokenScheme.name: []}, {"oauth2": GAMES_READ}],
        "responses": {
            "200": _stream_content(
                "The stream: the notices after the cursor, the current turns, then live.",
                PLAYER_STREAM_EXAMPLE,
                "PlayerStreamMessage",
            ),
            **_problems(
                ("Invalid cursor", _invalid_cursor()),
                ("Cursor beyond the log", _body(CursorAhead(12, "your last notice"))),
                ("Not authenticated", NOT_AUTHENTICATED.value),
            ),
            "429": _too_many(),
        },
    }


WAIT_DESCRIPTION = """\
Long polling, for clients that cannot read a stream (`GET /api/games/{game_id}/stream` is better:
one connection, no second request for the view): the game's events after `after`, redacted for
the caller, as soon as there are any (the page of `GET /api/games/{game_id}/events`); with none,
the answer waits up to `timeout` seconds (at most 30) and then has no events. Ask again with the
answer's `after`. A game that is over answers at once; an `after` beyond the game's version is a
422. A wait is held by the streams'
server without a thread, and counts toward the same caps as a stream (`429 too_many_streams`).
Served by a process that cannot wait (a WSGI server), it answers at once with `Retry-After: 1`.
"""


def wait_operation() -> dict[str, Any]:
    invalid = problem_body(400, "invalid_request", "The request has invalid fields.")
    invalid["errors"] = [
        {"field": "timeout", "code": "max_value", "message": "Ensure this value is <= 30."}
    ]

    def query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "schema": schema,
                "description": description}  # fmt: skip

    return {
        "operationId": "games_events_wait",
        "summary": "Wait for the game's next events (long polling)",
        "tags": ["games"],
        "description": WAIT_DESCRIPTION,
        "parameters": [
            query("after", {"type": "integer", "minimum": 0, "default": 0}, "Events after it."),
            {
                "name": "game_id",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
                "description": "The game's UUID.",
            },
            query(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 500, "default": 200},
                "At most this many events.",
            ),
            query(
                "timeout",
                {"type": "integer", "minimum": 0, "maximum": 30, "default": 25},
                "Seconds to wait for one, at most 30.",
            ),
        ],
        "security": [{TokenScheme.name: []}, {"oauth2": GAMES_READ}],
        "responses": {
            "200": {
                "description": "The feed's page after `after` (no events when the wait timed out).",
                "headers": {
                    "Retry-After": {
                        "schema": {"type": "integer"},
                        "description": "Sent when the server could not wait: ask again then.",
                    }
                },
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/FeedPage"}}
                },
            },
            **_problems(
                ("Invalid timeout", invalid),
                ("Cursor beyond the log", _body(CursorAhead(12))),
                ("Not authenticated", NOT_AUTHENTICATED.value),
                ("Not found", problem_body(404, "not_found", "No game with this id.")),
            ),
            "429": _too_many(),
        },
    }


def add_streams(result: dict[str, Any], generator: Any, request: Any, public: Any) -> Any:
    """POSTPROCESSING_HOOKS entry: the streams' operations and message components."""
    result["paths"]["/api/games/{game_id}/stream"] = {"get": game_stream_operation()}
    result["paths"]["/api/stream"] = {"get": player_stream_operation()}
    result["paths"]["/api/games/{game_id}/events/wait"] = {"get": wait_operation()}
    schemas = result["components"]["schemas"]
    schemas |= {
        **_stream_messages(),
        "StreamEnd": END_SCHEMA,
        "PlayerTurn": TURN_SCHEMA,
        **notice_schemas(),
    }
    return result
