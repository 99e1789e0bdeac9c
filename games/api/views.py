"""The games API: thin views that read input, call a service or a selector, and answer.

The acting seat always comes from the caller's token (``viewer_seat``), never from the body; every
answer is the caller's own projection of the game.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponseBase, HttpResponseNotModified
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import contract, selectors, services
from games.api import docs
from games.api.serializers import (
    ActionResultSerializer,
    ActionSerializer,
    ExportSerializer,
    FeedPageSerializer,
    FeedQuerySerializer,
    GameCreateSerializer,
    GameSerializer,
    GameSummarySerializer,
    HistorySerializer,
    JoinByCodeSerializer,
    JoinSerializer,
    OpenGamesQuerySerializer,
    RulesMetadataSerializer,
)
from games.models import Game, Seat
from players.api.requests import player_of
from players.models import Player
from truc_api.components import ref
from truc_api.pagination import Page
from truc_api.scopes import GAMES_PLAY, GAMES_READ
from truc_api.serializers import UUID_PATTERN, location, output, validated, validated_query
from truc_api.throttling import ScopedRateThrottle

GAME_ID = OpenApiParameter(
    "game_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The game's id."
)


class RulesView(APIView):
    """The referee's tables, for clients: public, the same for everyone, cacheable."""

    authentication_classes = ()
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="rules_read",
        tags=["rules"],
        summary="The rules' metadata: presets, options, decks, cards, actions",
        responses={200: RulesMetadataSerializer, **docs.problems("rules_read")},
        parameters=[docs.RULES_CACHING],
        description=(
            "What a client needs to render cards, sort a hand and offer actions without"
            " hard-coding them: the presets with every option, each option's type and range, the"
            " decks with their cards in truco order (strength and envido value of each), suit and"
            " figure names in Spanish and Valencian, and every action with its aliases."
        ),
    )
    def get(self, request: Request) -> Response:
        caching = {"Cache-Control": docs.RULES_CACHE_CONTROL}
        return Response(output(RulesMetadataSerializer, contract.rules_metadata()), headers=caching)


class GameCreateView(APIView):
    required_scopes = GAMES_PLAY

    @extend_schema(
        operation_id="games_create",
        summary="Create a game (you take seat 0)",
        tags=["games"],
        parameters=[location(f"/api/games/{UUID_PATTERN}", "the game")],
        request=GameCreateSerializer,
        responses={201: GameSerializer, **docs.problems("games_create")},
        examples=docs.CREATE_EXAMPLES,
    )
    def post(self, request: Request) -> Response:
        data = validated(GameCreateSerializer, request.data)
        game = services.create_game(player_of(request), **data)
        return Response(
            output(GameSerializer, selectors.game_view(game, 0)),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/games/{game.pk}"},
        )


class PublicGamesView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """A list of public games (``get_queryset``), a page at a time, filtered by preset and
    table size; each row says the caller's seat, if he has one."""

    required_scopes = GAMES_READ

    serializer_class = GameSummarySerializer
    pagination_class = Page
    query_parameters = tuple(OpenGamesQuerySerializer().fields)

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query = validated_query(OpenGamesQuerySerializer, request, paged=True)
        page = self.paginate_queryset(self.get_queryset().filter(**query))
        mine = {
            seat.game_id: seat.number for seat in Seat.objects.filter(player=player_of(request))
        }
        rows = [selectors.game_summary(game, mine.get(game.pk)) for game in page or []]
        return self.get_paginated_response(output(GameSummarySerializer, rows, many=True))


