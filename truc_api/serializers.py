"""Serializer pieces every API module shares: strict input, and the problem body in the schema.

`StrictSerializer` is the base of every input serializer: a key the serializer does not declare is
a 400 `invalid_request`, not silently dropped, so a client's typo never passes for a default.
`ProblemSerializer` and the helpers below document `application/problem+json` error responses
(truc_api/problems.py writes them) in the OpenAPI schema.
"""

from collections import defaultdict
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from truc_api.problems import PROBLEM_CONTENT_TYPE, ApplicationError, problem_body


class StrictSerializer(serializers.Serializer[Any]):
    """Rejects keys that are not declared fields. Works as a mixin too: `(StrictSerializer, X)`."""

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, Mapping) else []
        errors: dict[str, Any] = {
            key: [ErrorDetail("This field is not expected.", code="unknown_field")]
            for key in unknown
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


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """``data`` checked by ``serializer_class``; a 400 problem when it does not pass."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class ProblemFieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(help_text="The field at fault, dotted when nested.")
    code = serializers.CharField(help_text="A stable code for what is wrong with it.")
    message = serializers.CharField()


class ProblemSerializer(serializers.Serializer[Any]):
    """An RFC 9457 problem, as truc_api/problems.py writes it."""

    type = serializers.CharField(help_text="A URN named by `code`.")
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text="Stable: clients branch on this.")
    # The metaclass moves declared fields into `_declared_fields`: `Serializer.errors` survives.
    errors = ProblemFieldErrorSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="For an invalid request: one entry per field at fault."
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


UNKNOWN_FIELD = invalid_request_example(
    "Unknown field", "colour", "unknown_field", "This field is not expected."
)

# Every view is throttled (DEFAULT_THROTTLE_CLASSES): a 429 says how long to wait.
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before trying again.",
)
