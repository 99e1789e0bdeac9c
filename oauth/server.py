"""oauthlib's server as django-oauth-toolkit runs it (``OAUTH2_SERVER_CLASS``), refusing a PKCE
method other than ``S256`` when the authorization is asked for, before the consent page shows.

The toolkit refuses ``plain`` too (``COMPLIANT_BCP_RFC9700_PKCE_METHOD``), but only when the
code is made, after the player allowed: he would be asked, then the app told no. A request with
no method is ``plain`` (RFC 7636 §4.3), so it is refused the same way.
"""

from __future__ import annotations

from typing import Any

from oauthlib.oauth2 import Server as OAuthlibServer
from oauthlib.oauth2.rfc6749 import errors


def s256_only(request: Any) -> dict[str, Any]:
    """An authorization validator (oauthlib's ``post_auth``): S256 or an ``invalid_request``."""
    if request.code_challenge_method != "S256":
        raise errors.InvalidRequestError(
            description='Only the "S256" code_challenge_method is supported.', request=request
        )
    return {}


class Server(OAuthlibServer):  # type: ignore[misc]  # oauthlib: no type hints
    def __init__(self, request_validator: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(request_validator, *args, **kwargs)
        self.auth_grant.custom_validators.post_auth.append(s256_only)
