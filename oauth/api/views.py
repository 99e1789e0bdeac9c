"""A player's OAuth apps, the apps he allowed, and his personal tokens: thin views."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from oauth import services
from oauth.api.serializers import (
    AppChangeSerializer,
    AppCreateSerializer,
    AppSerializer,
    AuthorizationSerializer,
    MadeTokenSerializer,
    PersonalTokenSerializer,
    RegisteredAppSerializer,
    TokenCreateSerializer,
)
from players.api.docs import WRONG_PASSWORD
from players.api.requests import player_of
from truc_api.bounds import PATH_ID
from truc_api.serializers import (
    NOT_AN_ID,
    NOT_AUTHENTICATED,
    RETRY_AFTER,
    THROTTLED,
    UNKNOWN_FIELD,
    answer,
    error_example,
    location,
    output,
    problem_responses,
    validated,
)

#: Managing apps and tokens is holding the account: no app is ever granted it (truc_api/scopes.py).
ACCOUNT = ["account:manage"]

APP_ID = OpenApiParameter("app_id", PATH_ID, OpenApiParameter.PATH, description="The app's id.")
TOKEN_ID = OpenApiParameter(
    "token_id", PATH_ID, OpenApiParameter.PATH, description="The token's id."
)
NO_APP = error_example("No such app", services.AppNotFound)
NO_TOKEN = error_example("No such token", services.TokenNotFound)


class AppsView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="oauth_apps_list",
        tags=["oauth"],
        summary="The OAuth apps you registered",
        responses={
            200: AppSerializer(many=True),
            **problem_responses(NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        return Response(output(AppSerializer, services.apps_of(player_of(request)), many=True))

    @extend_schema(
        operation_id="oauth_apps_create",
        tags=["oauth"],
        summary="Register an OAuth app (its secret, if confidential, is shown once)",
        request=AppCreateSerializer,
        responses={
            201: RegisteredAppSerializer,
            **problem_responses(UNKNOWN_FIELD, NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER, location("/api/oauth/apps/[1-9][0-9]*", "the app")],
        examples=[
            OpenApiExample(
                "A public app",
                value={
                    "name": "Truc coach",
                    "redirect_uris": ["https://coach.example/callback"],
                    "client_type": "public",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(AppCreateSerializer, request.data)
        made = services.register_app(player_of(request), **data)
        return Response(
            output(RegisteredAppSerializer, made),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/oauth/apps/{made.app.pk}"},
        )


class AppDetailView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="oauth_apps_read",
        tags=["oauth"],
        summary="One of your OAuth apps",
        responses={
            200: AppSerializer,
            **problem_responses(NOT_AUTHENTICATED, NO_APP, NOT_AN_ID, THROTTLED),
        },
        parameters=[APP_ID, RETRY_AFTER],
    )
    def get(self, request: Request, app_id: int) -> Response:
        return Response(output(AppSerializer, services.app_of(player_of(request), app_id)))

    @extend_schema(
        operation_id="oauth_apps_update",
        tags=["oauth"],
        summary="Rename an app or change its redirect URIs",
        request=AppChangeSerializer,
        responses={
            200: AppSerializer,
            **problem_responses(UNKNOWN_FIELD, NOT_AUTHENTICATED, NO_APP, NOT_AN_ID, THROTTLED),
        },
        parameters=[APP_ID, RETRY_AFTER],
    )
    def patch(self, request: Request, app_id: int) -> Response:
        data = validated(AppChangeSerializer, request.data)
        app = services.update_app(
            player_of(request),
            app_id,
            name=data.get("name"),
            redirect_uris=data.get("redirect_uris"),
        )
        return Response(output(AppSerializer, app))

    @extend_schema(
        operation_id="oauth_apps_delete",
        tags=["oauth"],
        summary="Delete an app: every token it holds is revoked",
        responses={204: None, **problem_responses(NOT_AUTHENTICATED, NO_APP, NOT_AN_ID, THROTTLED)},
        parameters=[APP_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, app_id: int) -> Response:
        services.delete_app(player_of(request), app_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AuthorizationsView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="oauth_authorizations_list",
        tags=["oauth"],
        summary="The apps you allowed, with the scopes they hold",
        responses={
            200: AuthorizationSerializer(many=True),
            **problem_responses(NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        found = services.authorizations_of(player_of(request))
        return Response(output(AuthorizationSerializer, found, many=True))


class AuthorizationDetailView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="oauth_authorizations_revoke",
        tags=["oauth"],
        summary="Take back what you gave an app: its tokens die, its streams close",
        responses={204: None, **problem_responses(NOT_AUTHENTICATED, NO_APP, NOT_AN_ID, THROTTLED)},
        parameters=[APP_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, app_id: int) -> Response:
        services.revoke_authorization(player_of(request), app_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokensView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="players_me_tokens_list",
        tags=["players"],
        summary="Your personal tokens (never their secrets)",
        responses={
            200: PersonalTokenSerializer(many=True),
            **problem_responses(NOT_AUTHENTICATED, THROTTLED),
        },
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        tokens = services.personal_tokens_of(player_of(request))
        return Response(output(PersonalTokenSerializer, tokens, many=True))

    @extend_schema(
        operation_id="players_me_tokens_create",
        tags=["players"],
        summary="Make a personal token with the scopes you choose (shown once)",
        request=TokenCreateSerializer,
        responses={
            201: MadeTokenSerializer,
            **problem_responses(
                UNKNOWN_FIELD,
                answer("Password required", services.PasswordRequired()),
                WRONG_PASSWORD,
                NOT_AUTHENTICATED,
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER, location("/api/players/me/tokens/[1-9][0-9]*", "the token")],
        examples=[
            OpenApiExample(
                "A token to read games",
                value={"description": "stats script", "scopes": ["games:read", "profile:read"]},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(TokenCreateSerializer, request.data)
        made = services.make_personal_token(player_of(request), **data)
        return Response(
            output(MadeTokenSerializer, made),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/players/me/tokens/{made.personal.pk}"},
        )


class TokenDetailView(APIView):
    required_scopes = ACCOUNT

    @extend_schema(
        operation_id="players_me_tokens_revoke",
        tags=["players"],
        summary="Revoke a personal token: at once, on every server, its streams closed",
        responses={
            204: None,
            **problem_responses(NOT_AUTHENTICATED, NO_TOKEN, NOT_AN_ID, THROTTLED),
        },
        parameters=[TOKEN_ID, RETRY_AFTER],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.revoke_personal_token(player_of(request), token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
