"""The engine's exceptions. Each carries a stable ``code`` that clients rely on."""

from __future__ import annotations

from typing import Literal, get_args

#: The codes of a request's field the engine cannot read (an action, the rules' options), which the
#: API lists in a 400's or 422's `errors`. Typed, so that a new one fails mypy until listed here:
#: the OpenAPI document's enum of field codes is made from this tuple.
FieldCode = Literal[
    "invalid_action",
    "invalid_rules",
    "required",
    "unknown_action",
    "unknown_field",
    "invalid_card",
    "unknown_preset",
    "invalid_option",
    "unknown_option",
    "buenas_above_target",
    "flor_with_valencian22",
    "pica_pica_without_six",
    "no_such_seat",
    "bad_seat",
]
FIELD_CODES: tuple[FieldCode, ...] = get_args(FieldCode)


class EngineError(Exception):
    """Base of every error the referee raises."""

    code = "engine_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


class InvalidRules(EngineError):
    """A preset or option that RULES.md §2 does not allow; ``option`` names the one at fault."""

    code = "invalid_rules"

    def __init__(
        self, message: str, code: FieldCode | None = None, option: str | None = None
    ) -> None:
        super().__init__(message, code)
        self.option = option


class InvalidAction(EngineError):
    """An action that is not well formed: unknown type, missing or extra fields; ``field`` names
    the field at fault."""

    code = "invalid_action"

    def __init__(
        self, message: str, code: FieldCode | None = None, field: str | None = None
    ) -> None:
        super().__init__(message, code)
        self.field = field


class IllegalAction(EngineError):
    """A well-formed action that the rules forbid now; ``code`` names the rule (RULES.md §8)."""

    code = "illegal_action"


class InvalidEvent(EngineError):
    """An event payload that cannot be read back (unknown type, newer schema, bad fields)."""

    code = "invalid_event"
