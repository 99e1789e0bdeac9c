"""The OpenAPI document's project-wide parts, added after drf-spectacular has built it.

The document is OpenAPI 3.1; a 3.0 `nullable` that a hand-written schema (or DRF's pagination)
still carries becomes 3.1's "or null" here (``null_as_31``), so that no form of it is left that
generators read differently.

`ProblemCode` is the enum of every `code` a problem can carry: the framework's and each
`ApplicationError` subclass's (``codes()``), found by walking the subclasses, so that an app's new
error is listed without this module knowing the app. The `servers` entry says where the paths
are relative to.
"""

from __future__ import annotations

from collections.abc import Iterator
from http import HTTPStatus
from typing import Any, TypeVar

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from django_filters import FilterSet
from drf_spectacular import openapi
from rest_framework import exceptions, serializers

from truc_api.problems import (
    FRAMEWORK_CODES,
    FRAMEWORK_FIELD_CODES,
    PROBLEM_CONTENT_TYPE,
    ApplicationError,
    problem_of,
)
from truc_api.scopes import MissingScope
from truc_api.serializers import StrictSerializer

T = TypeVar("T")


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's, saying of each strict input serializer what it holds to: no key but
    its fields (``StrictSerializer`` answers any other with a 400)."""

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        # Unannotated in drf-spectacular (untyped_calls_exclude does not reach a super() call).
        schema: dict[str, Any] = super()._map_basic_serializer(  # type: ignore[no-untyped-call]
            serializer, direction
        )
        if direction == "request" and isinstance(serializer, StrictSerializer):
            schema["additionalProperties"] = False
        return schema

    def _map_serializer_field(
        self, field: Any, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        # DRF refuses a NUL in any string it reads (PostgreSQL's text cannot hold one): a 400
        # the schema states, where no pattern of the field's own (a RegexValidator's, which
        # drf-spectacular writes next) already leaves it out.
        validators = field.validators
        nul_refused = any(isinstance(v, ProhibitNullCharactersValidator) for v in validators)
        patterned = any(isinstance(v, RegexValidator) for v in validators)
        if (
            direction == "request"
            and nul_refused
            and not patterned
            and schema.get("type") == "string"
        ):
            schema.setdefault("pattern", NO_NUL)
        return schema


#: A string with no NUL character (U+0000).
NO_NUL = "^[^\\u0000]*$"


#: Every 429 says when to try again (truc_api/problems.py).
RETRY_AFTER = {
    "schema": {"type": "integer", "minimum": 0},
    "required": True,
    "description": "Seconds to wait before trying again.",
}


#: Every answer names its request (truc_api/logs.py): quote it when reporting a problem.
REQUEST_ID = {
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$"},
    "required": True,
    "description": "The request's id: the client's own `X-Request-ID` if short and plain, else"
    " a new one. Every log line of the request carries it.",
}
#: The throttles' budgets (draft-ietf-httpapi-ratelimit-headers), on every answer they counted.
RATE_LIMIT_POLICY = {
    "schema": {"type": "string"},
    "required": False,
    "description": 'Each budget that counted the request: `"user";q=600;w=60` is 600 requests'
    " a 60-second window. Budgets: `anon` (by address), `user` (by player), `login` (password"
    " checks), `actions` (a player's actions in his games, apart from `user`); docs/api.md.",
}
RATE_LIMIT = {
    "schema": {"type": "string"},
    "required": False,
    "description": 'What is left of each budget: `"user";r=598;t=2` is 598 more requests now,'
    " and the whole budget back in 2 seconds.",
}
#: Every 401 says which scheme to authenticate with (truc_api/problems.py).
WWW_AUTHENTICATE = {
    "schema": {"type": "string", "enum": ["Bearer"]},
    "required": True,
    "description": "The scheme to send the token with.",
}


def _header(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def _subclasses(base: type[T]) -> Iterator[type[T]]:
    """Every subclass of ``base``, however deep."""
    pending = list(base.__subclasses__())
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        yield kind


def problem_codes() -> list[str]:
    codes = dict.fromkeys(FRAMEWORK_CODES)
    for kind in _subclasses(ApplicationError):
        codes |= dict.fromkeys(kind.codes())
    return sorted(codes)


def field_error_codes() -> list[str]:
    """Every code an entry of a problem's `errors` can carry."""
    codes: set[str] = set(FRAMEWORK_FIELD_CODES)
    for kind in _subclasses(ApplicationError):
        codes |= set(kind.field_codes())
    for serializer in _subclasses(StrictSerializer):
        codes |= _field_codes(serializer())
    for filterset in _subclasses(FilterSet):
        for found in filterset.base_filters.values():
            codes |= _form_field_codes(found.field)
    return sorted(codes)


