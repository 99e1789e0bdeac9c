"""The streams' views: Django async views, each a few awaits around a sync read.

Served live by the ASGI server (truc_api/asgi.py). Reached through WSGI instead (a route that
sends them to the REST server, or Django's test client), a stream is finite: what the log holds
after the cursor and the view, then it ends, and an EventSource reconnects after ``retry``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from http import HTTPStatus
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
    StreamingHttpResponse,
)

from games import selectors
from games.api.serializers import FeedPageSerializer
from games.errors import CursorAhead
from streams import game_stream, hub, long_poll, player_stream, sse, tokens
from streams.limits import limits
from streams.queries import (
    GameStreamQuerySerializer,
    PlayerStreamQuerySerializer,
    WaitQuerySerializer,
    stream_query,
)
from truc_api.problems import problem_for, problem_response
from truc_api.serializers import output, validated

View = Callable[..., Coroutine[Any, Any, HttpResponseBase]]


def answers_problems(view: View) -> View:
    """Every refusal is problem+json, as everywhere in the API (truc_api/problems.py)."""

    @functools.wraps(view)
    async def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return await view(request, *args, **kwargs)
        except Exception as error:
            answer = problem_for(error)
            if answer is None:
                raise
            return answer

    return wrapper


def _stream(request: HttpRequest, body: Any) -> HttpResponse | StreamingHttpResponse:
    if isinstance(body, list):  # finite (not served by the ASGI server)
        chunks = [sse.retry(settings.STREAM_RETRY_MILLISECONDS), *body]
        return HttpResponse(b"".join(chunks), content_type=sse.CONTENT_TYPE, headers=sse.HEADERS)
    return StreamingHttpResponse(body, content_type=sse.CONTENT_TYPE, headers=sse.HEADERS)


def is_live(request: HttpRequest) -> bool:
    return isinstance(request, ASGIRequest)


def only_get(view: View) -> View:
    @functools.wraps(view)
    async def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method != "GET":
            refused = problem_response(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed")
            refused["Allow"] = "GET"
            return refused
        return await view(request, *args, **kwargs)

    return wrapper


@answers_problems
@only_get
async def game_stream_view(
    request: HttpRequest, game_id: str
) -> HttpResponse | StreamingHttpResponse:
    player, digest = await sync_to_async(tokens.authenticate)(request)
    query = stream_query(request, GameStreamQuerySerializer)
    game, _ = await sync_to_async(selectors.visible_game)(game_id, player)
    if query["after"] > game.version:
        raise CursorAhead(game.version)
    if game.status in game_stream.OVER and query["after"] == game.version:
        # Nothing more will ever come: 204 tells an EventSource to stop reconnecting.
        return HttpResponse(status=HTTPStatus.NO_CONTENT)
    cursor = game_stream.Cursor(game.pk, query["after"])
    if not is_live(request):
        chunks, _ = await sync_to_async(game_stream.catch_up)(cursor, player)
        return _stream(request, chunks)
    claim = await limits(hub.hub()).claim(player.pk)
    return _stream(request, game_stream.live(cursor, player, digest, claim))


@answers_problems
@only_get
async def player_stream_view(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    player, digest = await sync_to_async(tokens.authenticate)(request)
    query = stream_query(request, PlayerStreamQuerySerializer)
    last = await sync_to_async(player_stream.last_seq)(player.pk)
    if query["after"] > last:
        raise CursorAhead(last, "your last notice")
    cursor = player_stream.PlayerCursor(player.pk, query["after"])
    if not is_live(request):
        chunks, _, _ = await sync_to_async(player_stream.catch_up)(cursor)
        return _stream(request, chunks)
    claim = await limits(hub.hub()).claim(player.pk)
    return _stream(request, player_stream.live(cursor, digest, claim))


@answers_problems
@only_get
async def events_wait_view(request: HttpRequest, game_id: str) -> HttpResponse:
    player, _ = await sync_to_async(tokens.authenticate)(request)
    query = validated(WaitQuerySerializer, request.GET.dict())
    after = query["after"]
    game, seat = await sync_to_async(long_poll.opened)(game_id, player, after)
    headers = {}
    if not long_poll.answers_at_once(game, after, query["timeout"]):
        if is_live(request):
            game = await long_poll.wait_for_events(game, player.pk, after, query["timeout"])
        else:  # through WSGI a wait would hold a thread: answer now, say when to ask again
            headers["Retry-After"] = "1"
    page = await sync_to_async(long_poll.feed)(game, seat, after, query["limit"])
    return JsonResponse(output(FeedPageSerializer, page), headers=headers)
