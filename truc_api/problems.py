"""The one place where errors become HTTP responses: `application/problem+json` (RFC 9457).

Every body has `type`, `title`, `status`, `detail` and a stable `code`; a body for an invalid
request also has `errors`, one entry per field at fault. Services raise `ApplicationError`
subclasses; DRF's exceptions and Django's error views (handler400/403/404/500) land here too.
"""

import math
from collections.abc import Iterator, Mapping
from http import HTTPStatus
from typing import Any, ClassVar, Literal, get_args

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

PROBLEM_CONTENT_TYPE = "application/problem+json"
#: The detail of a 404 for a URL no route takes (a number's path segment that is not one).
NO_RESOURCE = "No resource at this URL."
#: The one title of `invalid_request`, however it is raised.
INVALID_TITLE = "The request is not valid."


#: The field codes truc_api itself writes in `errors`: a key no field declares, a value not of its
#: field's JSON type (truc_api/serializers.py), a body that is not JSON, a request Django could
#: not read, a plain invalid value (a header, a page parameter), an empty filter
#: (truc_api/filtering.py). Typed, so that a code written anywhere else fails mypy until listed;
#: the schema's `FieldErrorCode` enum is made from this, the serializers' fields and each
#: error's ``field_codes()`` (truc_api/openapi.py).
FieldCode = Literal[
    "unknown_field", "invalid_type", "parse_error", "bad_request", "invalid", "blank"
]
FRAMEWORK_FIELD_CODES: tuple[FieldCode, ...] = get_args(FieldCode)


def field_error(message: str, code: FieldCode) -> exceptions.ErrorDetail:
    """A field's error detail with one of truc_api's own codes."""
    return exceptions.ErrorDetail(message, code=code)


def one_field(field: str, code: str, message: str) -> dict[str, Any]:
    """The `errors` member of a problem that names one field at fault."""
    return {"errors": [{"field": field, "code": code, "message": message}]}


class ApplicationError(Exception):
    """An error a service raises on purpose; subclasses fix `code`, `status` and `title`."""

    code: ClassVar[str] = "application_error"
    status: ClassVar[int] = HTTPStatus.BAD_REQUEST
    title: ClassVar[str] = "The request cannot be carried out."

    def __init__(
        self,
        detail: str | None = None,
        *,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        super().__init__(detail or self.title)
        self.detail = detail
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})  # Retry-After, say

    @classmethod
    def codes(cls) -> tuple[str, ...]:
        """Every `code` an error of this class answers with (one, unless a subclass says)."""
        return (cls.code,)

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        """Every field code this error may list in `errors` (none, unless a subclass says)."""
        return ()


# DRF's exceptions, most specific first, with the code each one answers with.
_API_EXCEPTION_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.ValidationError, "invalid_request"),
    (exceptions.ParseError, "invalid_request"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
)


#: The codes of the errors that are not an ApplicationError: DRF's, and Django's error views.
FRAMEWORK_CODES = (
    *dict.fromkeys(code for _, code in _API_EXCEPTION_CODES),
    "invalid_request",
    "permission_denied",
    "not_found",
    "server_error",
    # A delegated token without the operation's scope (truc_api/scopes.py, a DRF exception).
    "missing_scope",
    # Answered by the deployment's proxy before a request reaches the app
    # (deploy/nginx/truc-api.conf.template): a body too slow, too large, the app not answering.
    "request_timeout",
    "too_large",
    "unavailable",
)


def problem_body(
    status: int, code: str, detail: str | None = None, *, title: str | None = None
) -> dict[str, Any]:
    """The RFC 9457 members every problem carries; `type` is a stable URN named by `code`."""
    title = title or HTTPStatus(status).phrase
    return {
        "type": f"urn:truc-api:problem:{code}",
        "title": title,
        "status": int(status),
        "detail": detail or title,
        "code": code,
    }


