"""Serializer pieces every API module shares: strict input, and the problem body in the schema.

`StrictSerializer` is the base of every input serializer: a key the serializer does not declare is
a 400 `invalid_request`, not silently dropped, so a client's typo never passes for a default.
`ProblemSerializer` and the helpers below document `application/problem+json` error responses
(truc_api/problems.py writes them) in the OpenAPI schema.
"""

import functools
import re
from collections import defaultdict
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, ClassVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.fields import SkipField

from truc_api.bounds import MAX_ID, MAX_RATING, MIN_RATING
from truc_api.problems import (
    NO_RESOURCE,
    PROBLEM_CONTENT_TYPE,
    ApplicationError,
    field_error,
    problem_body,
    problem_of,
)


class StrictSerializer(serializers.Serializer[Any]):
    """Rejects keys that are not declared fields, and values not of their field's JSON type (DRF
    would read `0` as the string "0" or as false): what the schema calls invalid is a 400. With
    ``from_query``, values are query strings, and a whole number is digits only.
    Works as a mixin too: `(StrictSerializer, X)`."""

    from_query: ClassVar[bool] = False

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, Mapping) else []
        errors: dict[str, Any] = {
            key: [field_error("This field is not expected.", "unknown_field")] for key in unknown
        }
        if isinstance(data, Mapping):
            errors |= {
                name: [field_error(f"Expected {wanted}.", "invalid_type")]
                for name, field in self.fields.items()
                if name in data
                and data[name] is not None
                and (wanted := _wrong_type(field, data[name], self.from_query))
            }
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if errors and isinstance(exc.detail, Mapping):
                raise serializers.ValidationError({**exc.detail, **errors}) from None
            raise
        if errors:
            raise serializers.ValidationError(errors)
        return value


def _wrong_type(
    field: serializers.Field[Any, Any, Any, Any], value: Any, query: bool
) -> str | None:
    """What ``field`` wants when ``value`` is not of its JSON type; None when it is."""
    if isinstance(field, serializers.JSONField) or field.read_only:
        return None
    if query:
        if isinstance(field, serializers.IntegerField) and not _DIGITS.fullmatch(str(value)):
            return "a whole number"
        return None
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(field, serializers.IntegerField):
        return None if type(value) is int else "a whole number"
    if isinstance(field, serializers.ChoiceField):
        kinds = {type(choice) for choice in field.choices}
        return None if type(value) in kinds else "one of the listed values"
    if isinstance(field, serializers.CharField | serializers.UUIDField):
        return None if isinstance(value, str) else "a string"
    if isinstance(field, serializers.ListField | serializers.ListSerializer):
        return None if isinstance(value, list) else "a list"
    if isinstance(field, serializers.Serializer):
        return None if isinstance(value, Mapping) else "an object"
    return None


_DIGITS = re.compile(r"-?[0-9]{1,18}")


def player_id_field(**kwargs: Any) -> serializers.IntegerField:
    """A player's id in a request body: a bigint from 1 (``truc_api.bounds``)."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


def rating_field(**kwargs: Any) -> serializers.IntegerField:
    """A bound of a rating window (``truc_api.bounds``)."""
    return serializers.IntegerField(min_value=MIN_RATING, max_value=MAX_RATING, **kwargs)


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """``data`` checked by ``serializer_class``; a 400 problem when it does not pass."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# An output serializer of a read model: a dict whose keys are its fields' names (a game's view, a
# feed page: games/selectors.py). It makes the same body as DRF's own loop, which looks each
# attribute up through a lookup for every kind of source (dotted paths, callables, model
# instances); here a key is read as a key, and anything else goes through DRF's lookup. (A
# comment, not a docstring: drf-spectacular would describe every subclass without one by it.)
class ReadModelSerializer(serializers.Serializer[Any]):
    def to_representation(self, instance: Any) -> Any:
        if not isinstance(instance, dict):
            return super().to_representation(instance)
        body: dict[str, Any] = {}
        for name, key, field in self._plan:
            if key is not None and key in instance:
                value = instance[key]
            else:
                try:
                    value = field.get_attribute(instance)
                except SkipField:
                    continue
            body[name] = None if value is None else field.to_representation(value)
        return body

    @functools.cached_property
    def _plan(self) -> tuple[tuple[str, str | None, serializers.Field[Any, Any, Any, Any]], ...]:
        """Each readable field by name, with the key it reads when its source is one plain key."""
        return tuple(
            (name, field.source_attrs[0] if len(field.source_attrs) == 1 else None, field)
            for name, field in self.fields.items()
            if not field.write_only
        )


