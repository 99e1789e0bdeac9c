"""Scopes on every operation: read from the committed OpenAPI document, each operation is asked
with a token of each scope alone; the scopes it declares let the request through (whatever the
answer then is), every other scope gets 403 `missing_scope` naming what it needed. And no API view
may leave its scope undeclared: such a view is refused to every delegated token, so the check
below fails on it instead of letting it pass unnoticed."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient
from rest_framework.views import APIView

from oauth.services import make_personal_token
from tests.api.document import DOCUMENT
from tests.factories import PASSWORD, PlayerFactory
from truc_api.scopes import SCOPES, ScopeRequired, declared

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")


def scoped_operations() -> list[tuple[str, str, list[str]]]:
    """(method, path, scopes) of every operation the `oauth2` scheme may call."""
    found = []
    for path, item in DOCUMENT["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            for need in operation.get("security", []):
                if "oauth2" in need:
                    found.append((method, path, list(need["oauth2"])))
    return found


OPERATIONS = scoped_operations()


def concrete(path: str) -> str:
    """A path with every parameter filled: the scope is checked before the view reads any."""
    filled = path.replace("{game_id}", "00000000-0000-0000-0000-000000000000")
    filled = filled.replace("{seek_id}", "00000000-0000-0000-0000-000000000000")
    filled = filled.replace("{challenge_id}", "00000000-0000-0000-0000-000000000000")
    filled = filled.replace("{subscription_id}", "00000000-0000-0000-0000-000000000000")
    filled = filled.replace("{delivery_id}", "00000000-0000-0000-0000-000000000000")
    filled = filled.replace("{family}", "valenciano").replace("{size}", "1v1")
    return re.sub(r"\{[a-z_]+\}", "1", filled)


def test_the_document_scopes_the_operations_it_should() -> None:
    paths = {path for _, path, _ in OPERATIONS}
    assert {"/api/games", "/api/games/{game_id}/actions", "/api/stream"} <= paths
    assert len(OPERATIONS) > 50  # every authenticated operation, the streams' too
    assert {scope for *_, needed in OPERATIONS for scope in needed} <= set(SCOPES)


@pytest.fixture
def token_of_each_scope() -> dict[str, str]:
    player = PlayerFactory.create()
    return {
        scope: make_personal_token(
            player, description=scope, scopes=[scope], password=PASSWORD
        ).token
        for scope in SCOPES
    }


def ask(token: str, method: str, path: str) -> Any:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return getattr(client, method)(concrete(path), {}, format="json")


@pytest.mark.parametrize(("method", "path", "needed"), OPERATIONS, ids=lambda v: str(v))
def test_each_scope_opens_only_what_declares_it(token_of_each_scope, method, path, needed):
    for scope, token in token_of_each_scope.items():
        answer = ask(token, method, path)
        refused = answer.status_code == 403 and answer.json().get("code") == "missing_scope"
        if not needed or needed == [scope]:
            assert not refused, (scope, answer.content)
        else:
            assert refused, (scope, answer.status_code, answer.content)
            assert answer.json()["scope"] == needed[0]
            assert answer["Content-Type"] == "application/problem+json"


def test_a_login_token_keeps_full_power() -> None:
    player = PlayerFactory.create()
    client = APIClient()
    login = client.post(
        "/api/auth/login", {"username": player.username, "password": PASSWORD}, format="json"
    )
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['token']}")
    assert client.get("/api/players/me/tokens").status_code == 200  # account:manage
    assert client.get("/api/games/mine").status_code == 200  # games:read


# --- every API view declares its scopes ----------------------------------------------------------


def _views(patterns: list[URLPattern | URLResolver]) -> list[type[APIView]]:
    found: list[type[APIView]] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found.extend(_views(pattern.url_patterns))
            continue
        view = getattr(pattern.callback, "cls", None)
        if isinstance(view, type) and issubclass(view, APIView):
            found.append(view)
    return found


def undeclared(views: list[type[APIView]]) -> list[str]:
    """The (view, method) pairs a delegated token could reach whose scopes are not declared."""
    missing = []
    for view in views:
        instance = view()
        if not any(isinstance(p, ScopeRequired) for p in instance.get_permissions()):
            continue  # public: no authentication, no token, no scope (the rules, sign-in)
        for method in METHODS:
            if hasattr(view, method) and declared(view, method.upper()) is None:
                missing.append(f"{view.__module__}.{view.__name__}.{method}")
    return missing


def test_every_api_view_declares_its_scopes() -> None:
    views = _views(get_resolver().url_patterns)
    assert len(views) > 40
    assert undeclared(views) == []


def test_the_check_catches_a_view_without_a_scope() -> None:
    class DeviceView(APIView):  # a view as another change might add it, forgetting its scope
        def get(self, request):
            raise AssertionError

    class DeclaredView(DeviceView):
        required_scopes = ["devices:manage"]

    assert undeclared([DeviceView, DeclaredView]) == [f"{__name__}.DeviceView.get"]