# The codes of a field's messages that only its validators raise, and only when it has them.
_VALIDATED = frozenset(("max_length", "min_length", "max_value", "min_value"))


def _field_codes(field: serializers.Field[Any, Any, Any, Any]) -> set[str]:
    """The codes DRF can give for ``field`` (and what it holds): its messages that apply to how
    it is declared, and its validators' codes."""
    if field.read_only:
        return set()
    codes = set(field.error_messages) - _VALIDATED - {"required", "null", "blank", "empty"}
    codes |= {code for validator in field.validators if (code := getattr(validator, "code", None))}
    if field.required:
        codes.add("required")
    if not field.allow_null:
        codes.add("null")
    if "blank" in field.error_messages and not getattr(field, "allow_blank", False):
        codes.add("blank")
    if "empty" in field.error_messages and not getattr(field, "allow_empty", True):
        codes.add("empty")
    if isinstance(field, serializers.ListSerializer):
        # DRF checks a list of objects' length itself, not by validators.
        bounds = {code: getattr(field, code, None) for code in ("max_length", "min_length")}
        codes |= {code for code, bound in bounds.items() if bound is not None}
        if field.child is not None:
            codes |= _field_codes(field.child)
    elif isinstance(field, serializers.Serializer):
        for child in field.fields.values():
            codes |= _field_codes(child)
    elif isinstance(field, serializers.ListField | serializers.DictField):
        codes |= _field_codes(field.child)
    return codes


def _form_field_codes(field: Any) -> set[str]:
    """The codes a list filter's form field can give (django-filter raises them as DRF's)."""
    codes = set(field.error_messages) - {"required"} | ({"required"} if field.required else set())
    return codes | {
        code for validator in field.validators if (code := getattr(validator, "code", None))
    }


def postprocess(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the problem codes' enum, the headers every answer of a kind
    carries, and the servers."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["ProblemCode"] = {
        "type": "string",
        "enum": problem_codes(),
        "description": (
            "Every code a problem may carry. 422 codes name the rule that says no (RULES.md §8);"
            " `invalid_request` lists the fields at fault in `errors`."
        ),
    }
    schemas["FieldErrorCode"] = {
        "type": "string",
        "enum": field_error_codes(),
        "description": (
            "Every code an entry of `errors` may carry: a serializer's (`required`, `null`,"
            " `blank`, `invalid`, `invalid_choice`, `min_value`, `max_value`, `max_length`,"
            " `unknown_field` for a key the body may not hold, `invalid_type` for a value not of"
            " its field's JSON type), the engine's for an action or the rules' options"
            " (`unknown_action`, `invalid_card`, `unknown_option`, `invalid_option`, ...), a"
            " password's (`password_too_short`, ...), a display name's (`bot_name`,"
            " `invisible_character`), a webhook URL's (`private_address`, `invalid_url`,"
            " `unresolvable_host`), a table's (`no_such_player`, `repeated`, ...), or"
            " `parse_error` for a body that is not JSON."
        ),
    }
    for schema in schemas.values():
        # drf-spectacular's `BlankEnum` (an allowed empty choice) has no type: generators then
        # type it `unknown`.
        if "type" not in schema and all(isinstance(v, str) for v in schema.get("enum", [None])):
            schema["type"] = "string"
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    null_as_31(result)
    plain_references(result)
    # DRF's views, as drf-spectacular found them (the streams' plain views are not among them).
    drf = {(path, method.lower()) for path, _, method, _ in generator.endpoints or ()}
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if (path, method) in drf:
                negotiated(operation)
            scoped(operation)
            throttled = operation.get("responses", {}).get("429")
            if throttled is not None:
                throttled.setdefault("headers", {})["Retry-After"] = RETRY_AFTER
            refused = operation.get("responses", {}).get("401")
            if refused is not None:
                refused.setdefault("headers", {})["WWW-Authenticate"] = _header("WWW-Authenticate")
            for answer in operation.get("responses", {}).values():
                answer.setdefault("headers", {})["X-Request-ID"] = _header("X-Request-ID")
                if (path, method) in drf:  # counted by DRF's throttles (truc_api/throttling.py)
                    answer["headers"]["RateLimit-Policy"] = _header("RateLimit-Policy")
                    answer["headers"]["RateLimit"] = _header("RateLimit")
            for callback in operation.get("callbacks", {}).values():
                for expression in callback.values():
                    for sent in expression.values():
                        # A request the server sends is signed, not sent with a token.
                        sent.setdefault("security", [])
    result["components"]["headers"] = {
        "RateLimit": RATE_LIMIT,
        "RateLimit-Policy": RATE_LIMIT_POLICY,
        "WWW-Authenticate": WWW_AUTHENTICATE,
        "X-Request-ID": REQUEST_ID,
    }
    result["servers"] = [{"url": "/", "description": "This server: the paths start with /api/."}]
    return result


