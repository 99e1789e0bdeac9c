"""A player's profile: his account (players/) with his record at the tables (games/), so it is
composed here, a layer above players/ (which knows no game). The URLs are players/'s own
(``/api/players/me``, ``/api/players/{id}``), routed by routes/players.py."""

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.selectors import pool_stats
from players import services
from players.api.docs import BOT_NAME, NO_SUCH_PLAYER
from players.api.requests import player_of
from players.api.serializers import AccountSerializer, ProfileChangeSerializer, ProfileSerializer
from players.models import Player
from truc_api.scopes import ACCOUNT_MANAGE, PROFILE_READ
from truc_api.serializers import (
    NOT_AN_ID,
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    UNKNOWN_FIELD,
    invalid_request_example,
    output,
    problem_responses,
)


def _profile(player: Player) -> dict[str, Any]:
    return {
        "id": player.pk,
        "username": player.username,
        "display_name": player.display_name,
        "stats": pool_stats(player),
    }


def _account(player: Player) -> dict[str, Any]:
    return {
        **_profile(player),
        "date_joined": player.date_joined,
        "challenges_from": player.challenges_from,
    }


class MeView(APIView):
    required_scopes = {"GET": PROFILE_READ, "PATCH": ACCOUNT_MANAGE}

    @extend_schema(
        operation_id="players_me",
        tags=["players"],
        summary="Your own account",
        responses={200: AccountSerializer, **problem_responses(NOT_AUTHENTICATED, THROTTLED)},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        return Response(output(AccountSerializer, _account(player_of(request))))

    @extend_schema(
        operation_id="players_me_update",
        tags=["players"],
        summary="Change your profile",
        request=ProfileChangeSerializer,
        responses={
            200: AccountSerializer,
            **problem_responses(
                invalid_request_example(
                    "Display name too long",
                    "display_name",
                    "max_length",
                    "Ensure this field has no more than 40 characters.",
                ),
                BOT_NAME,
                UNKNOWN_FIELD,
                NOT_AUTHENTICATED,
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
        examples=[OpenApiExample("Rename", value={"display_name": "Pep"}, request_only=True)],
    )
    def patch(self, request: Request) -> Response:
        serializer = ProfileChangeSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        player = services.update_profile(player_of(request), **serializer.validated_data)
        return Response(output(AccountSerializer, _account(player)))


class PlayerDetailView(APIView):
    required_scopes = PROFILE_READ

    @extend_schema(
        operation_id="players_read",
        tags=["players"],
        summary="A player's public profile",
        responses={
            200: ProfileSerializer,
            **problem_responses(
                NOT_AUTHENTICATED,
                NO_SUCH_PLAYER,
                NOT_AN_ID,
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request, player_id: int) -> Response:
        player = get_object_or_404(Player, pk=player_id)
        return Response(output(ProfileSerializer, _profile(player)))
