"""The streams in the OpenAPI document (a drf-spectacular postprocessing hook).

The streams are Django async views, which drf-spectacular does not see (it documents DRF's
views), so this hook writes their operations: ``text/event-stream`` answers, the message types
as a union of one schema per kind of message under a discriminator on ``event`` (so generated
clients type each message's ``data``), the resume rules, and the problem answers with examples
built by the code that builds them.
"""

from __future__ import annotations

from typing import Any

import orjson

from games.contract import present
from games.engine import EVENT_TYPES
from games.errors import CursorAhead
from notifications.api.webhooks import body_component
from notifications.models import GAME_KINDS, Kind
from streams import notices, sse
from streams.errors import TooManyStreams
from truc_api.authentication import TokenScheme
from truc_api.pagination import MAX_QUERY_INTEGER
from truc_api.problems import PROBLEM_CONTENT_TYPE, problem_body, problem_of
from truc_api.scopes import GAMES_READ
from truc_api.serializers import NOT_AUTHENTICATED

_GAME_ID = "0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11"

GAME_STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`): the game's event log as the caller may see it (the same
projection as `GET /api/games/{game_id}/events`: a seat never receives another seat's unplayed
card, a spectator no hidden card at all), then live, each event the moment it is committed.

Messages (`event:` names the type, `data:` is JSON on one line; `GameStreamMessage` types each
kind, keyed by `event`):

- one per event of the log: `id:` is the event's `seq`, `event:` its type (`match_started`,
  `hand_dealt`, `card_played`, ...), `data:` that type's `FeedItem` (`CardPlayedEvent`, ...);
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

Authentication: `Authorization: Bearer <token>`, checked at connect and again whenever the player's
tokens are revoked (logout): a revoked token's streams end. Spectators may follow public games
only. A player may hold a limited number of streams at once (all servers counted), and each
server a limited number: past either cap the answer is `429 too_many_streams` with
`Retry-After`. That answer is final for an EventSource (the WHATWG spec: any status but 200
closes it for good, `readyState` CLOSED, with no reconnection): reopen the stream yourself after
`Retry-After` seconds, with the last id received. A stream that drops once open is another case:
an EventSource reconnects by itself after `retry:`. Browsers: EventSource cannot send the
header, so read the stream with `fetch()` (its body is a ReadableStream) or a fetch-based
EventSource; CORS allows `Last-Event-ID`.
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


def _stream_content(
    description: str, examples: dict[str, dict[str, Any]], message: str
) -> dict[str, Any]:
    """A stream's 200: its messages' union, and an example of each of a few kinds of message,
    with its fields as the union describes them (the wire's text of them is in the description)."""
    fields = {
        name: {"value": {**value, "data": orjson.dumps(value["data"]).decode()}}
        for name, value in examples.items()
    }
    return {
        "description": description,
        "content": {
            "text/event-stream": {
                "schema": {"$ref": f"#/components/schemas/{message}"},
                "examples": fields,
            }
        },
    }


def _on_the_wire(examples: dict[str, dict[str, Any]]) -> str:
    """The examples as the server writes them (streams/sse.py), after its `retry:` line."""
    chunks = [sse.retry(2000)]
    for value in examples.values():
        seq = int(value["id"]) if "id" in value else None
        chunks.append(sse.message(value["data"], event=value["event"], id=seq))
    return "\nOn the wire, the examples read:\n\n```\n" + b"".join(chunks).decode() + "```\n"


_AT = "2025-05-01T18:30:02.101000+00:00"

GAME_STREAM_EXAMPLES = {
    "An event": {
        "event": "card_played",
        "id": "3",
        "data": present(3, "card_played", _AT, 0, {"seat": 0, "card": "4B"}),
    },
    "The end": {"event": "end", "data": {"reason": "game_over"}},
}

PLAYER_STREAM_EXAMPLES = {
    "A notice": {
        "event": "game_started",
        "id": "4",
        "data": {
            "seq": 4,
            "kind": "game_started",
            "at": _AT,
            "data": {"game_id": _GAME_ID, "preset": "valenciano", "players": 2, "seat": 1},
        },
    },
    "Your turn": {
        "event": "your_turn",
        "data": {
            "game_id": _GAME_ID,
            "version": 3,
            "seat": 1,
            "deadline": "2025-05-02T18:30:02.104000+00:00",
            "call": None,
        },
    },
}


#: An SSE `id:` of this server: a seq, a whole number from 1, written in decimal.
SEQ_ID = "^[1-9][0-9]*$"

#: The ``id`` of a message the server sends without ``id:``.
INHERITED_ID = (
    "Not sent with this message: a reader that follows the HTML standard (EventSource) gives it"
    " the last `id:` received before it, the cursor to resume from."
)

MESSAGE_DESCRIPTION = (
    " Its fields as the wire has them (`event:`, `id:` when sent, `data:`), each text; `data` is"
    " JSON on one line, which its `contentSchema` describes (`contentMediaType`"
    " `application/json`). Switch on `event`: it says which schema `data`'s JSON follows. (A"
    " block with only `retry:`, and the `: heartbeat` comments, are no messages.)"
)


def message(event: str, data: str, description: str, cursor: str | None) -> dict[str, Any]:
    """The schema of one kind of message: ``event`` that name, ``data`` the component ``data``
    as JSON, and an ``id`` (what ``cursor`` says) on the messages a client resumes after; the
    others send none, and a reader that keeps the standard's last event ID gives them the one
    before (``INHERITED_ID``)."""
    properties: dict[str, Any] = {"event": {"type": "string", "enum": [event]}}
    properties["id"] = {"type": "string", "pattern": SEQ_ID, "description": cursor or INHERITED_ID}
    properties["data"] = {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": _ref(data),
        "description": f"JSON on one line: a `{data}`.",
    }
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": ["event", "data"] if cursor is None else ["event", "id", "data"],
        "additionalProperties": False,
    }


def messages(
    description: str, kinds: dict[str, tuple[str, dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A stream's message union (``oneOf`` under a discriminator on ``event``) and its members
    by component name, from ``kinds``: event name -> (component, message schema)."""
    mapping = {event: f"#/components/schemas/{name}" for event, (name, _) in kinds.items()}
    union = {
        "description": description + MESSAGE_DESCRIPTION,
        "oneOf": [{"$ref": target} for target in dict.fromkeys(mapping.values())],
        "discriminator": {"propertyName": "event", "mapping": mapping},
    }
    return union, dict(kinds.values())


def _kept(kinds: tuple[str, ...], what: str, cursor: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """The messages of the kinds a stream replays from its log, each ``<Kind><What>Message``
    with ``data`` a ``<Kind><What>``."""
    return {
        kind: (
            f"{_camel(kind)}{what}Message",
            message(
                kind,
                f"{_camel(kind)}{what}",
                f"The `{kind}` {what.lower()}, kept in the log.",
                cursor,
            ),
        )
        for kind in kinds
    }


_EVENT_ID = (
    "The event's `seq` (the same as in `data`), which counts the game's events from 1. Send it"
    " back as `Last-Event-ID` (or `after`) to resume after it."
)
_NOTICE_ID = (
    "The notice's `seq` (the same as in `data`), which counts this player's notices from 1,"
    " across all his games (not a game's event seq). Send it back as `Last-Event-ID` (or"
    " `after`) to resume after it."
)


def _end() -> tuple[str, dict[str, Any]]:
    closing = "The last message before the server closes the stream."
    return "StreamEndMessage", message("end", "StreamEnd", closing, None)


def _game_messages() -> dict[str, dict[str, Any]]:
    kinds = _kept(tuple(EVENT_TYPES), "Event", _EVENT_ID)
    kinds["view"] = (
        "ViewMessage",
        message(
            "view",
            "Game",
            "The caller's whole view after a batch of events (and on connecting): not replayed.",
            None,
        ),
    )
    kinds["end"] = _end()
    union, members = messages("A message of a game's stream.", kinds)
    return {"GameStreamMessage": union, **members}


def _player_messages() -> dict[str, dict[str, Any]]:
    kinds = _kept(NOTICE_KINDS, "Notice", _NOTICE_ID)
    for kind, told in (
        (notices.YOUR_TURN, "awaits you"),
        (notices.CALL_PENDING, "awaits your answer to a call"),
    ):
        kinds[kind] = (
            f"{_camel(kind)}Message",
            message(kind, "PlayerTurn", f"A game that {told} now: not replayed.", None),
        )
    kinds["end"] = _end()
    union, members = messages("A message of a player's stream.", kinds)
    return {"PlayerStreamMessage": union, **members}


#: A cursor, as the streams' query serializers read it (streams/queries.py): 400 outside.
CURSOR = {"type": "integer", "minimum": 0, "maximum": MAX_QUERY_INTEGER}

CURSOR_HEADER = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "schema": CURSOR,
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
        "description": GAME_STREAM_DESCRIPTION + _on_the_wire(GAME_STREAM_EXAMPLES),
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
                "schema": {**CURSOR, "default": 0},
                "description": "Send the events after this seq (`Last-Event-ID` wins).",
            },
            CURSOR_HEADER,
        ],
        "security": [{TokenScheme.name: []}, {"oauth2": GAMES_READ}],
        "responses": {
            "200": _stream_content(
                "The stream: the events after the cursor, the view, then live.",
                GAME_STREAM_EXAMPLES,
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

Messages (`event:` names the type, `data:` is JSON on one line; `PlayerStreamMessage` types each
kind, keyed by `event`). Notices, kept and replayed (`id:` is the notice's seq, counted per
player, `event:` its kind, `data:` that kind's notice, `GameStartedNotice`, ...):

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
    """A ``<Kind>Notice`` per kind (the ``data`` of its message in ``PlayerStreamMessage``),
    and the streams' own notices' data."""
    schemas: dict[str, Any] = {
        f"{_camel(kind)}NoticeData": {
            "type": "object",
            "properties": fields,
            "required": list(fields),
            "additionalProperties": False,
        }
        for kind, fields in NOTICE_DATA.items()
    }
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


def player_stream_operation() -> dict[str, Any]:
    return {
        "operationId": "players_stream",
        "tags": ["players"],
        "summary": "Follow everything that concerns you (Server-Sent Events)",
        "description": PLAYER_STREAM_DESCRIPTION + _on_the_wire(PLAYER_STREAM_EXAMPLES),
        "parameters": [
            {
                "name": "after",
                "in": "query",
                "required": False,
                "schema": {**CURSOR, "default": 0},
                "description": "Send the notices after this seq (`Last-Event-ID` wins).",
            },
            CURSOR_HEADER,
        ],
        "security": [{TokenScheme.name: []}, {"oauth2": GAMES_READ}],
        "responses": {
            "200": _stream_content(
                "The stream: the notices after the cursor, the current turns, then live.",
                PLAYER_STREAM_EXAMPLES,
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
            query("after", {**CURSOR, "default": 0}, "Events after it."),
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
        **_game_messages(),
        **_player_messages(),
        "StreamEnd": END_SCHEMA,
        "PlayerTurn": TURN_SCHEMA,
        **notice_schemas(),
    }
    return result
