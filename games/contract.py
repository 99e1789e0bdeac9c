"""The API's contract for games, generated from the referee's own tables: one module.

Every closed value set the API shows (action types and aliases, card codes, event types, presets,
options and their values, end reasons, point kinds, calls) and the schema of every event type come
from the engine here: its ``CANONICAL``/``ALIASES``, ``DECKS``, ``EVENT_TYPES`` (each event's
dataclass fields and their types), ``PRESETS``, ``OPTION_CHOICES``/``OPTION_BOUNDS``. A new action,
option or event in the engine appears in the OpenAPI document, in ``GET /api/rules`` and in the
feed's typed events without a line here, unless it needs words of its own (``_FIELDS``).

``install`` is a drf-spectacular postprocessing hook: it adds the components below that the
document refers to; serializers refer to them with ``truc_api.components.component``. Whatever
sends events (the feed, the long poll, webhooks, the export, a stream) sends ``present``'s shape,
the ``FeedItem`` component: one schema per event type (``<Type>Event``, its data ``<Type>Data``)
under a discriminator on ``type``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any

from games import engine
from games.engine import cards, events
from games.engine import rules as engine_rules
from games.engine.actions import (
    ALIASES,
    CANONICAL,
    ENVIDO_CALLS,
    FLOR_CALLS,
    FLOR_CONTEST_CALLS,
    TRUCO_CALLS,
    TRUCO_LEVEL,
)
from games.engine.scoring import ENVIDO_CALL_POINTS
from truc_api.components import REF, Schema, nullable, ref
from truc_api.pagination import MAX_QUERY_INTEGER

PLAYER_COUNTS = tuple(int(str(n)) for n in engine_rules.OPTION_CHOICES["players"])
MAX_PLAYERS = max(PLAYER_COUNTS)
ABANDONED = "abandoned"  # a game left by every player before it started (games.services)
EXPIRED = "expired"  # an open game that did not fill in time (games.open_tables)
CARD_CODES = tuple(dict.fromkeys(card for deck in cards.DECKS.values() for card in deck))


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _enum(values: typing.Iterable[Any], description: str) -> Schema:
    values = list(values)
    kind = "boolean" if isinstance(values[0], bool) else "integer"
    kind = "string" if isinstance(values[0], str) else kind
    return {"type": kind, "enum": values, "description": description}


# --- the value sets -----------------------------------------------------------------------------

_SIDE_TEXT = (
    "A side: 0 (seats 0, 2, 4) or 1 (seats 1, 3, 5); partners sit across (RULES.md §1). Lists"
    " `by side` (`scores`, `camas`) are indexed by it."
)
_SEAT_TEXT = (
    "A seat, 0 to players - 1, in playing order; side = seat % 2 (RULES.md §1). Lists `by"
    " seat` (`cards_left`, a deal's `hands`) are indexed by it."
)


def _option_schema(name: str) -> Schema:
    if name in engine_rules.OPTION_BOUNDS:
        low, high = engine_rules.OPTION_BOUNDS[name]
        return {"type": "integer", "minimum": low, "maximum": high}
    values = engine_rules.OPTION_CHOICES[name]
    if all(isinstance(value, bool) for value in values):
        return {"type": "boolean"}
    return ref(_camel(name))


OPTION_NAMES = tuple(
    field.name for field in dataclasses.fields(engine.Rules) if field.name != "preset"
)


def _value_sets() -> dict[str, Schema]:
    sets = {
        "Seat": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_PLAYERS - 1,
            "description": _SEAT_TEXT,
        },
        "Side": _enum((0, 1), _SIDE_TEXT),
        "CardCode": _enum(
            CARD_CODES,
            "A card: rank then suit (`7O`, `12B`); each deck's cards, names and strengths are in"
            " `GET /api/rules`.",
        ),
        "Suit": _enum(cards.SUITS, "E espadas, B bastos, O oros, C copas (RULES.md §1)."),
        "ActionType": _enum(
            (*CANONICAL, *ALIASES),
            "An action: the canonical names, or their valenciano aliases (RULES.md §5): "
            + ", ".join(f"`{alias}` = `{name}`" for alias, name in ALIASES.items())
            + ".",
        ),
        "CallActionType": _enum(
            [name for name in (*CANONICAL, *ALIASES) if name != "play"],
            "Every action but `play`: calls, answers, `mazo` and `paso`; none takes a card.",
        ),
        "LegalCallType": _enum(
            [name for name in CANONICAL if name != "play"],
            "A legal action other than a card, in its canonical name.",
        ),
        "EventType": _enum(engine.EVENT_TYPES, "The type of an event of a game's log."),
        "Preset": _enum(engine.PRESETS, "A preset: a full set of options (RULES.md §2)."),
        "TrucoCall": _enum(TRUCO_CALLS, "A call of the truco ladder (RULES.md §5.1)."),
        "EnvidoCall": _enum(ENVIDO_CALLS, "A call of the envido ladder (RULES.md §5.2)."),
        "FlorCall": _enum(
            FLOR_CONTEST_CALLS,
            "A call of the flor contest: the first flor stands as one, then its raises (RULES.md"
            " §5.3.5).",
        ),
        "Ladder": _enum(
            ("truco", "envido", "flor"), "The ladder a call belongs to (flor: the contest)."
        ),
        "Call": _enum(
            (*TRUCO_CALLS, *ENVIDO_CALLS, *FLOR_CONTEST_CALLS),
            "A call of the truco or envido ladder, or of the flor contest (RULES.md §5).",
        ),
        "HandKind": _enum(
            events.HAND_KINDS,
            "A redonda (side against side) or a pica-pica hand of three duels (RULES.md §9).",
        ),
        "FlorSettlement": _enum(
            events.FLOR_SETTLEMENTS,
            "How a flor was settled: unopposed (3 a flor), compared (`quiero`), conceded"
            " (`con_flor_me_achico`) or a raise refused (`no_quiero`) (RULES.md §5.3.4-5).",
        ),
        "Duel": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2,
            "description": "A pica-pica duel: k is the hand's k-th seat from the mano against the"
            " seat facing him (RULES.md §9).",
        },
        "TrucoLevel": {
            "type": "integer",
            "minimum": 1,
            "maximum": max(TRUCO_LEVEL.values()),
            "description": "The truco level: 1 when nothing was accepted, then "
            + ", ".join(f"{level} {call}" for call, level in TRUCO_LEVEL.items())
            + " (RULES.md §5.1).",
        },
        "HandEndReason": _enum(events.HAND_END_REASONS, "Why a hand ended."),
        "MatchEndReason": _enum(events.MATCH_END_REASONS, "Why a match ended."),
        "GameEndReason": _enum(
            (*events.MATCH_END_REASONS, ABANDONED, EXPIRED),
            "Why a game ended: its match's reason, `abandoned` (left by all before it started) or"
            " `expired` (not full in time).",
        ),
        "PointKind": _enum(events.POINT_KINDS, "What points were scored for (RULES.md §7)."),
        "Players": _enum(engine_rules.OPTION_CHOICES["players"], "Players at the table."),
        "BazaResult": {
            "oneOf": [ref("Side"), {"type": "string", "enum": [engine.PARDA]}],
            "description": "The side that won a baza, or `parda` (a tie between sides).",
        },
        "Points": {
            "type": "object",
            "properties": {
                "kind": ref("PointKind"),
                "side": ref("Side"),
                "points": {"type": "integer", "minimum": 1},
            },
            "required": list(events.POINTS_FIELDS),
            "additionalProperties": False,
            "description": "Points one side scored in a hand, in the order they were scored.",
        },
    }
    for name, values in engine_rules.OPTION_CHOICES.items():
        if name != "players" and not all(isinstance(value, bool) for value in values):
            sets[_camel(name)] = _enum(values, f"The values of the `{name}` option (RULES.md §2).")
    return sets


def _rules_schemas() -> dict[str, Schema]:
    options = {name: _option_schema(name) for name in OPTION_NAMES}
    options["players"] = ref("Players")
    return {
        "Rules": {
            "type": "object",
            "properties": {"preset": ref("Preset"), **options},
            "required": ["preset", *OPTION_NAMES],
            "additionalProperties": False,
            "description": "A game's resolved rules: its preset with every option (RULES.md §2).",
        },
        "RuleOptions": {
            "type": "object",
            "properties": {name: schema for name, schema in options.items() if name != "players"},
            "additionalProperties": False,
            "description": (
                "Overrides of the preset's options (RULES.md §2), any subset. `buenas_from` must"
                " not exceed the target (a 422 `invalid_rules` otherwise)."
            ),
        },
    }


# --- the events ---------------------------------------------------------------------------------

_CARDS_OR_HIDDEN = {
    "type": "array",
    "items": {"type": ["array", "null"], "items": ref("CardCode")},
    "description": "By seat: the reader's own three cards; null for every other seat.",
}
_BY_SIDE = {
    "type": "array",
    "items": {"type": "integer", "minimum": 0},
    "minItems": 2,
    "maxItems": 2,
}

#: Words the field types do not carry: by field name, or by (event type, field name) first.
_FIELDS: dict[Any, Schema] = {
    "seat": ref("Seat"),
    "dealer": ref("Seat"),
    "leader": ref("Seat"),
    "winner": ref("Side"),
    "side": ref("Side"),
    "card": ref("CardCode"),
    "level": ref("TrucoLevel"),
    "result": ref("BazaResult"),
    "rules": ref("Rules"),
    "number": {"type": "integer", "minimum": 1},
    "count": {"type": "integer", "minimum": 1},
    "points": {"type": "integer", "minimum": 0},
    "value": {"type": "integer", "minimum": 0, "description": "The winning envido value only."},
    "scores": {**_BY_SIDE, "description": "By side: the scores after this."},
    "camas": {**_BY_SIDE, "description": "By side: the camas won."},
    ("hand_dealt", "hands"): _CARDS_OR_HIDDEN,
    ("baza_ended", "winner"): {**ref("Seat"), "description": "The seat that won it."},
    ("truco_called", "call"): ref("TrucoCall"),
    ("envido_called", "call"): ref("EnvidoCall"),
    ("hand_ended", "reason"): ref("HandEndReason"),
    ("hand_ended", "points"): {"type": "array", "items": ref("Points")},
    ("hand_dealt", "kind"): ref("HandKind"),
    ("flor_called", "call"): ref("FlorCall"),
    ("flor_settled", "how"): ref("FlorSettlement"),
    ("flor_settled", "winner"): {**ref("Side"), "description": "The side the flor points go to."},
    ("flor_settled", "value"): {
        "type": "integer",
        "minimum": 20,
        "description": "The winning flor's value, only when the flores were compared.",
    },
    ("duel_ended", "duel"): ref("Duel"),
    ("duel_ended", "reason"): ref("HandEndReason"),
    ("duel_ended", "points"): {"type": "array", "items": ref("Points")},
    ("duel_started", "duel"): ref("Duel"),
    ("duel_started", "seats"): {
        "type": "array",
        "items": ref("Seat"),
        "minItems": 2,
        "maxItems": 2,
        "description": "The duel's two seats, its mano first.",
    },
    ("match_ended", "reason"): ref("MatchEndReason"),
    ("match_ended", "seat"): {**ref("Seat"), "description": "The seat that resigned, if one did."},
    ("envido_refused", "side"): {**ref("Side"), "description": "The side the points go to."},
}
#: Event fields held as tuples in the log and shown as objects (named members), like the history.
_RECORDS = {
    ("hand_ended", "points"): events.POINTS_FIELDS,
    ("duel_ended", "points"): events.POINTS_FIELDS,
}


def _from_hint(hint: Any) -> Schema:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        present = [arg for arg in args if arg is not type(None)]
        schema = _from_hint(present[0]) if len(present) == 1 else {}
        if len(present) > 1:
            schema = {"oneOf": [_from_hint(arg) for arg in present]}
        return nullable(schema) if type(None) in args else schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _from_hint(args[0])}
        items = {_from_hint(arg)["type"] for arg in args}
        return {
            "type": "array",
            "items": {"type": items.pop()} if len(items) == 1 else {},
            "minItems": len(args),
            "maxItems": len(args),
        }
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return ref(hint.__name__)  # a component of the same name (``Rules``)
    return {int: {"type": "integer"}, str: {"type": "string"}, bool: {"type": "boolean"}}[hint]


def _allows_null(schema: Schema) -> bool:
    kinds = schema.get("type")
    return (isinstance(kinds, list) and "null" in kinds) or {"type": "null"} in schema.get(
        "oneOf", []
    )


def _event_data(cls: type[engine.Event]) -> Schema:
    hints = typing.get_type_hints(cls)
    properties: Schema = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        typed = _from_hint(hint)
        schema = _FIELDS.get((cls.TYPE, field.name)) or _FIELDS.get(field.name) or typed
        if (schema.get("type") == "array") != (typed.get("type") == "array"):
            schema = typed  # a field named like another of another shape: its type decides
        if type(None) in typing.get_args(hint) and not _allows_null(schema):
            schema = nullable(schema)
        properties[field.name] = schema
    data: Schema = {
        "type": "object",
        "properties": properties,
        "required": [field.name for field in dataclasses.fields(cls)],
        "additionalProperties": False,
    }
    if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):
        data["description"] = " ".join(cls.__doc__.split())
    return data


def _event_schemas() -> dict[str, Schema]:
    schemas: dict[str, Schema] = {}
    mapping = {}
    for kind, cls in engine.EVENT_TYPES.items():
        name = _camel(kind)
        schemas[f"{name}Data"] = _event_data(cls)
        schemas[f"{name}Event"] = {
            "type": "object",
            "properties": {
                "seq": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Its place in the log, from 1; the game's `version` is the last",
                },
                "type": {"type": "string", "enum": [kind]},
                "at": {"type": "string", "format": "date-time"},
                "seat": nullable({**ref("Seat"), "description": "The acting seat, if any."}),
                "data": ref(f"{name}Data"),
            },
            "required": ["seq", "type", "at", "seat", "data"],
            "additionalProperties": False,
        }
        mapping[kind] = REF + f"{name}Event"
    schemas["FeedItem"] = {
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
        "description": (
            "An event of the game's log as the reader may see it (a deal shows only the reader's"
            " own cards); `type` says which, and `data` holds that type's fields."
        ),
    }
    return schemas


def present(row_seq: int, kind: str, at: str, seat: int | None, data: Mapping[str, Any]) -> Schema:
    """An event of the log, already redacted for its reader, in the ``FeedItem`` shape."""
    shown = {key: value for key, value in data.items() if key not in ("type", "v")}
    for (record_kind, name), members in _RECORDS.items():
        if kind == record_kind and name in shown:
            shown[name] = [dict(zip(members, entry, strict=True)) for entry in shown[name]]
    return {"seq": row_seq, "type": kind, "at": at, "seat": seat, "data": shown}


# --- the actions --------------------------------------------------------------------------------


def _action_schemas() -> dict[str, Schema]:
    version = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_QUERY_INTEGER,
        "description": "The game `version` the client acted on; a 409 `stale_version` if it moved.",
    }
    return {
        "LegalPlay": {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": ["play"]}, "card": ref("CardCode")},
            "required": ["type", "card"],
            "additionalProperties": False,
        },
        "LegalCall": {
            "type": "object",
            "properties": {"type": ref("LegalCallType")},
            "required": ["type"],
            "additionalProperties": False,
        },
        "LegalAction": {
            "oneOf": [ref("LegalPlay"), ref("LegalCall")],
            "description": (
                "An action the seat may take now, in canonical names: send it back as it is, with"
                " the `expected_version`."
            ),
        },
        "PlayActionRequest": {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["play"]},
                "card": {**ref("CardCode"), "description": "A card of the caller's hand."},
                "expected_version": version,
            },
            "required": ["type", "card", "expected_version"],
            "additionalProperties": False,
        },
        "CallActionRequest": {
            "type": "object",
            "properties": {"type": ref("CallActionType"), "expected_version": version},
            "required": ["type", "expected_version"],
            "additionalProperties": False,
        },
        "ActionRequest": {
            "oneOf": [ref("PlayActionRequest"), ref("CallActionRequest")],
            "description": (
                "An action for the caller's own seat (never named in the body): `play` with a"
                " card, or any other action without one."
            ),
        },
    }


def _all() -> dict[str, Schema]:
    found: dict[str, Schema] = {}
    for part in (_value_sets, _rules_schemas, _action_schemas):
        found |= part()
    return found


_ALL: dict[str, Schema] = {}
_ALL |= _value_sets()  # `_nullable` reads the value sets' types
_ALL |= _all()
_ALL |= _event_schemas()
COMPONENTS: Mapping[str, Schema] = _ALL


def install(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """drf-spectacular hook: add the components the document refers to, and what they refer to."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    clashes = sorted(set(schemas) & set(COMPONENTS))
    assert not clashes, f"serializers named like the contract's components: {clashes}"
    wanted = _references(result)
    while wanted:
        name = wanted.pop()
        if name in COMPONENTS and name not in schemas:
            schemas[name] = COMPONENTS[name]
            wanted |= _references(COMPONENTS[name])
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    for item in result.get("paths", {}).values():
        for operation in item.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body and body["schema"].get("$ref", "").removeprefix(REF) in COMPONENTS:
                operation["requestBody"]["required"] = True  # a contract body is never optional
    return result