def output(
    serializer_class: type[serializers.Serializer[Any]],
    instance: Any,
    *,
    many: bool = False,
    context: Mapping[str, Any] | None = None,
) -> Any:
    """The body ``serializer_class`` makes of ``instance`` (a list of them with ``many``): every
    answer of every app is made this way, by the serializer its operation's schema documents.

    A serializer that reads no ``context`` is built once per class and reused: building one
    copies each of its declared fields, nested serializers' included, which for a game's view
    costs many times what making the body does. One that reads ``context`` is built per call."""
    if context is not None:
        return serializer_class(instance, many=many, context=context).data
    return _built(serializer_class, many).to_representation(instance)


@functools.cache
def _built(
    serializer_class: type[serializers.Serializer[Any]], many: bool
) -> serializers.BaseSerializer[Any]:
    return serializer_class(many=many)


PAGE_PARAMETERS = ("limit", "offset")


def validated_query(
    serializer_class: type[serializers.Serializer[Any]], request: Any, *, paged: bool = False
) -> dict[str, Any]:
    """The query string checked by ``serializer_class``; a paged list's own parameters aside."""
    query = request.query_params.dict()
    return validated(
        serializer_class, {k: v for k, v in query.items() if not paged or k not in PAGE_PARAMETERS}
    )


@extend_schema_field({"$ref": "#/components/schemas/FieldErrorCode"})
class _FieldErrorCodeField(serializers.CharField):
    """Documented by the enum truc_api/openapi.py writes from every place a field code is made."""


class ProblemFieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        help_text="The field at fault, dotted when nested (`options.target`, `bots.0.seat`); a"
        " header by its name (`Idempotency-Key`); `non_field_errors` for the body as a whole."
    )
    code = _FieldErrorCodeField(help_text="Stable: what is wrong with the field.")
    message = serializers.CharField()


@extend_schema_field({"$ref": "#/components/schemas/ProblemCode"})
class _ProblemCodeField(serializers.CharField):
    """Documented by the enum truc_api/openapi.py writes from every error the code can raise."""


class ProblemSerializer(serializers.Serializer[Any]):
    """An RFC 9457 problem, as truc_api/problems.py writes it. A 400 `invalid_request` says the
    request does not match this document (`errors` names each field at fault); a request that
    matches it but that the game's state or rules refuse is a 403, 404, 409 or 422."""

    type = serializers.RegexField(
        r"^urn:truc-api:problem:[a-z0-9_]+$", help_text="A URN named by `code` (its last part)."
    )
    title = serializers.CharField(help_text="A short summary of the problem's kind, for people.")
    status = serializers.IntegerField(min_value=400, max_value=599)
    detail = serializers.CharField(help_text="This occurrence, for people.")
    code = _ProblemCodeField(help_text="Stable: clients branch on this.")
    # The metaclass moves declared fields into `_declared_fields`: `Serializer.errors` survives
    # (which mypy sees as overridden by a field).
    errors = ProblemFieldErrorSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="For an invalid request: one entry per field at fault."
    )
    current_version = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="With `stale_version`, a rule's 422, `after_beyond_log`: the game's version now.",
    )
    scope = serializers.CharField(
        required=False, help_text="With `missing_scope`: the scope the operation needs."
    )