def problem_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: answer with a problem, or None to let Django's handler500 act."""
    found = problem_of(exc)
    if found is None:
        return None
    body, headers = found
    set_rollback()
    response = Response(body, status=body["status"], headers=headers)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def problem_for(exc: Exception) -> JsonResponse | None:
    """The same answer for a plain Django view (the streams' async views are not DRF's)."""
    found = problem_of(exc)
    if found is None:
        return None
    body, headers = found
    return JsonResponse(
        body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def problem_of(exc: Exception) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The body and headers of the problem ``exc`` is, or None for an unexpected error."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    headers: dict[str, str] = {}
    if isinstance(exc, ApplicationError):
        # `extra` adds members (RFC 9457 extensions); it cannot overwrite the standard ones.
        body = {**exc.extra, **problem_body(exc.status, exc.code, exc.detail, title=exc.title)}
        headers.update(exc.headers)
        if exc.status == HTTPStatus.UNAUTHORIZED:  # RFC 9110 §15.5.2: a 401 names its scheme
            headers.setdefault("WWW-Authenticate", "Bearer")
    elif isinstance(exc, exceptions.APIException):
        body = _api_exception_body(exc)
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            # DRF answers 403 when the view has no authenticator; a client still needs a 401.
            headers["WWW-Authenticate"] = getattr(exc, "auth_header", None) or "Bearer"
        wait = getattr(exc, "wait", None)  # Throttled sets it; the stubs do not declare it
        if isinstance(exc, exceptions.Throttled) and wait is not None:
            headers["Retry-After"] = str(math.ceil(wait))
    else:
        return None
    return body, headers


def _api_exception_body(exc: exceptions.APIException) -> dict[str, Any]:
    code = next(
        (code for kind, code in _API_EXCEPTION_CODES if isinstance(exc, kind)), exc.default_code
    )
    status: int = exc.status_code
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        status = HTTPStatus.UNAUTHORIZED
    if isinstance(exc, exceptions.ValidationError):
        body = problem_body(status, code, "The request has invalid fields.", title=INVALID_TITLE)
        body["errors"] = list(_field_errors(exc.detail))
        return body
    if isinstance(exc, exceptions.ParseError):
        # Not JSON at all: the body as a whole is at fault, in the same shape as a field.
        body = problem_body(status, code, str(exc.detail), title=INVALID_TITLE)
        field = api_settings.NON_FIELD_ERRORS_KEY
        parse_error: FieldCode = "parse_error"
        body["errors"] = [{"field": field, "code": parse_error, "message": str(exc.detail)}]
        return body
    body = problem_body(status, code, str(exc.detail))
    # Members an exception adds (``MissingScope``'s scope); never over the standard ones.
    return {**getattr(exc, "members", {}), **body}


def _field_errors(detail: Any, path: tuple[str, ...] = ()) -> Iterator[dict[str, str]]:
    """Flatten DRF's nested error detail into `{field, code, message}`, fields dotted."""
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            yield from _field_errors(value, (*path, str(key)))
    elif isinstance(detail, list):
        for index, item in enumerate(detail):
            # A list of messages belongs to one field; a list of objects is indexed.
            nested = isinstance(item, Mapping | list)
            yield from _field_errors(item, (*path, str(index)) if nested else path)
    else:
        yield {
            "field": ".".join(path) or api_settings.NON_FIELD_ERRORS_KEY,
            "code": str(getattr(detail, "code", "invalid")),
            "message": str(detail),
        }


# Django's error views, for every URL outside DRF (urls.py names them handler400/403/404/500).


def problem_response(status: int, code: str, detail: str | None = None) -> JsonResponse:
    return JsonResponse(
        problem_body(status, code, detail), status=status, content_type=PROBLEM_CONTENT_TYPE
    )


def bad_request(request: HttpRequest, exception: Exception) -> JsonResponse:
    body = problem_body(HTTPStatus.BAD_REQUEST, "invalid_request", title=INVALID_TITLE)
    message = "The request could not be read."
    field = api_settings.NON_FIELD_ERRORS_KEY
    code: FieldCode = "bad_request"
    body["errors"] = [{"field": field, "code": code, "message": message}]
    return JsonResponse(body, status=HTTPStatus.BAD_REQUEST, content_type=PROBLEM_CONTENT_TYPE)


def permission_denied(request: HttpRequest, exception: Exception) -> JsonResponse:
    return problem_response(HTTPStatus.FORBIDDEN, "permission_denied")


def page_not_found(request: HttpRequest, exception: Exception) -> JsonResponse:
    return problem_response(HTTPStatus.NOT_FOUND, "not_found", NO_RESOURCE)


def server_error(request: HttpRequest) -> JsonResponse:
    return problem_response(HTTPStatus.INTERNAL_SERVER_ERROR, "server_error")
