"""Writes and reads for a player's OAuth apps, the apps he allowed, and his personal tokens.

The apps and tokens are django-oauth-toolkit's models; this module only says who may do what
with them. A client secret and a personal token are answered once, when made: only their digests
are stored (``CLIENT_SECRET_HASHER``, ``COMPLIANT_BCP_RFC9700_TOKEN_STORAGE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from http import HTTPStatus

import structlog
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from oauth2_provider.generators import generate_client_secret
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken, set_token_value

from oauth.models import PersonalToken
from players.models import Player
from players.services import WrongPassword
from truc_api.authentication import new_personal_token
from truc_api.problems import ApplicationError, one_field
from truc_api.scopes import NEVER_DELEGATED

logger = structlog.get_logger(__name__)


class AppNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You have no such app."


class TokenNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You have no such token."


class PasswordRequired(ApplicationError):
    """``account:manage`` is never delegated without the account's password in the request."""

    code = "password_required"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "A token with account:manage needs your password."

    def __init__(self) -> None:
        super().__init__(
            "The request has invalid fields.",
            extra=one_field("password", "required", "Your password, to grant account:manage."),
        )

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return ("required",)


# --- Apps a player registers ---------------------------------------------------------------------


@dataclass(frozen=True)
class RegisteredApp:
    """An app as just made: its secret (a confidential app's) is shown here, once."""

    app: Application
    client_secret: str | None


def apps_of(player: Player) -> QuerySet[Application]:
    apps: QuerySet[Application] = Application.objects.filter(user=player)
    return apps.order_by("-created", "-id")


def app_of(player: Player, app_id: int) -> Application:
    app = apps_of(player).filter(pk=app_id).first()
    if app is None:
        raise AppNotFound()
    return app


def register_app(
    player: Player, *, name: str, redirect_uris: Sequence[str], client_type: str
) -> RegisteredApp:
    """A new app of ``player``'s: the authorization-code flow only, with PKCE (every client),
    redirecting only to the URIs given, compared exactly."""
    secret = generate_client_secret() if client_type == Application.CLIENT_CONFIDENTIAL else ""
    app = Application.objects.create(
        user=player,
        name=name,
        redirect_uris=" ".join(redirect_uris),
        client_type=client_type,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        client_secret=secret,  # hashed as it is saved
        skip_authorization=False,
    )
    logger.info("oauth.app_registered", app_id=app.pk, client_type=client_type)
    return RegisteredApp(app=app, client_secret=secret or None)


def update_app(
    player: Player, app_id: int, *, name: str | None, redirect_uris: Sequence[str] | None
) -> Application:
    app = app_of(player, app_id)
    if name is not None:
        app.name = name
    if redirect_uris is not None:
        app.redirect_uris = " ".join(redirect_uris)
    app.save()
    return app


def delete_app(player: Player, app_id: int) -> None:
    """The app and every grant and token it holds: each of its players' streams through it
    close (their tokens' deletion is announced, streams/receivers.py)."""
    app = app_of(player, app_id)
    with transaction.atomic():
        _revoke(AccessToken.objects.filter(application=app))
        app.delete()


# --- Apps a player allowed -----------------------------------------------------------------------


@dataclass(frozen=True)
class Authorization:
    """An app ``player`` allowed, and what it holds now."""

    app: Application
    scopes: list[str]
    granted_at: datetime


def authorizations_of(player: Player) -> list[Authorization]:
    """The apps holding a live token (or a refresh token) of ``player``'s, newest first."""
    found: dict[int, tuple[Application, set[str], datetime]] = {}
    tokens = AccessToken.objects.filter(user=player, application__isnull=False).select_related(
        "application"
    )
    refreshes = RefreshToken.objects.filter(
        user=player, revoked__isnull=True, access_token__isnull=True
    ).select_related("application")
    for token in [*tokens, *refreshes]:
        scope = token.scope if isinstance(token, AccessToken) else ""
        app, scopes, at = found.get(token.application_id, (token.application, set(), token.created))
        found[token.application_id] = (app, scopes | set(scope.split()), max(at, token.created))
    return sorted(
        (
            Authorization(app=app, scopes=sorted(scopes), granted_at=at)
            for app, scopes, at in found.values()
        ),  # fmt: skip
        key=lambda authorization: authorization.granted_at,
        reverse=True,
    )


def revoke_authorization(player: Player, app_id: int) -> None:
    """Take back everything ``player`` gave the app: its tokens, refresh tokens, pending codes.
    An app he never allowed (or has no more) is a 404, as a block he does not have is."""
    with transaction.atomic():
        tokens = AccessToken.objects.filter(user=player, application_id=app_id)
        refresh = RefreshToken.objects.filter(user=player, application_id=app_id)
        grants = Grant.objects.filter(user=player, application_id=app_id)
        if not (tokens.exists() or refresh.exists() or grants.exists()):
            raise AppNotFound()
        _revoke(tokens)
        refresh.delete()
        grants.delete()


def _revoke(tokens: QuerySet[AccessToken]) -> None:
    # One by one: each deletion sends post_delete, which closes the token's streams.
    for token in tokens:
        token.delete()


# --- Personal tokens -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MadeToken:
    """A personal token as just made: the secret is shown here, once."""

    personal: PersonalToken
    token: str


def personal_tokens_of(player: Player) -> QuerySet[PersonalToken]:
    return PersonalToken.objects.filter(player=player).select_related("access_token")


def make_personal_token(
    player: Player, *, description: str, scopes: Sequence[str], password: str | None = None
) -> MadeToken:
    """A token carrying ``scopes``; one that holds the account itself needs the password too."""
    if NEVER_DELEGATED & set(scopes):
        if password is None:
            raise PasswordRequired()
        if not player.check_password(password):
            raise WrongPassword("password")
    secret = new_personal_token()
    expires = timezone.now() + timedelta(days=settings.PERSONAL_TOKEN_DAYS)
    with transaction.atomic():
        access = AccessToken(user=player, application=None, expires=expires, scope=" ".join(scopes))
        set_token_value(access, secret)  # only its digest is stored
        access.save()
        personal = PersonalToken.objects.create(
            player=player, access_token=access, description=description
        )
    logger.info("oauth.personal_token_made", token_id=personal.pk)
    return MadeToken(personal=personal, token=secret)


def revoke_personal_token(player: Player, token_id: int) -> None:
    personal = personal_tokens_of(player).filter(pk=token_id).first()
    if personal is None:
        raise TokenNotFound()
    personal.access_token.delete()  # the personal row goes with it (CASCADE)
