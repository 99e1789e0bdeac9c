"""Authentication: knox tokens (hashed, expiring, one per device)."""

from typing import Any

import structlog
from django.utils import timezone
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication as KnoxTokenAuthentication


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's token authentication that also names the player on every later log line of the
    request: his id, never the token."""

    def authenticate(self, request: Any) -> Any:
        result = super().authenticate(request)
        if result is not None:
            structlog.contextvars.bind_contextvars(player_id=result[0].pk)
        return result

    def _cleanup_token(self, auth_token: Any) -> bool:
        """Only the token presented: knox would also load every other token of the player, two
        more queries on every request (bench/README.md). Expired tokens are purged periodically
        (``players.tasks.purge_expired_tokens``)."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            auth_token.delete()
            return True
        return False


class TokenScheme(KnoxTokenScheme):
    """The OpenAPI security scheme: the same as knox's, for this subclass."""

    target_class = TokenAuthentication
