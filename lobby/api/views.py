"""The lobby's API for seeks and challenges: thin views that read input, call a service, and
answer with a serializer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lobby import challenges, seeks
from lobby import errors as lobby_errors
from lobby.api.examples import (
    BAD_OPTION,
    CHALLENGE_CLOSED,
    CHALLENGE_EXAMPLE,
    CHALLENGE_EXPIRED,
    CHALLENGE_ID,
    CHALLENGE_NOT_FOUND,
    NOT_CHALLENGED,
    SEEK_EXAMPLE,
    SEEK_ID,
    SEEK_NOT_FOUND,
    TOKEN,
    error_responses,
    request_example,
    response_example,
)
from lobby.api.serializers import (
    ChallengeCreateSerializer,
    ChallengeSerializer,
    DeclineSerializer,
    SeekCreateSerializer,
    SeekSerializer,
)
from lobby.lookups import by_id
from lobby.models import Challenge, Seek
from players.api.requests import player_of
from truc_api.scopes import GAMES_READ, LOBBY_WRITE
from truc_api.serializers import (
    RETRY_AFTER,
    UNKNOWN_FIELD,
    UUID_PATTERN,
    answer,
    error_example,
    location,
    output,
    validated,
)


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
    required_scopes = {"GET": GAMES_READ, "POST": LOBBY_WRITE}

    @extend_schema(
        operation_id="seeks_list",
        tags=["lobby"],
        summary="Your seeks, newest first",
        responses={200: SeekSerializer(many=True), **error_responses()},
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
            **error_responses(
                BAD_OPTION,
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
            request_example(
                "Rated valenciano, one minute a turn",
                {"preset": "valenciano", "players": 2, "turn_seconds": 60, "rated": True},
            ),
            request_example(
                "Pairs, with a partner",
                {"preset": "argentino", "players": 4, "partner_id": 12, "turn_seconds": 3600},
            ),
            request_example(
                "Casual, bots after 30 s",
                {"preset": "valenciano", "rated": False, "bot_after": 30, "bot_level": "strong"},
            ),
            response_example("Matched at once", SEEK_EXAMPLE, 201),
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(SeekCreateSerializer, request.data)
        seek = seeks.create_seek(player_of(request), seeks.SeekRequest(**data))
        return _seek_out(seek, status.HTTP_201_CREATED)


class SeekDetailView(APIView):
    required_scopes = {"GET": GAMES_READ, "DELETE": LOBBY_WRITE}

    @extend_schema(
        operation_id="seeks_read",
        tags=["lobby"],
        summary="One of your seeks",
        responses={200: SeekSerializer, **error_responses(SEEK_NOT_FOUND)},
        parameters=[SEEK_ID, RETRY_AFTER],
        examples=[response_example("Matched", SEEK_EXAMPLE)],
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
        description=(
            "Cancels the seek, which stays on record: reading it answers it with the status"
            " `cancelled` (as `GET /api/seeks` lists it), and its join answers 409 `seek_closed`"
            " to the partner (403 `not_the_partner` to its creator, as before it was cancelled)."
        ),
        responses={
            200: SeekSerializer,
            **error_responses(
                SEEK_NOT_FOUND, error_example("Seek closed", lobby_errors.SeekClosed)
            ),
        },
        parameters=[SEEK_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, seek_id: str) -> Response:
        return _seek_out(seeks.cancel_seek(player_of(request), seek_id))


class SeekJoinView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="seeks_join",
        tags=["lobby"],
        summary="Confirm, as the named partner, that you queue in this seek",
        request=None,
        responses={
            200: SeekSerializer,
            **error_responses(
                SEEK_NOT_FOUND,
                error_example("Not the partner", lobby_errors.NotThePartner),
                error_example("Seek closed", lobby_errors.SeekClosed),
                error_example("Already seeking", lobby_errors.AlreadySeeking),
            ),
        },
        parameters=[SEEK_ID, RETRY_AFTER],
    )
    def post(self, request: Request, seek_id: str) -> Response:
        return _seek_out(seeks.confirm_partner(player_of(request), seek_id))


# --- challenges ----------------------------------------------------------------------------------


def _challenge_out(request: Request, challenge: Challenge, http_status: int = 200) -> Response:
    body = output(ChallengeSerializer, challenge, context={"viewer": player_of(request)})
    return Response(body, status=http_status, headers=_where(http_status, challenge))


class ChallengesView(APIView):
    required_scopes = {"GET": GAMES_READ, "POST": LOBBY_WRITE}

    @extend_schema(
        operation_id="challenges_list",
        tags=["lobby"],
        summary="Your challenges, sent and received, newest first",
        responses={200: ChallengeSerializer(many=True), **error_responses()},
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
            **error_responses(
                BAD_OPTION,
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
            request_example(
                "One against one",
                {"preset": "argentino", "opponents": [9], "rated": False},
            ),
            request_example(
                "Pairs: a partner, one opponent, one open seat",
                {"preset": "valenciano", "players": 4, "partner_id": 12, "opponents": [9]},
            ),
            request_example("A private link", {"preset": "valenciano", "visibility": "private"}),
            response_example("Sent", CHALLENGE_EXAMPLE, 201),
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(ChallengeCreateSerializer, request.data)
        challenge = challenges.create_challenge(
            player_of(request), challenges.ChallengeRequest(**data)
        )
        return _challenge_out(request, challenge, status.HTTP_201_CREATED)


class ChallengeDetailView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="challenges_read",
        tags=["lobby"],
        summary="A challenge you sit in",
        responses={200: ChallengeSerializer, **error_responses(CHALLENGE_NOT_FOUND)},
        parameters=[CHALLENGE_ID, RETRY_AFTER],
        examples=[response_example("Pending", CHALLENGE_EXAMPLE)],
    )
    def get(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(
            request, challenges.visible_challenge(player_of(request), challenge_id)
        )


_ANSWER_ERRORS = (CHALLENGE_NOT_FOUND, CHALLENGE_CLOSED, CHALLENGE_EXPIRED, NOT_CHALLENGED)


class ChallengeAcceptView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="challenges_accept",
        tags=["lobby"],
        summary="Accept your seat; the last acceptance starts the game",
        request=None,
        responses={200: ChallengeSerializer, **error_responses(*_ANSWER_ERRORS)},
        parameters=[CHALLENGE_ID, RETRY_AFTER],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(request, challenges.accept(player_of(request), challenge_id))


class ChallengeLinkView(APIView):
    required_scopes = GAMES_READ

    @extend_schema(
        operation_id="challenges_link_read",
        tags=["lobby"],
        summary="The challenge behind a private link",
        responses={200: ChallengeSerializer, **error_responses(CHALLENGE_NOT_FOUND)},
        parameters=[TOKEN, RETRY_AFTER],
    )
    def get(self, request: Request, token: str) -> Response:
        return _challenge_out(request, challenges.by_link(token))


class ChallengeLinkAcceptView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="challenges_link_accept",
        tags=["lobby"],
        summary="Take an open seat of a challenge through its private link",
        request=None,
        responses={
            200: ChallengeSerializer,
            **error_responses(
                *_ANSWER_ERRORS, error_example("Refused", lobby_errors.ChallengeRefused)
            ),
        },
        parameters=[TOKEN, RETRY_AFTER],
    )
    def post(self, request: Request, token: str) -> Response:
        challenge = challenges.by_link(token)
        return _challenge_out(
            request, challenges.accept(player_of(request), challenge.pk, token=token)
        )


class ChallengeDeclineView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="challenges_decline",
        tags=["lobby"],
        summary="Decline a challenge, with a reason code",
        request=DeclineSerializer,
        responses={200: ChallengeSerializer, **error_responses(UNKNOWN_FIELD, *_ANSWER_ERRORS)},
        parameters=[CHALLENGE_ID, RETRY_AFTER],
        examples=[request_example("Too fast", {"reason": "too_fast"})],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        data = validated(DeclineSerializer, request.data)
        return _challenge_out(request, challenges.decline(player_of(request), challenge_id, **data))


class ChallengeCancelView(APIView):
    required_scopes = LOBBY_WRITE

    @extend_schema(
        operation_id="challenges_cancel",
        tags=["lobby"],
        summary="Withdraw a challenge you sent",
        request=None,
        responses={200: ChallengeSerializer, **error_responses(*_ANSWER_ERRORS)},
        parameters=[CHALLENGE_ID, RETRY_AFTER],
    )
    def post(self, request: Request, challenge_id: str) -> Response:
        return _challenge_out(request, challenges.cancel(player_of(request), challenge_id))
