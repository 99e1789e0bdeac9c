"""Thin views: read the input serializer, call a service, answer with an output serializer."""

from typing import cast

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import services
from players.api.serializers import (
    AccountSerializer,
    LoginSerializer,
    PlayerSerializer,
    ProfileChangeSerializer,
    RegisterSerializer,
    SessionSerializer,
)
from players.models import Player
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    UNKNOWN_FIELD,
    error_example,
    invalid_request_example,
    problem_example,
    problem_responses,
)


def _player(request: Request) -> Player:
    # IsAuthenticated (the default permission) has already turned anonymous requests away.
    return cast(Player, request.user)


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
                UNKNOWN_FIELD,
                error_example("Username taken", services.UsernameTaken),
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
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
        return Response(SessionSerializer(session).data, status=status.HTTP_201_CREATED)


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
        return Response(SessionSerializer(session).data)


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
        services.log_out_everywhere(_player(request), request=request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(
        operation_id="players_me",
        tags=["players"],
        summary="Your own account",
        responses={200: AccountSerializer, **problem_responses(NOT_AUTHENTICATED, THROTTLED)},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        return Response(AccountSerializer(_player(request)).data)

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
        player = services.update_profile(_player(request), **serializer.validated_data)
        return Response(AccountSerializer(player).data)


class PlayerDetailView(APIView):
    @extend_schema(
        operation_id="players_retrieve",
        tags=["players"],
        summary="A player's public profile",
        responses={
            200: PlayerSerializer,
            **problem_responses(
                NOT_AUTHENTICATED,
                problem_example("No such player", 404, "not_found", "Not found."),
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request, player_id: int) -> Response:
        return Response(PlayerSerializer(get_object_or_404(Player, pk=player_id)).data)
