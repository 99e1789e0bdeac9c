"""Thin views: read the input serializer, call a service, answer with an output serializer."""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players import services
from players.api.docs import BOT_NAME, WRONG_PASSWORD
from players.api.requests import player_of
from players.api.serializers import (
    AccountDeleteSerializer,
    BlockCreateSerializer,
    BlockSerializer,
    ClaimSerializer,
    LoginSerializer,
    PasswordChangeSerializer,
    PlayerSerializer,
    RegisterSerializer,
    SessionSerializer,
)
from players.models import Block
from truc_api.bounds import PATH_ID
from truc_api.scopes import ACCOUNT_MANAGE, ANY_TOKEN, PROFILE_READ
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


class GuestView(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    # An account a request: the "login" rate, counted per client address.
    throttle_scope = "login"

    @extend_schema(
        operation_id="auth_guest",
        tags=["auth"],
        summary="Play at once as a guest: a generated name and a token, no password",
        request=None,
        responses={201: SessionSerializer, **problem_responses(THROTTLED)},
        parameters=[
            RETRY_AFTER,
            location("/api/players/[1-9][0-9]*", "the guest's public profile"),
        ],
    )
    def post(self, request: Request) -> Response:
        session = services.start_guest(request=request)
        return Response(
            output(SessionSerializer, session),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/players/{session.player.pk}"},
        )


class ClaimView(APIView):
    required_scopes = ACCOUNT_MANAGE

    @extend_schema(
        operation_id="auth_claim",
        tags=["auth"],
        summary="Turn your guest account into a full one, keeping its games and history",
        request=ClaimSerializer,
        responses={
            200: PlayerSerializer,
            **problem_responses(
                BOT_NAME,
                UNKNOWN_FIELD,
                NOT_AUTHENTICATED,
                error_example("Not a guest", services.NotAGuest),
                error_example("Username taken", services.UsernameTaken),
                THROTTLED,
            ),
        },
        parameters=[RETRY_AFTER],
        examples=[
            OpenApiExample(
                "Claim", value={"username": "pep", "password": "s3cret-Pass!"}, request_only=True
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(ClaimSerializer, request.data)
        player = services.claim_guest(player_of(request), **data)
        return Response(output(PlayerSerializer, player))


class LogoutView(APIView):
    required_scopes = ANY_TOKEN

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
    required_scopes = ACCOUNT_MANAGE

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
    required_scopes = ACCOUNT_MANAGE

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
    required_scopes = ACCOUNT_MANAGE

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
    required_scopes = {"GET": PROFILE_READ, "POST": ACCOUNT_MANAGE}

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


# Any id: no player has the id 0, and unblocking him is a 404 as any other's you do not block.
_BLOCKED_ID = OpenApiParameter(
    "player_id", PATH_ID, OpenApiParameter.PATH, description="The blocked player's id."
)


class BlockDetailView(APIView):
    required_scopes = {"GET": PROFILE_READ, "DELETE": ACCOUNT_MANAGE}

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
        summary="Unblock a player (a 404 if you do not block him)",
        responses={
            204: None,
            **problem_responses(
                NOT_AUTHENTICATED,
                error_example("Not blocked", services.BlockNotFound),
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
