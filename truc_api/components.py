"""Fields documented as components of the OpenAPI document: a reference to a component, "this
or null" in OpenAPI 3.1, and serializer fields whose schema is a component an app installs
(games/contract.py's, notifications' webhooks'). Every app's serializers use these."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

Schema = dict[str, Any]

REF = "#/components/schemas/"


def ref(name: str) -> Schema:
    return {"$ref": REF + name}


def nullable(schema: Schema) -> Schema:
    """This or null, in OpenAPI 3.1 (JSON Schema): a type list, or a reference beside null."""
    if isinstance(schema.get("type"), str) and "$ref" not in schema:
        return {**schema, "type": [schema["type"], "null"]}
    inner = {key: value for key, value in schema.items() if key != "description"}
    wrapped: Schema = {"oneOf": [inner, {"type": "null"}]}
    if "description" in schema:
        wrapped["description"] = schema["description"]
    return wrapped


_nullable = nullable  # ``component``'s flag of the same name hides the function in its body


def component(
    name: str,
    *,
    many: bool = False,
    nullable: bool = False,
    length: int | None = None,
    **kwargs: Any,
) -> Any:
    """A field documented as the component ``name`` (a list of it with ``many``, of exactly
    ``length`` items if given)."""
    schema = ref(name)
    if many:
        schema = {"type": "array", "items": schema}
        if length is not None:
            schema |= {"minItems": length, "maxItems": length}
    if nullable:
        schema = _nullable(schema)
    # A class of its own: DRF rebuilds a serializer's fields from their class for each instance,
    # so an annotation on the field object itself would be lost.
    documented = type(f"{name}Field", (serializers.JSONField,), {})
    return extend_schema_field(schema)(documented)(**kwargs)


def component_choice(name: str, choices: Any, **kwargs: Any) -> Any:
    """A choice among the component ``name``'s values, documented as that component."""
    documented = type(f"{name}ChoiceField", (serializers.ChoiceField,), {})
    return extend_schema_field(ref(name))(documented)(choices, **kwargs)
