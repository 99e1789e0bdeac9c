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
from typing import Any

from drf_spectacular import openapi

from truc_api.problems import FRAMEWORK_CODES, ApplicationError
from truc_api.serializers import StrictSerializer


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
#: Every 401 says which scheme to authenticate with (truc_api/problems.py).
WWW_AUTHENTICATE = {
    "schema": {"type": "string", "enum": ["Bearer"]},
    "required": True,
    "description": "The scheme to send the token with.",
}


def _header(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def problem_codes() -> list[str]:
    codes = dict.fromkeys(FRAMEWORK_CODES)
    pending: list[type[ApplicationError]] = [ApplicationError]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        if kind is not ApplicationError:
            codes |= dict.fromkeys(kind.codes())
    return sorted(codes)


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
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    null_as_31(result)
    plain_references(result)
    for item in result.get("paths", {}).values():
        for operation in item.values():
            throttled = operation.get("responses", {}).get("429")
            if throttled is not None:
                throttled.setdefault("headers", {})["Retry-After"] = RETRY_AFTER
            refused = operation.get("responses", {}).get("401")
            if refused is not None:
                refused.setdefault("headers", {})["WWW-Authenticate"] = _header("WWW-Authenticate")
            for answer in operation.get("responses", {}).values():
                answer.setdefault("headers", {})["X-Request-ID"] = _header("X-Request-ID")
            for callback in operation.get("callbacks", {}).values():
                for expression in callback.values():
                    for sent in expression.values():
                        # A request the server sends is signed, not sent with a token.
                        sent.setdefault("security", [])
    result["components"]["headers"] = {
        "WWW-Authenticate": WWW_AUTHENTICATE,
        "X-Request-ID": REQUEST_ID,
    }
    result["servers"] = [{"url": "/", "description": "This server: the paths start with /api/."}]
    return result


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