# --- OpenAPI: documenting problem responses -----------------------------------------------------


def problem_example(
    name: str,
    status: int,
    code: str,
    detail: str | None = None,
    *,
    title: str | None = None,
    errors: list[dict[str, str]] | None = None,
) -> OpenApiExample:
    """An example problem body, built by the same function that builds the real ones."""
    value = problem_body(status, code, detail, title=title)
    if errors is not None:
        value["errors"] = errors
    return OpenApiExample(name, value=value, status_codes=[status], media_type=PROBLEM_CONTENT_TYPE)


def error_example(name: str, error: type[ApplicationError], **kwargs: Any) -> OpenApiExample:
    """The example body of an `ApplicationError` a service raises, with its own title."""
    return problem_example(name, error.status, error.code, title=error.title, **kwargs)


def answer(name: str, error: Exception) -> OpenApiExample:
    """The problem ``error`` is answered with, by truc_api/problems.py itself."""
    found = problem_of(error)
    assert found is not None, error
    body = found[0]
    return OpenApiExample(
        name, value=body, status_codes=[body["status"]], media_type=PROBLEM_CONTENT_TYPE
    )


def refusal(name: str, serializer_class: type[serializers.Serializer[Any]], data: Any) -> Any:
    """The 400 that ``serializer_class`` answers ``data`` with."""
    serializer = serializer_class(data=data)
    assert not serializer.is_valid(), data
    return answer(name, serializers.ValidationError(serializer.errors))


def page_refusal(name: str) -> OpenApiExample:
    """The 400 of a list's page parameter out of range (truc_api/pagination.py)."""
    return answer(name, serializers.ValidationError({"limit": ["A whole number from 1 to 200."]}))


def problem_responses(*examples: OpenApiExample) -> dict[tuple[int, str], OpenApiResponse]:
    """`extend_schema(responses=...)` entries: one problem+json response per status in examples."""
    by_status: defaultdict[int, list[OpenApiExample]] = defaultdict(list)
    for example in examples:
        assert example.status_codes, f"{example.name}: made by problem_example, with its status"
        by_status[int(example.status_codes[0])].append(example)
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            response=ProblemSerializer,
            description=HTTPStatus(status).phrase,
            examples=status_examples,
        )
        for status, status_examples in sorted(by_status.items())
    }


NOT_AUTHENTICATED = problem_example("Not authenticated", 401, "not_authenticated", "Invalid token.")
THROTTLED = problem_example(
    "Throttled", 429, "throttled", "Request was throttled. Expected available in 42 seconds."
)


def invalid_request_example(name: str, field: str, code: str, message: str) -> OpenApiExample:
    """A 400 `invalid_request` with one field at fault."""
    return problem_example(
        name,
        400,
        "invalid_request",
        "The request has invalid fields.",
        errors=[{"field": field, "code": code, "message": message}],
    )


#: A path whose number is not one (`/api/players/me/blocks/x`): no route takes it.
NOT_AN_ID = problem_example("Not an id", 404, "not_found", NO_RESOURCE)

UNKNOWN_FIELD = invalid_request_example(
    "Unknown field", "colour", "unknown_field", "This field is not expected."
)

#: A uuid in a path, as every id that is one is written.
UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def location(path: str, what: str, status: int = 201) -> OpenApiParameter:
    """The `Location` of a 201: a path on this server that reads ``what`` back with a GET.
    ``path`` is its pattern's body (a regular expression, anchored here)."""
    return OpenApiParameter(
        "Location",
        {"type": "string", "format": "uri-reference", "pattern": f"^{path}$"},
        OpenApiParameter.HEADER,
        response=[status],
        required=True,
        description=f"Where to read {what} back (GET, with the same token).",
    )


# Every view is throttled (DEFAULT_THROTTLE_CLASSES): a 429 says how long to wait.
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before trying again.",
)
