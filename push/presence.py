"""Marking a player at a game's table when he reads it through the REST API (his streams mark
themselves: ``streams.presence``), so that no push tells him what he is looking at."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from django.utils.decorators import sync_and_async_middleware

from streams import presence

#: The routes whose success means the player is at the game's table (routes/games.py): reading
#: it, or acting in it (a bot's instant answer to his move must not buzz him).
AT_TABLE = {("GET", "games-read"), ("GET", "games-events"), ("POST", "games-act")}


def mark_if_read(request: HttpRequest, response: HttpResponseBase) -> None:
    """After a successful read or action of ``AT_TABLE`` by a signed-in player: DRF sets
    ``request.user`` on the Django request when it authenticates, so it is known by then."""
    match = request.resolver_match
    user = getattr(request, "user", None)
    if (
        match is not None
        and (request.method, match.url_name) in AT_TABLE
        and response.status_code in (200, 201, 304)
        and user is not None
        and user.is_authenticated
    ):
        presence.mark(user.pk, match.kwargs["game_id"])


@sync_and_async_middleware
def seen_middleware(get_response: Callable[[HttpRequest], Any]) -> Callable[[HttpRequest], Any]:
    """Sync for the REST API; under ASGI it stays async (the streams mark themselves), so it
    never puts an open stream on a thread."""
    if iscoroutinefunction(get_response):

        async def passing(request: HttpRequest) -> HttpResponseBase:
            answer: Awaitable[HttpResponseBase] = get_response(request)
            return await answer

        return passing

    def marking(request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = get_response(request)
        mark_if_read(request, response)
        return response

    return marking