def _references(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].removeprefix(REF)} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= _references(value)
        return found
    if isinstance(node, list):
        return set().union(*map(_references, node)) if node else set()
    return set()


# --- GET /api/rules -----------------------------------------------------------------------------


def rules_metadata() -> Schema:
    """What a client needs to render cards, sort hands and offer actions, from the engine."""
    return {
        "presets": [engine.PRESETS[name].to_json() for name in engine.PRESETS],
        "options": [_option_metadata(name) for name in OPTION_NAMES],
        "suits": [
            {"code": suit, "es": spanish, "ca": valencian}
            for suit, (spanish, valencian) in cards.SUIT_NAMES.items()
        ],
        "decks": [
            {
                "name": deck,
                "cards": [
                    {
                        "code": card,
                        "rank": int(card[:-1]),
                        "suit": cards.suit_of(card),
                        "truco_strength": cards.TRUCO_RANK[card],
                        "envido_value": cards.ENVIDO_VALUE[card],
                    }
                    for card in sorted(deck_cards, key=lambda c: (-cards.TRUCO_RANK[c], c))
                ],
            }
            for deck, deck_cards in cards.DECKS.items()
        ],
        "figures": [
            {"rank": rank, "es": spanish, "ca": valencian}
            for rank, (spanish, valencian) in cards.FIGURE_NAMES.items()
        ],
        "actions": [
            {
                "type": name,
                "aliases": [alias for alias, canonical in ALIASES.items() if canonical == name],
                "takes_card": name == "play",
                "ladder": "truco"
                if name in TRUCO_CALLS
                else "envido"
                if name in ENVIDO_CALLS
                else "flor"
                if name in FLOR_CALLS
                else None,
                "truco_level": TRUCO_LEVEL.get(name),
                "envido_points": ENVIDO_CALL_POINTS.get(name),
            }
            for name in CANONICAL
        ],
        "event_types": list(engine.EVENT_TYPES),
    }


def _option_metadata(name: str) -> Schema:
    entry: Schema = {"name": name}
    if name in engine_rules.OPTION_BOUNDS:
        low, high = engine_rules.OPTION_BOUNDS[name]
        return {**entry, "type": "integer", "minimum": low, "maximum": high, "values": None}
    values = list(engine_rules.OPTION_CHOICES[name])
    kind = "boolean" if all(isinstance(value, bool) for value in values) else "choice"
    return {**entry, "type": kind, "minimum": None, "maximum": None, "values": values}
