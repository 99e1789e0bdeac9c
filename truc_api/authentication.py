"""Authentication: login tokens (knox: hashed, expiring, one per device, full power), and
delegated tokens (an OAuth app's or a personal one: django-oauth-toolkit's, with scopes).

A delegated token starts with ``DELEGATED_PREFIX`` and a login token never does (knox's are hex),
so each request asks one table: knox's class lets a prefixed token pass to
``DelegatedTokenAuthentication``, which takes only those.

knox finds a token by its first characters and compares digests in Python; the digest is its
primary key, so the subclass asks for both in one indexed lookup instead, with the player
(``find_token``). The rest is knox's: expiry (with its ``token_expired`` signal),
``AUTO_REFRESH``, the inactive player's refusal.
"""

from __future__ import annotations

import hashlib
import secrets
from functools import cache
from typing import Any

import structlog
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.db.models import Field
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.contrib.django_oauth_toolkit import DjangoOAuthToolkitScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS, knox_settings
from knox.signals import token_expired
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from oauth2_provider.models import AccessToken
from rest_framework.authentication import get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from truc_api.rows import instances

#: How every delegated token starts; then ``at_`` (an app's access token), ``rt_`` (its refresh
#: token) or ``pt_`` (a personal token). Secret scanners can match it, too.
DELEGATED_PREFIX = "truc_"


def new_access_token(request: Any = None) -> str:
    """django-oauth-toolkit's ``ACCESS_TOKEN_GENERATOR``: 256 random bits, prefixed."""
    return f"{DELEGATED_PREFIX}at_{secrets.token_urlsafe(32)}"


def new_refresh_token(request: Any = None) -> str:
    return f"{DELEGATED_PREFIX}rt_{secrets.token_urlsafe(32)}"


def new_personal_token() -> str:
    return f"{DELEGATED_PREFIX}pt_{secrets.token_urlsafe(32)}"


def is_delegated(token: bytes | str) -> bool:
    prefix = DELEGATED_PREFIX.encode() if isinstance(token, bytes) else DELEGATED_PREFIX
    return token.startswith(prefix)  # type: ignore[arg-type]  # bytes with bytes, str with str


#: ``Authorization: Bearer <token>`` (RFC 6750, what generated clients send), or knox's own
#: ``Token <token>``, which earlier clients send.
PREFIXES = ("bearer", knox_settings.AUTH_HEADER_PREFIX.lower())


def _invalid() -> AuthenticationFailed:
    return AuthenticationFailed(_("Invalid token."))  # built when needed: it is translated


def find_token(digest: str, key: str) -> AuthToken | None:
    """The token of ``digest`` (knox's primary key) and ``key``, with its player, or None.

    Every request asks it once. On PostgreSQL its statement is written out and its row made into
    the two instances (``truc_api.rows``): building knox's query through the ORM cost more than
    the rest of a poll answered 304. Elsewhere (SQLite) the ORM's query."""
    if connection.vendor != "postgresql":
        try:
            return AuthToken.objects.select_related("user").get(digest=digest, token_key=key)
        except AuthToken.DoesNotExist:
            return None
    statement, token_fields, player_fields = _token_statement()
    with connection.cursor() as cursor:
        cursor.execute(statement, [digest, key])
        row = cursor.fetchone()
    if row is None:
        return None
    width = len(player_fields)
    [token] = instances(AuthToken, token_fields, [row[width:]], cursor.db)
    [token.user] = instances(get_user_model(), player_fields, [row[:width]], cursor.db)
    return token


