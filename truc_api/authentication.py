"""Authentication: knox tokens (hashed, expiring, one per device)."""

from typing import Any

import structlog
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


class TokenScheme(KnoxTokenScheme):
    """The OpenAPI security scheme: the same as knox's, for this subclass."""

    target_class = TokenAuthentication
