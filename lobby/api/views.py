"""The lobby's API: thin views that read input, call a service, and answer with a serializer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import errors as game_errors
from lobby import challenges, chat, export, rematch, seeks
from lobby import errors as lobby_errors
from lobby.api.serializers import (
    ChallengeCreateSerializer,
    ChallengeSerializer,
    ChatLineCreateSerializer,
    ChatLineSerializer,
    ChatQuerySerializer,
    DataExportSerializer,
    DeclineSerializer,
    RematchSerializer,
    SeekCreateSerializer,
    SeekSerializer,
)
from lobby.lookups import by_id
from lobby.models import Challenge, Seek
from players.api.requests import player_of
from truc_api.serializers import (
    NOT_AN_ID,
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    UNKNOWN_FIELD,
    UUID_PATTERN,
    answer,
    error_example,
    invalid_request_example,
    location,
    output,
    problem_responses,
    validated,
)

_SEEK_ID = OpenApiParameter(
    "seek_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The seek's id."
)
_CHALLENGE_ID = OpenApiParameter(
    "challenge_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The challenge's id."
)
_GAME_ID = OpenApiParameter(
    "game_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The game's id."
)
_TOKEN = OpenApiParameter("token", str, OpenApiParameter.PATH, description="The link's token.")
_GAME = "8d6b2c1e-5f0a-4a43-9c7e-2b1f9e3d4a55"
_SEEK = "2f4e1c9a-7b3d-4e8f-a1c2-9d0e5b6f7a81"
_CHALLENGE = "c1a2b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
_AT = "2026-05-01T20:30:00Z"
_LATER = "2026-05-01T21:00:00Z"


def _errors(*examples: OpenApiExample) -> dict[Any, Any]:
    return problem_responses(*examples, NOT_AUTHENTICATED, THROTTLED)


def _response(name: str, value: dict[str, Any], status_code: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[status_code])


def _request(name: str, value: dict[str, Any]) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


_SEEK_EXAMPLE = {
    "id": _SEEK,
    "status": "matched",
    "player_id": 7,
    "partner_id": None,
    "preset": "valenciano",
    "players": 2,
    "options": {},
    "turn_seconds": 60,
    "rated": True,
    "rating": 1512,
    "rating_min": None,
    "rating_max": None,
    "bot_after": None,
    "created_at": _AT,
    "expires_at": _LATER,
    "ended_at": _AT,
    "game_id": _GAME,
}
_CHALLENGE_EXAMPLE = {
    "id": _CHALLENGE,
    "status": "pending",
    "challenger_id": 7,
    "preset": "argentino",
    "players": 2,
    "options": {},
    "turn_seconds": 86400,
    "rated": False,
    "visibility": "public",
    "seats": [
        {"number": 0, "player_id": 7, "accepted": True},
        {"number": 1, "player_id": 9, "accepted": False},
    ],
    "link_token": None,
    "decline_reason": "",
    "created_at": _AT,
    "expires_at": "2026-05-02T20:30:00Z",
    "ended_at": None,
    "game_id": None,
}
_REMATCH_EXAMPLE = {
    "game_id": _GAME,
    "status": "offered",
    "offered_by": 7,
    "accepted_by": [7],
    "next_game_id": None,
    "previous_game_id": None,
}
_BAD_OPTION = invalid_request_example(
    "Unknown preset", "preset", "invalid_choice", '"bisca" is not a valid choice.'
)
_SEEK_NOT_FOUND = error_example("No such seek", lobby_errors.SeekNotFound)
_CHALLENGE_NOT_FOUND = error_example("No such challenge", lobby_errors.ChallengeNotFound)
_CHALLENGE_CLOSED = error_example("Challenge closed", lobby_errors.ChallengeClosed)
_CHALLENGE_EXPIRED = error_example("Challenge expired", lobby_errors.ChallengeExpired)
_NOT_CHALLENGED = error_example("Not challenged", lobby_errors.NotChallenged)
_GAME_NOT_FOUND = error_example("No such game", game_errors.GameNotFound)
_NOT_SEATED = error_example("Not seated", game_errors.NotSeated)


def _seek_out(seek: Seek, http_status: int = 200) -> Response:
    return Response(
        output(SeekSerializer, seek), status=http_status, headers=_where(http_status, seek)
    )


def _where(http_status: int, created: Seek | Challenge) -> dict[str, str]:
    """A 201 says where the new seek or challenge is read (``Location``)."""
    if http_status != status.HTTP_201_CREATED:
        return {}
    kind = "seeks" if isinstance(created, Seek) else "challenges"
    return {"Location": f"/api/{kind}/{created.pk}"}


class SeeksView(APIView):
    @extend_schema(
        operation_id="seeks_list",
        tags=["lobby"],
        summary="Your seeks, newest first",
        responses={200: SeekSerializer(many=True), **_errors()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        mine = Seek.objects.filter(player=player_of(request)) | Seek.objects.filter(
            partner=player_of(request)
        )
        return Response(output(SeekSerializer, mine.order_by("-created_at")[:100], many=True))

    @extend_schema(
        operation_id="seeks_create",
        tags=["lobby"],
        summary="Seek a game: paired with compatible seekers at once or as they come",
        description=(
            "Seekers of one pool (the same preset, options, table size, turn clock and rated "
            "flag) are paired when each one's rating window holds the others' ratings and nobody "
            "blocks anybody. The default window is your rating plus or minus "
            "`LOBBY_WINDOW_BASE` points, widening with the time waited; `rating_min`/"
            "`rating_max` set your own. Paired at once, the answer says `matched` with the game; "
            "otherwise a `match_found` notice follows (webhook kind `match_found`)."
        ),
        request=SeekCreateSerializer,
        responses={
            201: SeekSerializer,
            **_errors(
                _BAD_OPTION,
                UNKNOWN_FIELD,
                answer(
                    "Bots for a rated seek",
                    lobby_errors.TableRefused(
                        "bot_after",
                        "rated_seek",
                        "Bots fill only unrated seeks: a game with a bot is not rated.",
                    ),
                ),
                error_example("Already seeking", lobby_errors.AlreadySeeking),
                error_example("Partner blocked", lobby_errors.PlayerBlocked),
            ),
        },
        parameters=[RETRY_AFTER, location(f"/api/seeks/{UUID_PATTERN}", "the seek")],
        examples=[
            _request(
                "Rated valenciano, one minute a turn",
                {"preset": "valenciano", "players": 2, "turn_seconds": 60, "rated": True},
            ),
            _request(
                "Pairs, with a partner",
                {"preset": "argentino", "players": 4, "partner_id": 12, "turn_seconds": 3600},
            ),
            _request(
                "Casual, bots after 30 s",
                {"preset": "valenciano", "rated": False, "bot_after": 30, "bot_level": "strong"},
            ),
            _response("Matched at once", _SEEK_EXAMPLE, 201),
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(SeekCreateSerializer, request.data)
        seek = seeks.create_seek(player_of(request), seeks.SeekRequest(**data))
        return _seek_out(seek, status.HTTP_201_CREATED)


class SeekDetailView(APIView):
    @extend_schema(
        operation_id="seeks_read",
        tags=["lobby"],
        summary="One of your seeks",
        responses={200: SeekSerializer, **_errors(_SEEK_NOT_FOUND)},
        parameters=[_SEEK_ID, RETRY_AFTER],
        examples=[_response("Matched", _SEEK_EXAMPLE)],
    )
    def get(self, request: Request, seek_id: str) -> Response:
        seek = by_id(Seek.objects.all(), seek_id)
        if seek is None or player_of(request).pk not in seek.seekers:
            raise lobby_errors.SeekNotFound()
        return _seek_out(seek)

    @extend_schema(
        operation_id="seeks_cancel",
        tags=["lobby"],
        summary="Cancel a seek that still waits",
        responses={
            200: SeekSerializer,
            **_errors(_SEEK_NOT_FOUND, error_example("Seek closed", lobby_errors.SeekClosed)),
        },
        parameters=[_SEEK_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, seek_id: str) -> Response:
        return _seek_out(seeks.cancel_seek(player_of(request), seek_id))


class SeekJoinView(APIView):
    @extend_schema(
        operation_id="seeks_join",
        tags=["lobby"],
        summary="Confirm, as the named partner, that you queue in this seek",
        request=None,
        responses={
            200: SeekSerializer,
            **_errors(
                _SEEK_NOT_FOUND,
                error_example("Seek closed", lobby_errors.SeekClosed),
                error_example("Already seeking", lobby_errors.AlreadySeeking),
            ),
        },
        parameters=[_SEEK_ID, RETRY_AFTER],
    )
    def post(self, request: Request, seek_id: str) -> Response:
        return _seek_out(seeks.confirm_partner(player_of(request), seek_id))


# --- challenges ----------------------------------------------------------------------------------


def _challenge_out(request: Request, challenge: Challenge, http_status: int = 200) -> Response:
    body = output(ChallengeSerializer, challenge, context={"viewer": player_of(request)})
    return Response(body, status=http_status, headers=_where(http_status, challenge))


class ChallengesView(APIView):
    @extend_schema(
        operation_id="challenges_list",
        tags=["lobby"],
        summary="Your challenges, sent and received, newest first",
        responses={200: ChallengeSerializer(many=True), **_errors()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        found = challenges.challenges_of(player_of(request))
        body = output(ChallengeSerializer, found, many=True, context={"viewer": player_of(request)})
        return Response(body)

    @extend_schema(
        operation_id="challenges_create",
        tags=["lobby"],
        summary="Challenge named players, or leave seats open for a private link",
        description=(
            "You take seat 0 and your partner seat 2; opponents take seats 1 and 3. A seat left "
            "unnamed is open: the answer's `link_token` lets whoever you give it to take it. The "
            "game starts when every seat has accepted. A player who takes no challenges from "
            "strangers, or who blocks you, answers `challenge_refused`."
        ),
        request=ChallengeCreateSerializer,
        responses={
            201: ChallengeSerializer,
            **_errors(
                _BAD_OPTION,
                UNKNOWN_FIELD,
                answer(
                    "No such player",
                    lobby_errors.TableRefused("opponents", "no_such_player", "No such player."),
                ),
                error_example("Refused", lobby_errors.ChallengeRefused),
                error_example("You block him", lobby_errors.PlayerBlocked),
            ),
        },
        parameters=[RETRY_AFTER, location(f"/api/challenges/{UUID_PATTERN}", "the challenge")],
        examples=[
            _request(
                "One against one",
                {"preset": "argentino", "opponents": [9], "rated": False},
            ),
            _request(
                "Pairs: a partner, one opponent, one open seat",
                {"preset": "valenciano", "players": 4, "partner_id": 12, "opponents": [9]},
            ),
            _request("A private link", {"preset": "valenciano", "visibility": "private"}),
            _response("Sent", _CHALLENGE_EXAMPLE, 201),
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(ChallengeCreateSerializer, request.data)
        challenge = challenges.create_challenge(
            player_of(request), challenges.ChallengeRequest(**data)
        )
        return _challenge_out(request, challenge, status.HTTP_201_CREATED)


class ChallengeDetailView(APIView):
    @extend_schema(
        operation_id="challenges_read",
        tags=["lobby"],
        summary="A challenge you sit in",
        responses={200: ChallengeSerializer, **_errors(_CHALLENGE_NOT_FOUND)},
        parameters=[_CHALLENGE_ID, RETRY_AFTER],
        examples=[_response("Pending", _CHALLENGE_EXAMPLE)],
    )
    def get(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(
            request, challenges.visible_challenge(player_of(request), challenge_id)
        )


_ANSWER_ERRORS = (_CHALLENGE_NOT_FOUND, _CHALLENGE_CLOSED, _CHALLENGE_EXPIRED, _NOT_CHALLENGED)


class ChallengeAcceptView(APIView):
    @extend_schema(
        operation_id="challenges_accept",
        tags=["lobby"],
        summary="Accept your seat; the last acceptance starts the game",
        request=None,
        responses={200: ChallengeSerializer, **_errors(*_ANSWER_ERRORS)},
        parameters=[_CHALLENGE_ID, RETRY_AFTER],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(request, challenges.accept(player_of(request), challenge_id))


class ChallengeLinkView(APIView):
    @extend_schema(
        operation_id="challenges_link_read",
        tags=["lobby"],
        summary="The challenge behind a private link",
        responses={200: ChallengeSerializer, **_errors(_CHALLENGE_NOT_FOUND)},
        parameters=[_TOKEN, RETRY_AFTER],
    )
    def get(self, request: Request, token: str) -> Response:
        return _challenge_out(request, challenges.by_link(token))


class ChallengeLinkAcceptView(APIView):
    @extend_schema(
        operation_id="challenges_link_accept",
        tags=["lobby"],
        summary="Take an open seat of a challenge through its private link",
        request=None,
        responses={
            200: ChallengeSerializer,
            **_errors(*_ANSWER_ERRORS, error_example("Refused", lobby_errors.ChallengeRefused)),
        },
        parameters=[_TOKEN, RETRY_AFTER],
    )
    def post(self, request: Request, token: str) -> Response:
        challenge = challenges.by_link(token)
        return _challenge_out(
            request, challenges.accept(player_of(request), challenge.pk, token=token)
        )


class ChallengeDeclineView(APIView):
    @extend_schema(
        operation_id="challenges_decline",
        tags=["lobby"],
        summary="Decline a challenge, with a reason code",
        request=DeclineSerializer,
        responses={200: ChallengeSerializer, **_errors(UNKNOWN_FIELD, *_ANSWER_ERRORS)},
        parameters=[_CHALLENGE_ID, RETRY_AFTER],
        examples=[_request("Too fast", {"reason": "too_fast"})],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        data = validated(DeclineSerializer, request.data)
        return _challenge_out(request, challenges.decline(player_of(request), challenge_id, **data))


class ChallengeCancelView(APIView):
    @extend_schema(
        operation_id="challenges_cancel",
        tags=["lobby"],
        summary="Withdraw a challenge you sent",
        request=None,
        responses={200: ChallengeSerializer, **_errors(*_ANSWER_ERRORS)},
        parameters=[_CHALLENGE_ID, RETRY_AFTER],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(request, challenges.cancel(player_of(request), challenge_id))


# --- rematch -------------------------------------------------------------------------------------

_REMATCH_ERRORS = (
    _GAME_NOT_FOUND,
    _NOT_SEATED,
    error_example("Game not over", game_errors.GameNotOver),
    error_example("Rematch closed", lobby_errors.RematchClosed),
    error_example("Aborted game", lobby_errors.NoRematch),
)


class RematchView(APIView):
    @extend_schema(
        operation_id="games_rematch_read",
        tags=["lobby"],
        summary="The rematch of a game, and the game it is the rematch of",
        responses={200: RematchSerializer, **_errors(_GAME_NOT_FOUND)},
        parameters=[_GAME_ID, RETRY_AFTER],
        examples=[_response("Offered", _REMATCH_EXAMPLE)],
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
        responses={200: RematchSerializer, **_errors(*_REMATCH_ERRORS)},
        parameters=[_GAME_ID, RETRY_AFTER],
        examples=[_response("Offered", _REMATCH_EXAMPLE)],
    )
    def post(self, request: Request, game_id: str) -> Response:
        return Response(
            output(RematchSerializer, rematch.want_rematch(player_of(request), game_id))
        )


class RematchDeclineView(APIView):
    @extend_schema(
        operation_id="games_rematch_decline",
        tags=["lobby"],
        summary="Decline the rematch offered",
        request=None,
        responses={
            200: RematchSerializer,
            **_errors(*_REMATCH_ERRORS, error_example("No offer", lobby_errors.NoRematchOffer)),
        },
        parameters=[_GAME_ID, RETRY_AFTER],
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
    "at": _AT,
}


class ChatView(APIView):
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
            **_errors(
                _GAME_NOT_FOUND,
                error_example("Room closed", lobby_errors.RoomClosed),
                invalid_request_example(
                    "Unknown room", "room", "invalid_choice", '"kitchen" is not a valid choice.'
                ),
            ),
        },
        parameters=[_GAME_ID, ChatQuerySerializer, RETRY_AFTER],
        examples=[_response("Lines", _LINE)],  # one line: drf-spectacular makes it a list
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
            **_errors(
                invalid_request_example(
                    "Message too long",
                    "text",
                    "max_length",
                    "Ensure this field has no more than 280 characters.",
                ),
                UNKNOWN_FIELD,
                _GAME_NOT_FOUND,
                _NOT_SEATED,
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
            _GAME_ID,
            RETRY_AFTER,
            location(f"/api/games/{UUID_PATTERN}/chat/[1-9][0-9]*", "the line"),
        ],
        examples=[
            _request("To the table", {"room": "players", "text": "Bona sort!"}),
            _response("Said", _LINE, 201),
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
            **_errors(
                _GAME_NOT_FOUND,
                error_example("No such line", lobby_errors.LineNotFound),
                NOT_AN_ID,
            ),
        },
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "line_id",
                {"type": "integer", "minimum": 1},
                OpenApiParameter.PATH,
                description="The line's id (`id` in its 201, and in the room's list).",
            ),
            RETRY_AFTER,
        ],
        examples=[_response("Line", _LINE)],
    )
    def get(self, request: Request, game_id: str, line_id: int) -> Response:
        return Response(output(ChatLineSerializer, chat.line(player_of(request), game_id, line_id)))


# --- the data export -----------------------------------------------------------------------------


class ExportView(APIView):
    @extend_schema(
        operation_id="players_me_export",
        tags=["players"],
        summary="Export your data (JSON)",
        description=(
            "Your profile, ratings and their history, per-pool statistics, every game as your "
            "seat sees it (with its events), the chat lines you may read, your seeks, challenges, "
            "blocks and webhook subscriptions (without their secrets)."
        ),
        responses={200: DataExportSerializer, **_errors()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        player = player_of(request)
        mine = export.export_for(player)
        return Response(output(DataExportSerializer, mine, context={"viewer": player}))
