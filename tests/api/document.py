"""The committed OpenAPI document, and a check that a value is what one of its schemas says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

DOCUMENT = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
SCHEMAS = DOCUMENT["components"]["schemas"]


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's dialect as JSON Schema: `nullable` is "or null"; the rest is the same."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    dropped = ("nullable", "discriminator")
    converted = {k: _json_schema(v) for k, v in node.items() if k not in dropped}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def _closed(node: Any) -> Any:
    """Every object schema that lists its properties refuses any other key: so a check says the
    answer holds exactly the documented fields, not merely at least them."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {key: _closed(value) for key, value in node.items()}
    if "properties" in node:
        closed.setdefault("additionalProperties", False)
    return closed


def conforms(value: Any, component: str, *, exactly: bool = False) -> None:
    """``value`` is valid against the component; with ``exactly``, it has no undocumented key."""
    root = _json_schema({"components": DOCUMENT["components"]})
    if exactly:
        root = _closed(root)
    schema = {**root, "$ref": f"#/components/schemas/{component}"}
    jsonschema.Draft202012Validator(schema).validate(value)


def member(union: str, key: str) -> str:
    """The component ``union``'s discriminator maps ``key`` to."""
    return str(SCHEMAS[union]["discriminator"]["mapping"][key]).rsplit("/", 1)[-1]


def message_conforms(message: dict[str, str], union: str) -> None:
    """A stream's message, its fields as on the wire, is its kind's member of ``union`` with no
    undocumented field, and the JSON of its ``data`` is exactly what that member's
    ``contentSchema`` says (a JSON Schema validator only annotates ``contentSchema``)."""
    conforms(message, union, exactly=True)
    data = SCHEMAS[member(union, message["event"])]["properties"]["data"]
    assert data["contentMediaType"] == "application/json"
    conforms(
        json.loads(message["data"]), data["contentSchema"]["$ref"].rsplit("/", 1)[-1], exactly=True
    )


def webhook(kind: str) -> dict[str, Any]:
    """The document's webhook of ``kind``: its POST operation."""
    return DOCUMENT["webhooks"][kind]["post"]


def webhook_body(kind: str) -> str:
    """The component of the body the document says ``kind``'s webhook sends."""
    schema = webhook(kind)["requestBody"]["content"]["application/json"]["schema"]
    return schema["$ref"].rsplit("/", 1)[-1]


def webhook_headers(kind: str) -> dict[str, dict[str, Any]]:
    """The headers ``kind``'s webhook is documented with, by name: their parameter objects."""
    parameters = DOCUMENT["components"]["parameters"]
    found = [parameters[ref["$ref"].rsplit("/", 1)[-1]] for ref in webhook(kind)["parameters"]]
    return {parameter["name"]: parameter for parameter in found}
