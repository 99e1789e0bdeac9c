"""Middleware that only the server-rendered pages need: the admin's, and OAuth's sign-in and
consent pages (oauth/pages.py).

The API authenticates by token and keeps no session, so the session, CSRF, authentication and
messages middleware only serve those pages. Scoped to them, they no longer cost every API
request. Each is a subclass of Django's own, so the admin's system checks still find it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.middleware.csrf import CsrfViewMiddleware

ADMIN_PREFIX = "/admin/"
#: OAuth's pages: a player signs in and allows an app with a session and a CSRF token.
PAGES_PREFIXES = (ADMIN_PREFIX, "/oauth/login/", "/oauth/authorize/")


def _for_admin(request: HttpRequest) -> bool:
    return request.path_info.startswith(PAGES_PREFIXES)


class _AdminOnly:
    """Put before one of Django's middleware: it runs for the admin's pages, and is skipped for
    every other request."""

    get_response: Any

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # The Django middleware this is mixed into (below) has the __call__ and get_response.
        if _for_admin(request):
            return super().__call__(request)  # type: ignore[misc, no-any-return]
        return self.get_response(request)  # type: ignore[no-any-return]


class AdminSessionMiddleware(_AdminOnly, SessionMiddleware):
    pass


class AdminAuthenticationMiddleware(_AdminOnly, AuthenticationMiddleware):
    pass


class AdminMessageMiddleware(_AdminOnly, MessageMiddleware):
    pass


class AdminCsrfViewMiddleware(_AdminOnly, CsrfViewMiddleware):
    def process_view(
        self, request: HttpRequest, callback: Any, callback_args: Any, callback_kwargs: Any
    ) -> HttpResponseForbidden | None:
        if not _for_admin(request):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)
