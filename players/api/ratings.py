"""A player's ratings and the leaderboards: the pools' tables and each rating's history."""

from __future__ import annotations

from typing import Any, Literal, cast

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from players import selectors
from players.api.docs import NO_SUCH_PLAYER
from players.api.serializers import (
    LeaderboardEntrySerializer,
    PlayerRatingsSerializer,
)
from players.models import Player, Rating, RatingChange, RatingFamily, RatingSize
from truc_api.pagination import MAX_QUERY_INTEGER, Page, query_integer
from truc_api.scopes import PROFILE_READ
from truc_api.serializers import (
    NOT_AN_ID,
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    invalid_request_example,
    output,
    problem_example,
    problem_responses,
)


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

    required_scopes = PROFILE_READ

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

    required_scopes = PROFILE_READ

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
