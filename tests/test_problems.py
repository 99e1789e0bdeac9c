"""Every error is application/problem+json with a stable `code` (truc_api/problems.py)."""

import json
from collections.abc import Callable

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpResponse
from django.test import RequestFactory
from django.urls import get_resolver
from rest_framework import exceptions

from truc_api.problems import PROBLEM_CONTENT_TYPE, ApplicationError, problem_exception_handler


def _assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status
    # A DRF Response straight from the handler is not rendered yet: read what it will send.
    if getattr(response, "is_rendered", True):
        content_type, body = response["Content-Type"], json.loads(response.content)
    else:
        content_type, body = response.content_type, response.data
    assert content_type == PROBLEM_CONTENT_TYPE
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"urn:truc-api:problem:{code}"
    assert body["title"] and body["detail"]
    return body


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/no-such-page", "/api/no-such-resource", "/api/health/"])
def test_problems_unknown_url_is_a_json_404(client, path):
    response = client.get(path, headers={"Accept": "text/html"})

    _assert_problem(response, 404, "not_found")


@pytest.mark.django_db
def test_problems_wrong_method_is_a_405_with_allow(client):
    response = client.post("/api/health/live", {}, content_type="application/json")

    _assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


@pytest.mark.django_db
def test_problems_unacceptable_media_type_is_a_406(client):
    response = client.get("/api/health/live", headers={"Accept": "text/html"})

    _assert_problem(response, 406, "not_acceptable")


@pytest.mark.parametrize("status", [400, 403, 404, 500])
def test_problems_django_error_handlers_answer_json(status):
    # (request) for handler500, (request, exception) for the others: django-stubs type every
    # handler as handler500.
    handler: Callable[..., HttpResponse] = get_resolver().resolve_error_handler(status)
    request = RequestFactory().get("/anywhere")

    response = handler(request) if status == 500 else handler(request, Exception("boom"))

    code = {400: "invalid_request", 403: "permission_denied", 404: "not_found"}
    _assert_problem(response, status, code.get(status, "server_error"))


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (exceptions.ParseError(), 400, "invalid_request"),
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.AuthenticationFailed(), 401, "not_authenticated"),
        (exceptions.PermissionDenied(), 403, "permission_denied"),
        (DjangoPermissionDenied(), 403, "permission_denied"),
        (exceptions.NotFound(), 404, "not_found"),
        (Http404(), 404, "not_found"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.NotAcceptable(), 406, "not_acceptable"),
        (exceptions.UnsupportedMediaType("text/plain"), 415, "unsupported_media_type"),
        (exceptions.Throttled(wait=2.5), 429, "throttled"),
    ],
)
def test_problems_drf_exceptions_map_to_status_and_code(exc, status, code):
    response = problem_exception_handler(exc, {})

    _assert_problem(response, status, code)


def test_problems_not_authenticated_challenges_for_a_token():
    response = problem_exception_handler(exceptions.NotAuthenticated(), {})

    assert response["WWW-Authenticate"] == "Bearer"


def test_problems_throttled_says_when_to_retry():
    response = problem_exception_handler(exceptions.Throttled(wait=2.5), {})

    assert response["Retry-After"] == "3"


def test_problems_validation_error_lists_each_field_at_fault():
    exc = exceptions.ValidationError(
        {
            "expected_version": [exceptions.ErrorDetail("This field is required.", "required")],
            "seats": [{}, {"name": [exceptions.ErrorDetail("Too long.", "max_length")]}],
            "non_field_errors": [exceptions.ErrorDetail("Game is full.", "full")],
        }
    )

    body = _assert_problem(problem_exception_handler(exc, {}), 400, "invalid_request")

    assert body["errors"] == [
        {"field": "expected_version", "code": "required", "message": "This field is required."},
        {"field": "seats.1.name", "code": "max_length", "message": "Too long."},
        {"field": "non_field_errors", "code": "full", "message": "Game is full."},
    ]


def test_problems_top_level_validation_message_is_a_non_field_error():
    body = problem_exception_handler(exceptions.ValidationError("Bad."), {}).data

    assert body["errors"] == [{"field": "non_field_errors", "code": "invalid", "message": "Bad."}]


class NotYourTurn(ApplicationError):
    code = "not_your_turn"
    status = 422
    title = "It is not your turn."


def test_problems_application_error_carries_its_own_status_code_and_extra_members():
    exc = NotYourTurn("Seat 2 is to play.", extra={"turn": 2, "status": 200})

    body = _assert_problem(problem_exception_handler(exc, {}), 422, "not_your_turn")

    assert body["title"] == "It is not your turn."
    assert body["detail"] == "Seat 2 is to play."
    assert body["turn"] == 2


def test_problems_application_error_without_detail_repeats_its_title():
    body = problem_exception_handler(NotYourTurn(), {}).data

    assert body["detail"] == "It is not your turn."


def test_problems_other_exceptions_are_left_to_the_500_handler():
    assert problem_exception_handler(RuntimeError("bug"), {}) is None


def test_problems_a_body_that_is_not_json_lists_its_error_like_any_invalid_request():
    response = problem_exception_handler(exceptions.ParseError("JSON parse error - x"), {})

    assert response.data["code"] == "invalid_request"
    assert response.data["title"] == "The request is not valid."  # one title, however raised
    assert response.data["errors"] == [
        {"field": "non_field_errors", "code": "parse_error", "message": "JSON parse error - x"}
    ]
