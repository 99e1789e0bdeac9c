"""Scopes: what a delegated token (an OAuth app's, a personal one) may do, checked in one place.

Each API view declares the scope each of its methods needs (``required_scopes``: a list for all
its methods, or a mapping by method); ``ScopeRequired``, among the default permissions, refuses a
delegated token that lacks one with a 403 ``missing_scope`` naming it. A login token
(``/api/auth/login``, knox) is first-party and keeps full power. A view that declares nothing
refuses every delegated token: forgetting a scope can never open an operation to apps
(tests/oauth/test_scope_matrix.py fails on such a view too).

drf-spectacular's extension for django-oauth-toolkit reads the same ``get_scopes`` into each
operation's ``security`` (``ScopeRequired`` is a ``TokenHasScope``), so the document and the
server agree by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from django.utils.translation import gettext_noop
from oauth2_provider.contrib.rest_framework import OAuth2Authentication, TokenHasScope
from oauth2_provider.scopes import BaseScopes
from rest_framework import exceptions
from rest_framework.request import Request

#: Every scope, with what it lets a token do: the consent page (translated there, hence
#: ``gettext_noop``) and the document say these.
SCOPES: dict[str, str] = {
    "profile:read": gettext_noop("Read your profile, ratings, blocks and the leaderboards."),
    "games:read": gettext_noop(
        "Read your games, their events, histories and streams, the lobby's lists."
    ),
    "games:play": gettext_noop("Create, join, leave and play games for you, and resign them."),
    "lobby:write": gettext_noop("Post seeks, send and answer challenges and rematches for you."),
    "chat:write": gettext_noop("Write at your tables' chat."),
    "webhooks:manage": gettext_noop("Create and delete webhooks that send your games elsewhere."),
    "devices:manage": gettext_noop("Register and remove your devices for push notifications."),
    "account:manage": gettext_noop(
        "Change your profile, password and blocks, export or delete your account, manage your"
        " apps and tokens."
    ),
    "bot:play": gettext_noop("Play as one of your bot accounts: its games, challenges and seeks."),
}

#: Scopes the consent page warns about: they act in your name where others see it, send your
#: data elsewhere, or hold the account itself.
DANGEROUS = frozenset({"games:play", "webhooks:manage", "account:manage", "bot:play"})

#: Never granted to an app through the consent page: only a personal token, made with the
#: account's password in the request, carries it (oauth/services.py).
NEVER_DELEGATED = frozenset({"account:manage"})


class MissingScope(exceptions.APIException):
    """A 403 ``missing_scope`` naming the scope (``members``: truc_api/problems.py adds them).

    DRF's exception, not an ``ApplicationError``: DRF imports the default permissions while
    ``rest_framework.views`` is being imported, so this module cannot import truc_api.problems
    (which imports that module) without a cycle."""

    status_code = HTTPStatus.FORBIDDEN
    default_code = "missing_scope"

    def __init__(self, scope: str) -> None:
        super().__init__(f"This operation needs the scope `{scope}`.", self.default_code)
        self.members = {"scope": scope}


def declared(view: Any, method: str) -> list[str] | None:
    """The scopes ``view`` declares for ``method`` (HEAD is GET's), or None if it declares none."""
    scopes: Sequence[str] | Mapping[str, Sequence[str]] | None = getattr(
        view, "required_scopes", None
    )
    if scopes is None:
        return None
    if isinstance(scopes, Mapping):
        method = "GET" if method == "HEAD" else method
        if method == "OPTIONS" or method not in scopes:
            return []  # OPTIONS describes; an undeclared method is answered 405 after this
        return list(scopes[method])
    return list(scopes)


def check(token_scope: str, needed: Sequence[str]) -> None:
    """Raise ``MissingScope`` for the first scope of ``needed`` that ``token_scope`` (a space-
    separated list, as OAuth writes it) does not grant."""
    have = set(token_scope.split())
    for scope in needed:
        if scope not in have:
            raise MissingScope(scope)


def is_delegated(request: Request) -> bool:
    """Whether the request came with an app's or a personal token, which carry scopes."""
    return isinstance(request.successful_authenticator, OAuth2Authentication)


class ScopeRequired(TokenHasScope):  # type: ignore[misc]  # django-oauth-toolkit: no type hints
    """A delegated token must carry every scope the view declares for the method."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not is_delegated(request):
            return True  # a login token, or none (IsAuthenticated, before this, decides)
        needed = declared(view, request.method or "GET")
        if needed is None:  # fail closed: no app may use a view that declares no scope
            raise exceptions.PermissionDenied("This operation is not open to apps.")
        token: Any = request.auth  # django-oauth-toolkit's AccessToken (is_delegated)
        check(token.scope, needed)
        return True

    def get_scopes(self, request: Request, view: Any) -> list[str]:
        return declared(view, request.method or "GET") or []


class Scopes(BaseScopes):  # type: ignore[misc]  # django-oauth-toolkit: no type hints
    """django-oauth-toolkit's scopes backend (``SCOPES_BACKEND_CLASS``): the scopes above; an app
    may be granted any but ``NEVER_DELEGATED``, and asks ``profile:read`` when it names none."""

    def get_all_scopes(self) -> dict[str, str]:
        return SCOPES

    def get_available_scopes(self, *args: Any, **kwargs: Any) -> list[str]:
        return [scope for scope in SCOPES if scope not in NEVER_DELEGATED]

    def get_default_scopes(self, *args: Any, **kwargs: Any) -> list[str]:
        return ["profile:read"]


# What views declare (``required_scopes``), by name, so that a typo fails at import.
PROFILE_READ = ["profile:read"]
GAMES_READ = ["games:read"]
GAMES_PLAY = ["games:play"]
LOBBY_WRITE = ["lobby:write"]
CHAT_WRITE = ["chat:write"]
WEBHOOKS_MANAGE = ["webhooks:manage"]
DEVICES_MANAGE = ["devices:manage"]
ACCOUNT_MANAGE = ["account:manage"]
#: Any token, whatever its scopes: logging out revokes the request's own token.
ANY_TOKEN: list[str] = []