@cache
def _token_statement() -> tuple[str, list[Field[Any, Any]], list[Field[Any, Any]]]:
    """The token's lookup, knox's ``select_related("user").get(...)`` written out: the player's
    columns, then the token's. Made once the apps are loaded (the player model is a setting)."""
    player, token = get_user_model()._meta, AuthToken._meta
    player_fields, token_fields = list(player.concrete_fields), list(token.concrete_fields)
    statement = (
        "SELECT {}, {} FROM {} t JOIN {} p ON p.{} = t.{} WHERE t.{} = %s AND t.{} = %s".format(
            ", ".join(f"p.{field.column}" for field in player_fields),
            ", ".join(f"t.{field.column}" for field in token_fields),
            token.db_table,
            player.db_table,
            player.pk.column,
            token.get_field("user").column,
            token.get_field("digest").column,
            token.get_field("token_key").column,
        )
    )
    return statement, token_fields, player_fields


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]  # knox: no type hints
    """knox's token authentication in one query, naming the player on every later log line of
    the request: his id, never the token."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, AuthToken] | None:
        header = get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in PREFIXES:
            return None  # another scheme, or none: anonymous
        if len(header) != 2:
            raise AuthenticationFailed(_("Invalid token header: send `Bearer <token>`."))
        if is_delegated(header[1]):
            return None  # DelegatedTokenAuthentication's
        result: tuple[AbstractBaseUser, AuthToken] | None = self.authenticate_credentials(header[1])
        if result is not None:
            structlog.contextvars.bind_contextvars(player_id=result[0].pk)
        return result

    def authenticate_credentials(self, token: bytes) -> tuple[AbstractBaseUser, AuthToken]:
        try:
            text = token.decode()
            digest = hash_token(text)
        except (UnicodeError, ValueError, TypeError):
            raise _invalid() from None
        auth_token = find_token(digest, text[: CONSTANTS.TOKEN_KEY_LENGTH])
        if auth_token is None or self._cleanup_token(auth_token):
            raise _invalid()
        if knox_settings.AUTO_REFRESH and auth_token.expiry:
            self.renew_token(auth_token)
        return self.validate_user(auth_token)  # type: ignore[no-any-return]  # knox: untyped

    def _cleanup_token(self, auth_token: AuthToken) -> bool:
        """Only the token presented, with knox's signal: knox would also load every other token
        of the player on every request. Expired ones are purged periodically
        (``players.tasks.purge_expired_tokens``)."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=type(self), username=username, source="auth_token")
            return True
        return False

    def authenticate_header(self, request: Any) -> str:
        return "Bearer"


class DelegatedTokenAuthentication(OAuth2Authentication):  # type: ignore[misc]  # no type hints
    """django-oauth-toolkit's bearer-token authentication, for the delegated tokens only: an
    OAuth app's access token, or a personal token, found by its checksum as the toolkit stores
    it (``COMPLIANT_BCP_RFC9700_TOKEN_STORAGE``) and held to the toolkit's ``is_valid``. The
    token is read from the header as a login token is (``Bearer`` or ``Token``), which oauthlib
    would not do. Its scopes are checked by the view's permission (truc_api/scopes.py). A
    prefixed token that is unknown, expired or revoked, or whose player is inactive, is a 401,
    as a bad login token is."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, AccessToken] | None:
        header = get_authorization_header(request).split()
        if len(header) != 2 or header[0].decode(errors="replace").lower() not in PREFIXES:
            return None
        if not is_delegated(header[1]):
            return None
        try:
            checksum = hashlib.sha256(header[1]).hexdigest()
        except (UnicodeError, ValueError, TypeError):
            raise _invalid() from None
        found = AccessToken.objects.select_related("user").filter(token_checksum=checksum)
        token = found.first()
        if token is None or not token.is_valid() or not token.user.is_active:
            raise _invalid()
        structlog.contextvars.bind_contextvars(player_id=token.user.pk)
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        return "Bearer"


class TokenScheme(OpenApiAuthenticationExtension):
    """The OpenAPI security scheme: HTTP bearer, which generators know."""

    target_class = TokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "`Authorization: Bearer <token>`, the token from `auth/register` or `auth/login`"
                " (`Authorization: Token <token>` is accepted too): a first-party token with"
                " every scope. A personal token (`players/me/tokens`) is sent the same way and"
                " holds the scopes chosen for it, as an OAuth app's token does (`oauth2`)."
            ),
        }


class DelegatedTokenScheme(DjangoOAuthToolkitScheme):
    """The `oauth2` scheme: drf-spectacular's for django-oauth-toolkit (the authorization-code
    flow, its URLs and every scope; each operation's scopes from ``ScopeRequired.get_scopes``),
    for this subclass, with a word on personal tokens."""

    target_class = "truc_api.authentication.DelegatedTokenAuthentication"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        definition: dict[str, Any] = super().get_security_definition(  # type: ignore[no-untyped-call]
            auto_schema
        )
        definition["description"] = (
            "An app's token from the authorization-code flow with PKCE (`S256`; discovery at"
            " `/.well-known/oauth-authorization-server`), or a personal token"
            " (`players/me/tokens`): `Authorization: Bearer <token>`. A token without the"
            " operation's scope is answered 403 `missing_scope`."
        )
        return definition