class OpenGamesView(PublicGamesView):
    """Public games waiting for players, newest first."""

    @extend_schema(
        operation_id="games_open",
        tags=["games"],
        summary="Public games waiting for players",
        parameters=[OpenGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **docs.problems("games_open")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Game]:
        return selectors.open_games()


class LiveGamesView(PublicGamesView):
    """Public games being played, the most recently moved first: what a spectator may watch
    (``GET /api/games/{id}/stream`` as a spectator). A row holds no card (``game_summary``)."""

    @extend_schema(
        operation_id="games_live",
        tags=["games"],
        summary="Public games being played, to watch",
        description=(
            "Active public games, the most recently moved first, a page at a time; `preset` and"
            " `players` narrow the list. Private games are never listed. Each row is a summary"
            " (seats, scores, turn, deadline; no card): follow one with"
            " `GET /api/games/{id}/stream`, as a spectator unless you sit at it (`my_seat`)."
        ),
        parameters=[OpenGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **docs.problems("games_live")},
        examples=docs.LIVE_EXAMPLES,
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Game]:
        return selectors.live_games()


class MyGamesView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """The caller's games: those waiting for the caller first, then the most recently moved."""

    required_scopes = GAMES_READ

    serializer_class = GameSummarySerializer
    pagination_class = Page

    @extend_schema(
        operation_id="games_mine",
        summary="Your games, those waiting for you first",
        tags=["games"],
        responses={200: GameSummarySerializer(many=True), **docs.problems("games_mine")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Seat]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Seat.objects.none()
        return selectors.my_games(player_of(self.request))

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = [selectors.game_summary(s.game, s.number, s.awaiting) for s in page or []]
        return self.get_paginated_response(output(GameSummarySerializer, rows, many=True))


class JoinByCodeView(APIView):
    required_scopes = GAMES_PLAY

    @extend_schema(
        operation_id="games_join_by_code",
        summary="Join a private game by its code",
        tags=["games"],
        request=JoinByCodeSerializer,
        responses={200: GameSerializer, **docs.problems("games_join_by_code")},
    )
    def post(self, request: Request) -> Response:
        data = validated(JoinByCodeSerializer, request.data)
        game = services.join_by_code(player_of(request), data["join_code"], seat=data.get("seat"))
        return _game_answer(game, player_of(request))


class GameView(APIView):
    """A poll (``If-None-Match``) of an unchanged game is answered 304 through the whole stack
    (middleware headers, throttles, the token's lookup) with one statement more: the game's ETag
    for the caller (``selectors.polled_etag``)."""

    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="games_read",
        summary="A game as your seat sees it",
        tags=["games"],
        parameters=[GAME_ID, docs.IF_NONE_MATCH, docs.ETAG, docs.VIEW_CACHING],
        responses={200: GameSerializer, 304: None, **docs.problems("games_read")},
        description=(
            "The game as the caller's seat sees it; others get a spectator's view of public games."
            " Send the last `ETag` as `If-None-Match` to get a bodiless 304 while nothing changed."
        ),
    )
    def get(self, request: Request, game_id: str) -> HttpResponseBase:
        polled = request.headers.get("If-None-Match")
        tag = selectors.polled_etag(game_id, player_of(request)) if polled else None
        if tag is not None and _matches(polled, tag):
            # Django's own bodiless 304: nothing for DRF's renderer to do (DRF adds its headers
            # to any response, the middleware theirs).
            return HttpResponseNotModified(headers={"ETag": tag, **_CACHING})
        view, tag = selectors.current_view(game_id, player_of(request))
        return Response(output(GameSerializer, view), headers={"ETag": tag, **_CACHING})


#: The caching headers of every answer to a game read.
_CACHING = {"Cache-Control": docs.VIEW_CACHE_CONTROL}


def _matches(if_none_match: str | None, tag: str) -> bool:
    if not if_none_match:
        return False
    offered = {candidate.strip() for candidate in if_none_match.split(",")}
    return "*" in offered or tag in offered


class JoinView(APIView):
    required_scopes = GAMES_PLAY

    @extend_schema(
        operation_id="games_join",
        summary="Take a seat at a game",
        tags=["games"],
        parameters=[GAME_ID],
        request=JoinSerializer,
        responses={200: GameSerializer, **docs.problems("games_join")},
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = validated(JoinSerializer, request.data)
        game = services.join_game(
            player_of(request), game_id, seat=data.get("seat"), code=data.get("join_code")
        )
        return _game_answer(game, player_of(request))


class LeaveView(APIView):
    required_scopes = GAMES_PLAY

    @extend_schema(
        operation_id="games_leave",
        summary="Leave a game before it starts",
        tags=["games"],
        parameters=[GAME_ID],
        request=None,
        responses={204: None, **docs.problems("games_leave")},
    )
    def post(self, request: Request, game_id: str) -> Response:
        services.leave_game(player_of(request), game_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ResignView(APIView):
    required_scopes = GAMES_PLAY

    @extend_schema(
        operation_id="games_resign",
        summary="Resign: the other side wins the match",
        tags=["games"],
        parameters=[GAME_ID],
        request=None,
        responses={200: GameSerializer, **docs.problems("games_resign")},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = services.resign(player_of(request), game_id)
        return _game_answer(game, player_of(request))


class ActionView(APIView):
    required_scopes = GAMES_PLAY
    # Actions count on a budget of their own, not on the player's general one (settings.py).
    throttle_classes = (ScopedRateThrottle,)
    throttle_scope = "actions"

    @extend_schema(
        operation_id="games_act",
        summary="Act: play a card, call, answer, fold or pass",
        tags=["games"],
        parameters=[
            GAME_ID,
            docs.IDEMPOTENCY_KEY,
            docs.ETAG_OF_ACTION,
            docs.REPLAYED,
            location(
                f"/api/games/{UUID_PATTERN}/events\\?after=[0-9]+&limit=[1-9][0-9]*",
                "the events this action recorded (the feed from the first, as many as it made)",
            ),
        ],
        request={"application/json": ref("ActionRequest")},
        responses={201: ActionResultSerializer, **docs.problems("games_act")},
        examples=docs.ACTION_EXAMPLES,
        description=(
            "Act for the caller's seat. `expected_version` must be the game's current version."
            " A retry with the same `Idempotency-Key` and body returns the first answer (with"
            " `Idempotent-Replayed: true`) and stores nothing new."
        ),
    )
    def post(self, request: Request, game_id: str) -> Response:
        key = _idempotency_key(request)
        body = validated(ActionSerializer, request.data)
        acted = services.act(player_of(request), game_id, body, key)
        answer = output(
            ActionResultSerializer,
            selectors.action_view(acted.game, acted.state, acted.rows, acted.seat),
        )
        # A replay's view may be old: it carries no ETag to poll with (docs.ETAG_OF_ACTION).
        headers = (
            {"Idempotent-Replayed": "true"}
            if acted.replayed
            else {"ETag": selectors.etag(acted.game, acted.seat)}
        )
        return Response(answer, status=status.HTTP_201_CREATED, headers=headers | _recorded(acted))


def _recorded(acted: services.Acted) -> dict[str, str]:
    """A 201's `Location`: the feed's page that holds exactly the events the action recorded
    (a replay's too: the same answer as the first)."""
    if not acted.rows:
        return {}
    after, game_id = acted.rows[0].seq - 1, acted.game.pk
    return {"Location": f"/api/games/{game_id}/events?after={after}&limit={len(acted.rows)}"}


def _game_answer(game: Game, player: Player) -> Response:
    """The game as the caller sees it, after a change he made to it."""
    return Response(
        output(GameSerializer, selectors.game_view(game, selectors.viewer_seat(game, player)))
    )


class EventFeedView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="games_events",
        summary="The game's events after a seq, as you may see them",
        tags=["games"],
        parameters=[GAME_ID, FeedQuerySerializer],
        responses={200: FeedPageSerializer, **docs.problems("games_events")},
        description=(
            "The game's events after `after`, in order, redacted for the caller, at most `limit`"
            " of them; ask again with the answer's `after` while `more` is true."
        ),
    )
    def get(self, request: Request, game_id: str) -> Response:
        query = validated_query(FeedQuerySerializer, request)
        game, seat = selectors.visible_game(game_id, player_of(request))
        page = selectors.feed_page(game, seat, query["after"], query["limit"])
        return Response(output(FeedPageSerializer, page))


class HistoryView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="games_history",
        summary="The hands and camas played so far",
        tags=["games"],
        parameters=[GAME_ID],
        responses={200: HistorySerializer, **docs.problems("games_history")},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, _ = selectors.visible_game(game_id, player_of(request))
        return Response(output(HistorySerializer, selectors.hand_history(game)))


class ExportView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="games_export",
        summary="The whole record of a finished game",
        tags=["games"],
        parameters=[GAME_ID],
        responses={200: ExportSerializer, **docs.problems("games_export")},
        description="The whole record of a finished game, still without any unplayed card.",
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, seat = selectors.visible_game(game_id, player_of(request))
        return Response(output(ExportSerializer, selectors.export(game, seat)))


def _idempotency_key(request: Request) -> str:
    key = request.headers.get("Idempotency-Key", "").strip()
    if not key or len(key) > 255:
        raise serializers.ValidationError(docs.MISSING_KEY)
    return key
