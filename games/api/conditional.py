"""Polling a game with ``If-None-Match``: an unchanged game answered 304 before Django, with one
query for the token, the game and the viewer's seat.

A polling client asks far more often than the game changes, and the fixed cost of a request (the
request handler, the middleware stack, DRF, the token lookup, the connection check) was most of a
304's cost (bench/README.md). This WSGI layer answers only the one case it can prove: a valid
token, a game its bearer may see, an ETag that still matches, no CORS request. Anything else (no
token, a wrong or expired one, an invisible game, a changed game, a database error) goes on to
Django untouched, where ``GameView`` gives the full answer or the error: both paths compute the
tag with ``selectors.etag_of`` under the same visibility rule, and
tests/games/test_conditional_reads.py compares them.

A 304 answered here does not count against the player's request rate, as GitHub does for
conditional requests: polling this way is what clients should do, and it costs less than the 429
that throttling it would answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from django.core.exceptions import DisallowedHost
from django.core.signals import setting_changed
from django.db import DatabaseError, connection
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone

from games.models import Game
from games.selectors import etag_of, hidden_from
from truc_api import db
from truc_api.authentication import token_lookup
from truc_api.logs import REQUEST_ID_HEADER, request_id_from

_GAME_PATH = re.compile(r"/api/games/([0-9A-Fa-f-]{32,36})")
_TAGGED = (
    "SELECT t.expiry, p.is_active, s.number, g.version, g.status, g.updated_at, g.visibility"
    " FROM knox_authtoken t JOIN players_player p ON p.id = t.user_id"
    " JOIN games_game g ON g.id = %s"
    " LEFT JOIN games_seat s ON s.game_id = g.id AND s.player_id = p.id"
    " WHERE t.digest = %s AND t.token_key = %s"
)
#: The caching headers of every answer to a game read.
CACHING = {"Cache-Control": "private, no-cache"}
_NOT_MODIFIED = f"{HTTPStatus.NOT_MODIFIED.value} {HTTPStatus.NOT_MODIFIED.phrase}"

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def matches(if_none_match: str | None, tag: str) -> bool:
    if not if_none_match:
        return False
    offered = {candidate.strip() for candidate in if_none_match.split(",")}
    return "*" in offered or tag in offered


class ConditionalReads:
    """Wraps the Django WSGI application (truc_api/wsgi.py)."""

    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        tag = _unchanged(environ)
        if tag is None:
            return self.app(environ, start_response)
        request_id = request_id_from(environ.get("HTTP_X_REQUEST_ID", ""))
        headers = {"ETag": tag, **CACHING, REQUEST_ID_HEADER: request_id}
        start_response(_NOT_MODIFIED, list(headers.items()))
        return []


def _unchanged(environ: dict[str, Any]) -> str | None:
    """The viewer's ETag when the request is a poll it still matches, else None."""
    offered = environ.get("HTTP_IF_NONE_MATCH")
    if not offered or environ.get("REQUEST_METHOD") != "GET" or "HTTP_ORIGIN" in environ:
        return None  # CORS requests need the CORS middleware's headers
    path = _GAME_PATH.fullmatch(environ.get("PATH_INFO", ""))
    token = token_lookup(environ.get("HTTP_AUTHORIZATION", ""))
    if path is None or token is None or not _allowed_host(environ):
        return None
    try:
        game_pk = db.key(Game, path[1])
    except ValueError:
        return None
    found = _tagged([game_pk, token.digest, token.key])
    if not found:
        return None
    expiry, active, seat, version, status, updated_at, visibility = found[0]
    if not active or (expiry is not None and db.moment(expiry) < timezone.now()):
        return None
    if hidden_from(seat, visibility):
        return None
    tag = etag_of(game_pk, version, status, db.moment(updated_at), seat)
    return tag if matches(offered, tag) else None


def _allowed_host(environ: dict[str, Any]) -> bool:
    """Django's own ALLOWED_HOSTS check, which its middleware would have made; its verdict kept
    for the request's values it depends on (a sixth of a 304's cost otherwise), a few hundred at
    most, and forgotten when a setting changes (tests change ALLOWED_HOSTS)."""
    given = tuple(map(environ.get, _HOST_KEYS))
    verdict = _host_verdicts.get(given)
    if verdict is None:
        request = HttpRequest()
        request.META = environ
        try:
            request.get_host()
            verdict = True
        except DisallowedHost:
            verdict = False
        if len(_host_verdicts) >= 256:
            _host_verdicts.clear()  # anyone may send any Host: never let them grow the process
        _host_verdicts[given] = verdict
    return verdict


#: What Django reads of a request to find its host (``HttpRequest.get_host``).
_HOST_KEYS = (
    "HTTP_X_FORWARDED_HOST",
    "HTTP_HOST",
    "SERVER_NAME",
    "SERVER_PORT",
    "HTTP_X_FORWARDED_PORT",
)
_host_verdicts: dict[tuple[Any, ...], bool] = {}


@receiver(setting_changed)
def _forget_host_verdicts(**_: Any) -> None:
    _host_verdicts.clear()


def _tagged(params: list[Any]) -> list[tuple[Any, ...]] | None:
    """The poll's one query. Outside Django's request cycle, which checks a kept connection at a
    request's start (CONN_HEALTH_CHECKS): a connection found broken here is closed, and the
    request goes on to Django, which opens a new one."""
    connection.health_check_done = True
    try:
        return db.rows(_TAGGED, params, binary=True)
    except DatabaseError:
        connection.close_if_unusable_or_obsolete()
        return None