def negotiated(operation: dict[str, Any]) -> None:
    """The two answers DRF's content negotiation gives any of its operations: a 406 to an
    `Accept` that JSON does not satisfy, and, where a body is read, a 415 to a body that is not
    JSON (sent as another media type). Their examples are the bodies truc_api/problems.py
    writes for them."""
    answers = operation.get("responses", {})
    # Even an answer with no body (a 204) is negotiated first.
    answers.setdefault("406", _problem_answer("Not acceptable", exceptions.NotAcceptable()))
    if "application/json" in operation.get("requestBody", {}).get("content", {}):
        refused = exceptions.UnsupportedMediaType("text/plain")
        answers.setdefault("415", _problem_answer("Not JSON", refused))
    operation["responses"] = dict(sorted(answers.items()))


def scoped(operation: dict[str, Any]) -> None:
    """An operation a delegated token needs a scope for (its `oauth2` security requirement, read
    from the view's ``required_scopes``) answers a token without it 403 `missing_scope`."""
    needed = [scope for need in operation.get("security", []) for scope in need.get("oauth2", [])]
    if not needed:
        return
    answers = operation.setdefault("responses", {})
    example = _problem_answer("Missing scope", MissingScope(needed[0]))
    refused = answers.setdefault("403", example)
    if refused is not example:
        content = refused.setdefault("content", {}).setdefault(PROBLEM_CONTENT_TYPE, {})
        content.setdefault("schema", {"$ref": "#/components/schemas/Problem"})
        examples = example["content"][PROBLEM_CONTENT_TYPE]["examples"]
        content.setdefault("examples", {}).update(examples)
    operation["responses"] = dict(sorted(answers.items()))


def _problem_answer(name: str, error: Exception) -> dict[str, Any]:
    found = problem_of(error)
    assert found is not None
    body = found[0]
    return {
        "description": HTTPStatus(body["status"]).phrase,
        "content": {
            PROBLEM_CONTENT_TYPE: {
                "schema": {"$ref": "#/components/schemas/Problem"},
                "examples": {name.title().replace(" ", ""): {"value": body, "summary": name}},
            }
        },
    }


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON document, each after the objects it holds (so a caller may change
    an object once everything inside it has been seen)."""
    if isinstance(node, list):
        for item in node:
            yield from _objects(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _objects(value)
        yield node


def plain_references(document: Any) -> None:
    """drf-spectacular wraps a reference in a one-item `allOf` to give it a description; in 3.1 a
    `$ref` takes siblings, so the reference stands as itself (what readers expect)."""
    for node in _objects(document):
        wrapped = node.get("allOf")
        if isinstance(wrapped, list) and len(wrapped) == 1 and set(wrapped[0]) == {"$ref"}:
            node["$ref"] = node.pop("allOf")[0]["$ref"]


def null_as_31(document: Any) -> None:
    """OpenAPI 3.0's ``nullable: true`` in 3.1's words, in place: a type list, or `oneOf` null."""
    for node in _objects(document):
        _null_as_31(node)


def _null_as_31(node: dict[str, Any]) -> None:
    if not node.pop("nullable", False):
        return
    if isinstance(node.get("type"), str) and not {"$ref", "allOf", "oneOf"} & set(node):
        node["type"] = [node["type"], "null"]
        return
    kept = {key: node.pop(key) for key in list(node) if key not in ("description", "default")}
    kept.pop("type", None)  # beside a reference, the reference's own type says it
    inner = kept["allOf"][0] if list(kept) == ["allOf"] and len(kept["allOf"]) == 1 else kept
    node["oneOf"] = [inner, {"type": "null"}]
