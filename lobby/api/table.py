"""The lobby's API at a table (a game's rematch and chat) and the player's data export: thin
views that read input, call a service, and answer with a serializer."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import errors as game_errors
from lobby import chat, export, rematch
from lobby import errors as lobby_errors
from lobby.api.examples import (
    AT,
    GAME_ID,
    GAME_NOT_FOUND,
    NOT_SEATED,
    REMATCH_EXAMPLE,
    error_responses,
    request_example,
    response_example,
)
from lobby.api.serializers import (
    ChatLineCreateSerializer,
    ChatLineSerializer,
    ChatQuerySerializer,
    DataExportSerializer,
    RematchSerializer,
)
from players.api.requests import player_of
from truc_api.bounds import MAX_ID
from truc_api.scopes import ACCOUNT_MANAGE, CHAT_WRITE, GAMES_READ, LOBBY_WRITE
from truc_api.serializers import (
    NOT_AN_ID,
    RETRY_AFTER,
    UNKNOWN_FIELD,
    UUID_PATTERN,
    error_example,
    invalid_request_example,
    location,
    output,
    validated,
)

# --- rematch -------------------------------------------------------------------------------------

_REMATCH_ERRORS = (
    GAME_NOT_FOUND,
    NOT_SEATED,
    error_example("Game not over", game_errors.GameNotOver),
    error_example("Rematch closed", lobby_errors.RematchClosed),
    error_example("Aborted game", lobby_errors.NoRematch),
)


class RematchView(APIView):
    required_scopes = {"GET": GAMES_READ, "POST": LOBBY_WRITE}

    @extend_schema(
        operation_id="games_rematch_read",
        tags=["lobby"],
        summary="The rematch of a game, and the game it is the rematch of",
        responses={200: RematchSerializer, **error_responses(GAME_NOT_FOUND)},
        parameters=[GAME_ID, RETRY_AFTER],
        examples=[response_example("Offered", REMATCH_EXAMPLE)],
    )
    def get(self, request: Request, game_id: str) -> Response:
        return Response(output(RematchSerializer, rematch.rematch_of(game_id, player_of(request))))

    @extend_schema(
        operation_id="games_rematch",
        tags=["lobby"],
        summary="Offer a rematch, or accept the one offered",
        description=(
            "The same table and settings, everyone one seat back so that the first dealer moves "
            "one seat on. When every seated person has asked, the new game starts and the two "
            "games link to each other (`next_game_id`, `previous_game_id`)."
        ),
        request=None,
        responses={200: RematchSerializer, **error_responses(*_REMATCH_ERRORS)},
        parameters=[GAME_ID, RETRY_AFTER],
        examples=[response_example("Offered", REMATCH_EXAMPLE)],
    )
    def post(self, request: Request, game_id: str) -> Response:
        return Response(
            output(RematchSerializer, rematch.want_rematch(player_of(request), game_id))
        )


class RematchDeclineView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="games_rematch_decline",
        tags=["lobby"],
        summary="Decline the rematch offered",
        request=None,
        responses={
            200: RematchSerializer,
            **error_responses(
                *_REMATCH_ERRORS, error_example("No offer", lobby_errors.NoRematchOffer)
            ),
        },
        parameters=[GAME_ID, RETRY_AFTER],
    )
    def post(self, request: Request, game_id: str) -> Response:
        return Response(
            output(RematchSerializer, rematch.decline_rematch(player_of(request), game_id))
        )


# --- chat ----------------------------------------------------------------------------------------

_LINE = {
    "id": 41,
    "room": "players",
    "author": {"id": 7, "name": "Pep"},
    "text": "Bona sort!",
    "at": AT,
}


class ChatView(APIView):
    required_scopes = {"GET": GAMES_READ, "POST": CHAT_WRITE}

    @extend_schema(
        operation_id="games_chat_list",
        tags=["lobby"],
        summary="A room's chat lines at a game",
        description=(
            "The players' room is for the seated players, the spectators' room for everyone "
            "else; once the match is over anyone who may see the game reads both. Lines from a "
            "player you block are not shown to you, nor lines staff hid."
        ),
        responses={
            200: ChatLineSerializer(many=True),
            **error_responses(
                GAME_NOT_FOUND,
                error_example("Room closed", lobby_errors.RoomClosed),
                invalid_request_example(
                    "Unknown room", "room", "invalid_choice", '"kitchen" is not a valid choice.'
                ),
            ),
        },
        parameters=[GAME_ID, ChatQuerySerializer, RETRY_AFTER],
        examples=[response_example("Lines", _LINE)],  # one line: drf-spectacular makes it a list
    )
    def get(self, request: Request, game_id: str) -> Response:
        query = validated(ChatQuerySerializer, request.query_params.dict())
        found = chat.lines(player_of(request), game_id, query["room"], query["after"])
        return Response(output(ChatLineSerializer, found, many=True))

    @extend_schema(
        operation_id="games_chat_say",
        tags=["lobby"],
        summary="Say a line at the table",
        request=ChatLineCreateSerializer,
        responses={
            201: ChatLineSerializer,
            **error_responses(
                invalid_request_example(
                    "Message too long",
                    "text",
                    "max_length",
                    "Ensure this field has no more than 280 characters.",
                ),
                UNKNOWN_FIELD,
                GAME_NOT_FOUND,
                NOT_SEATED,
                error_example("Room closed", lobby_errors.RoomClosed),
                error_example("Game over", game_errors.GameOver),
                error_example(
                    "Too many messages",
                    lobby_errors.TooManyMessages,
                    detail="Wait 4 s before your next line.",
                ),
            ),
        },
        parameters=[
            GAME_ID,
            RETRY_AFTER,
            location(f"/api/games/{UUID_PATTERN}/chat/[1-9][0-9]*", "the line"),
        ],
        examples=[
            request_example("To the table", {"room": "players", "text": "Bona sort!"}),
            response_example("Said", _LINE, 201),
        ],
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = validated(ChatLineCreateSerializer, request.data)
        line = chat.say(player_of(request), game_id, data["room"], data["text"])
        where = {"Location": f"/api/games/{line.game_id}/chat/{line.pk}"}
        return Response(
            output(ChatLineSerializer, line), status=status.HTTP_201_CREATED, headers=where
        )


class ChatLineView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="games_chat_line",
        tags=["lobby"],
        summary="One chat line at a game",
        description=(
            "A line you may read, as the room's list gives it: a line of a room closed to you,"
            " hidden by staff or said by a player you block is not found."
        ),
        responses={
            200: ChatLineSerializer,
            **error_responses(
                GAME_NOT_FOUND,
                error_example("No such line", lobby_errors.LineNotFound),
                NOT_AN_ID,
            ),
        },
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "line_id",
                {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                OpenApiParameter.PATH,
                description="The line's id (`id` in its 201, and in the room's list).",
            ),
            RETRY_AFTER,
        ],
        examples=[response_example("Line", _LINE)],
    )
    def get(self, request: Request, game_id: str, line_id: int) -> Response:
        return Response(output(ChatLineSerializer, chat.line(player_of(request), game_id, line_id)))


# --- the data export -----------------------------------------------------------------------------


class ExportView(APIView):
    required_scopes = ACCOUNT_MANAGE

    @extend_schema(
        operation_id="players_me_export",
        tags=["players"],
        summary="Export your data (JSON)",
        description=(
            "Your profile, ratings and their history, per-pool statistics, every game as your "
            "seat sees it (with its events), the chat lines you may read, your seeks, challenges, "
            "blocks and webhook subscriptions (without their secrets)."
        ),
        responses={200: DataExportSerializer, **error_responses()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        player = player_of(request)
        mine = export.export_for(player)
        return Response(output(DataExportSerializer, mine, context={"viewer": player}))
