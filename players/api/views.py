"""Thin views: read the input serializer, call a service, answer with an output serializer."""

from typing import Any, Literal, cast

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import selectors, services
from players.api.docs import BOT_NAME, NO_SUCH_PLAYER, WRONG_PASSWORD
from players.api.requests import player_of
from players.api.serializers import (
    AccountDeleteSerializer,
    BlockCreateSerializer,
    BlockSerializer,
    LeaderboardEntrySerializer,
    LoginSerializer,
    PasswordChangeSerializer,
    PlayerRatingsSerializer,
    RegisterSerializer,
    SessionSerializer,
)
from players.models import Block, Player, Rating, RatingChange, RatingFamily, RatingSize
from truc_api.pagination import MAX_QUERY_INTEGER, Page, query_integer
from truc_api.serializers import (
    NOT_AN_ID,
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    UNKNOWN_FIELD,
    answer,
    error_example,
    invalid_request_example,
    location,
    output,
    problem_example,
    problem_responses,
    validated,
)


class RegisterView(APIView):
    # No authenticator: a stale token in the header must not stop anyone from registering.
    authentication_classes = ()
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="auth_register",
        tags=["auth"],
        summary="Create an account and log in",
        request=RegisterSerializer,
        responses={
            201: SessionSerializer,
            **problem_responses(
                error_example(
                    "Weak password",
                    services.WeakPassword,
                    detail="The request has invalid fields.",
                    errors=[
                        {
                            "field": "password",
                            "code": "password_too_short",
                            "message": "This password is too short. "
                            "It must contain at least 8 characters.",
                        }
                    ],
                ),
                BOT_NAME,
                UNKNOWN_FIELD,
                error_example("Username taken", services.UsernameTaken),
                THROTTLED,
            ),
        },
        parameters=[
            RETRY_AFTER,
            location("/api/players/[1-9][0-9]*", "the new player's public profile"),
        ],
        examples=[
            OpenApiExample(
                "Register",
                value={"username": "pep", "password": "s3cret-Pass!", "display_name": "Pep"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session = services.register_player(**serializer.validated_data, request=request)
        return Response(
            output(SessionSerializer, session),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/players/{session.player.pk}"},
        )


class LoginView(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    # Views that check a password share the "login" rate (settings.py), counted per client address.
    throttle_scope = "login"

    @extend_schema(
        operation_id="auth_login",
        tags=["auth"],
        summary="Log in: a new token for this device",
        request=LoginSerializer,
        responses={
            200: SessionSerializer,
            **problem_responses(
                UNKNOWN_FIELD,
                error_example("Invalid credentials", services.InvalidCredentials),
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
        examples=[
            OpenApiExample(
                "Log in", value={"username": "pep", "password": "s3cret-Pass!"}, request_only=True
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session = services.log_in(**serializer.validated_data, request=request)
        return Response(output(SessionSerializer, session))


class LogoutView(APIView):
    @extend_schema(
        operation_id="auth_logout",
        tags=["auth"],
        summary="Log out: revoke the token of this request",
        request=None,
        responses={204: None, **problem_responses(NOT_AUTHENTICATED, THROTTLED)},
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request) -> Response:
        services.log_out(request.auth, request=request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    @extend_schema(
        operation_id="auth_logout_all",
        tags=["auth"],
        summary="Log out everywhere: revoke every token of this player",
        request=None,
        responses={204: None, **problem_responses(NOT_AUTHENTICATED, THROTTLED)},
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request) -> Response:
        services.log_out_everywhere(player_of(request), request=request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordView(APIView):
    # A password is checked here: the "login" rate applies, as to logging in.
    throttle_scope = "login"

    @extend_schema(
        operation_id="auth_password_change",
        tags=["auth"],
        summary="Change your password: every other token is revoked",
        request=PasswordChangeSerializer,
        responses={
            204: None,
            **problem_responses(
                WRONG_PASSWORD,
                UNKNOWN_FIELD,
                NOT_AUTHENTICATED,
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
        examples=[
            OpenApiExample(
                "Change",
                value={"current_password": "s3cret-Pass!", "new_password": "an0ther-Pass!"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(PasswordChangeSerializer, request.data)
        services.change_password(
            player_of(request),
            current=data["current_password"],
            new=data["new_password"],
            keep=request.auth,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountDeleteView(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="players_me_delete",
        tags=["players"],
        summary="Delete your account",
        description=(
            "Your personal data (username, display name, email) is erased: your finished games "
            "stay, under an anonymous name, so that your opponents' histories read whole. Your "
            "active games are resigned, open ones left; seeks, challenges and rematch offers end; "
            "every token is revoked."
        ),
        request=AccountDeleteSerializer,
        responses={
            204: None,
            **problem_responses(WRONG_PASSWORD, UNKNOWN_FIELD, NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER],
        examples=[OpenApiExample("Confirm", value={"password": "s3cret-Pass!"}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = validated(AccountDeleteSerializer, request.data)
        services.delete_account(player_of(request), password=data["password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class BlocksView(APIView):
    @extend_schema(
        operation_id="players_me_blocks",
        tags=["players"],
        summary="The players you block",
        responses={
            200: BlockSerializer(many=True),
            **problem_responses(NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        blocks = Block.objects.filter(blocker=player_of(request)).select_related("blocked")
        return Response(output(BlockSerializer, blocks, many=True))

    @extend_schema(
        operation_id="players_me_block",
        tags=["players"],
        summary="Block a player: no challenge, no pairing, no chat line from him",
        request=BlockCreateSerializer,
        responses={
            201: BlockSerializer,
            **problem_responses(
                answer("No such player", services.NoSuchPlayer("blocked_id")),
                UNKNOWN_FIELD,
                NOT_AUTHENTICATED,
                THROTTLED,
            ),
        },
        parameters=[
            RETRY_AFTER,
            location(
                "/api/players/me/blocks/[1-9][0-9]*", "the block (by the blocked player's id)"
            ),
        ],
        examples=[OpenApiExample("Block", value={"blocked_id": 9}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = validated(BlockCreateSerializer, request.data)
        block = services.block(player_of(request), data["blocked_id"])
        where = {"Location": f"/api/players/me/blocks/{block.blocked_id}"}
        return Response(
            output(BlockSerializer, block), status=status.HTTP_201_CREATED, headers=where
        )


# Any whole number: no player has the id 0, and unblocking him is a no-op as any other's.
_BLOCKED_ID = OpenApiParameter(
    "player_id", {"type": "integer"}, OpenApiParameter.PATH, description="The blocked player's id."
)


class BlockDetailView(APIView):
    @extend_schema(
        operation_id="players_me_blocks_read",
        tags=["players"],
        summary="Whether you block a player: the block, or 404",
        responses={
            200: BlockSerializer,
            **problem_responses(
                NOT_AUTHENTICATED,
                error_example("Not blocked", services.BlockNotFound),
                NOT_AN_ID,
                THROTTLED,
            ),
        },
        parameters=[_BLOCKED_ID, RETRY_AFTER],
    )
    def get(self, request: Request, player_id: int) -> Response:
        return Response(output(BlockSerializer, services.block_of(player_of(request), player_id)))

    @extend_schema(
        operation_id="players_me_unblock",
        tags=["players"],
        summary="Unblock a player (a no-op if you do not block him)",
        responses={
            204: None,
            **problem_responses(
                NOT_AUTHENTICATED,
                NOT_AN_ID,
                THROTTLED,
            ),
        },
        parameters=[_BLOCKED_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, player_id: int) -> Response:
        services.unblock(player_of(request), player_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- ratings -------------------------------------------------------------------------------------


class RatingsPagination(Page):
    """The lists' pages (truc_api/pagination.py)."""


class RatingHistoryFilter(filters.FilterSet):  # type: ignore[misc]  # django-filter: no stubs
    family = filters.ChoiceFilter(choices=RatingFamily.choices, help_text="Only this family.")
    size = filters.ChoiceFilter(choices=RatingSize.choices, help_text="Only this table size.")

    class Meta:
        model = RatingChange
        fields = ["family", "size"]


_UNKNOWN_POOL = problem_example(
    "Unknown pool",
    404,
    "not_found",
    "No leaderboard for bisca/4v4: see the family and size values.",
)
_UNKNOWN_FAMILY = invalid_request_example(
    "Unknown family",
    "family",
    "invalid_choice",
    "Select a valid choice. bisca is not one of the available choices.",
)
_LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": RatingsPagination.max_limit},
    description=(
        f"Changes per page (default {RatingsPagination.default_limit}, "
        f"at most {RatingsPagination.max_limit})."
    ),
)
_OFFSET = OpenApiParameter(
    "offset",
    {"type": "integer", "minimum": 0, "maximum": MAX_QUERY_INTEGER},
    description="Changes to skip.",
)
_MIN_GAMES = OpenApiParameter(
    "min_games",
    {"type": "integer", "minimum": 0, "maximum": MAX_QUERY_INTEGER},
    description="Only players with at least this many games.",
)


def _choice(
    name: str, values: list[str], description: str, where: Literal["query", "path"]
) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.STR, where, enum=values, description=description)


_FAMILY = "A family of rules; both argentino presets share one pool."
_SIZE = "Table size: 1v1, 2v2 (pairs) or 3v3."
_RATED_AT = "2026-05-01T20:30:00Z"
_PLAYER = {"id": 7, "username": "pep", "display_name": "Pep"}


class PlayerRatingsView(generics.GenericAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """A player's rating in every pool, and the rating changes of their games, newest first."""

    pagination_class = RatingsPagination
    filterset_class = RatingHistoryFilter

    @extend_schema(
        operation_id="players_ratings",
        tags=["ratings"],
        summary="A player's ratings and rating history",
        parameters=[
            _choice(
                "family", RatingFamily.values, f"History in one family only. {_FAMILY}", "query"
            ),
            _choice("size", RatingSize.values, f"History at one table size only. {_SIZE}", "query"),
            _LIMIT,
            _OFFSET,
            RETRY_AFTER,
        ],
        responses={
            200: PlayerRatingsSerializer,
            **problem_responses(
                _UNKNOWN_FAMILY, NOT_AUTHENTICATED, NO_SUCH_PLAYER, NOT_AN_ID, THROTTLED
            ),
        },
        examples=[
            OpenApiExample(
                "After one win",
                response_only=True,
                value={
                    "player": _PLAYER,
                    "ratings": [
                        {
                            "family": "valenciano",
                            "size": "1v1",
                            "value": 1520,
                            "games": 1,
                            "provisional": True,
                            "updated_at": _RATED_AT,
                        },
                        {
                            "family": "valenciano",
                            "size": "2v2",
                            "value": 1500,
                            "games": 0,
                            "provisional": True,
                            "updated_at": None,
                        },
                    ],
                    "history": {
                        "count": 1,
                        "next": None,
                        "previous": None,
                        "results": [
                            {
                                "game": "3f1c2a9e-5b7d-4e2f-9a61-0c8d4b2e7f10",
                                "family": "valenciano",
                                "size": "1v1",
                                "before": 1500,
                                "after": 1520,
                                "delta": 20,
                                "created_at": _RATED_AT,
                            }
                        ],
                    },
                },
            )
        ],
    )
    def get(self, request: Request, player_id: int) -> Response:
        player = get_object_or_404(Player, pk=player_id)
        history = self.filter_queryset(selectors.rating_history(player))
        page = self.paginate_queryset(history)
        paginator = cast(RatingsPagination, self.paginator)
        body = {
            "player": player,
            "ratings": selectors.current_ratings(player),
            "history": {
                "count": paginator.count,
                "next": paginator.get_next_link(),
                "previous": paginator.get_previous_link(),
                "results": page,
            },
        }
        return Response(output(PlayerRatingsSerializer, body))


class LeaderboardView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """One pool's players, best rating first; more games first among equal ratings."""

    serializer_class = LeaderboardEntrySerializer
    pagination_class = RatingsPagination
    query_parameters = ("min_games",)

    @extend_schema(
        operation_id="leaderboards_read",
        tags=["ratings"],
        summary="A leaderboard: one family of rules at one table size",
        parameters=[
            _choice("family", RatingFamily.values, _FAMILY, "path"),
            _choice("size", RatingSize.values, _SIZE, "path"),
            _MIN_GAMES,
            RETRY_AFTER,
        ],
        responses={
            200: LeaderboardEntrySerializer(many=True),
            **problem_responses(
                invalid_request_example(
                    "Bad min_games", "min_games", "invalid", "A whole number from 0 or more."
                ),
                NOT_AUTHENTICATED,
                _UNKNOWN_POOL,
                THROTTLED,
            ),
        },
        examples=[
            OpenApiExample(
                "Top of the board",
                response_only=True,
                # One entry: drf-spectacular wraps it in a page itself.
                value={
                    "rank": 1,
                    "player": _PLAYER,
                    "value": 1712,
                    "games": 48,
                    "provisional": False,
                    "updated_at": _RATED_AT,
                },
            )
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Rating]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no pool
            return Rating.objects.none()
        family, size = self.kwargs["family"], self.kwargs["size"]
        if not selectors.is_pool(family, size):
            raise NotFound(f"No leaderboard for {family}/{size}: see the family and size values.")
        return selectors.leaderboard(family, size)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # As the schema says: a whole number from 0, or a 400 (django-filter read "" as none).
        min_games = query_integer(request, "min_games", 0, 0, MAX_QUERY_INTEGER)
        page = self.paginate_queryset(self.get_queryset().filter(games__gte=min_games)) or []
        first = (cast(RatingsPagination, self.paginator).offset or 0) + 1
        rows = selectors.leaderboard_rows(page, first_rank=first)
        return self.get_paginated_response(output(LeaderboardEntrySerializer, rows, many=True))
