"""Authentication: knox tokens (hashed, expiring, one per device)."""

from dataclasses import dataclass
from typing import Any

import structlog
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS, knox_settings
from rest_framework.authentication import get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from players.models import Player
from truc_api import db

# knox stores the token's digest as the primary key: one indexed lookup finds the token and its
# player, where knox's own lookup filters by prefix through the ORM (truc_api/db.py). The
# player's columns that requests read; any other (the password's hash, say) is deferred: Django
# loads it if it is ever read.
_TOKEN = (
    "SELECT p.id, p.username, p.display_name, p.is_active, t.expiry AS token_expiry"
    " FROM knox_authtoken t"
    " JOIN players_player p ON p.id = t.user_id WHERE t.digest = %s AND t.token_key = %s"
)


@dataclass(frozen=True)
class Token:
    digest: str  # knox's primary key
    key: str  # the first characters, which knox keeps in clear and indexes


#: ``Authorization: Bearer <token>`` (RFC 6750, what generated clients send), or knox's own
#: ``Token <token>``, which earlier clients send.
PREFIXES = ("bearer", knox_settings.AUTH_HEADER_PREFIX.lower())


def token_lookup(header: str) -> Token | None:
    """What finds the token of an ``Authorization: Bearer <token>`` header; None for any other
    header (knox's own checks then answer why it is wrong)."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() not in PREFIXES:
        return None
    return _token(parts[1])


def _token(text: str) -> Token | None:
    try:
        return Token(hash_token(text), text[: CONSTANTS.TOKEN_KEY_LENGTH])
    except (UnicodeError, ValueError):
        return None


def _invalid() -> AuthenticationFailed:
    return AuthenticationFailed(_("Invalid token."))  # built when needed: it is translated


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's token authentication in one query, naming the player on every later log line of
    the request: his id, never the token."""

    def authenticate(self, request: Any) -> Any:
        header = get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in PREFIXES:
            return None  # for another scheme, or none: anonymous
        if len(header) != 2:
            raise AuthenticationFailed(_("Invalid token header: send `Bearer <token>`."))
        result = self.authenticate_credentials(header[1])
        if result is not None:
            structlog.contextvars.bind_contextvars(player_id=result[0].pk)
        return result

    def authenticate_credentials(self, token: bytes) -> tuple[Any, AuthToken]:
        try:
            lookup = _token(token.decode())
        except UnicodeDecodeError:
            lookup = None
        found = lookup and db.instances(Player, _TOKEN, [lookup.digest, lookup.key], binary=True)
        if not lookup or not found:
            raise _invalid()
        player = found[0]
        auth_token = AuthToken(
            digest=lookup.digest,
            token_key=lookup.key,
            user=player,
            expiry=db.moment(player.token_expiry),
        )
        if self._cleanup_token(auth_token):
            raise _invalid()
        return self.validate_user(auth_token)  # type: ignore[no-any-return]

    def _cleanup_token(self, auth_token: Any) -> bool:
        """Only the token presented: knox would also load every other token of the player, two
        more queries on every request (bench/README.md). Expired tokens are purged periodically
        (``players.tasks.purge_expired_tokens``)."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            AuthToken.objects.filter(digest=auth_token.digest).delete()
            return True
        return False

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
                " (`Authorization: Token <token>` is accepted too)."
            ),
        }
