"""Whether a stream's token still holds: checked at connect (authentication), when the player's
tokens are revoked (a ``token:<player>`` notification), and by the hub's token check every
``STREAM_TOKEN_CHECK_SECONDS`` (the probe), which catches what no notification told (a token
that expired, a row changed by hand).

A stream knows its token by a key: a login token's digest (knox's primary key), or ``oauth:``
and a delegated token's checksum (django-oauth-toolkit's lookup column). A delegated token needs
``games:read`` to open a stream (truc_api/scopes.py)."""

from __future__ import annotations

from typing import cast

from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from knox.models import AuthToken
from oauth2_provider.models import AccessToken
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from players.models import Player
from streams import hub
from truc_api import scopes
from truc_api.authentication import DelegatedTokenAuthentication, TokenAuthentication

#: The key of a delegated token: this, then its checksum.
DELEGATED = "oauth:"


def authenticate(request: HttpRequest) -> tuple[Player, str]:
    """The player and his token's key, the same checks as every REST request's (a delegated
    token's scope too): 401 or 403 else."""
    drf_request = Request(request)  # DRF's view of the request
    found = TokenAuthentication().authenticate(drf_request)
    if found is not None:
        player, token = found
        return cast(Player, player), token.digest  # AUTH_USER_MODEL
    found = DelegatedTokenAuthentication().authenticate(drf_request)
    if found is None:
        raise NotAuthenticated()
    player, access = found
    scopes.check(access.scope, scopes.GAMES_READ)
    return cast(Player, player), DELEGATED + access.token_checksum


def valid(keys: list[str]) -> dict[str, bool]:
    """The probe: True for each key that is still a live token (absent otherwise)."""
    now = timezone.now()
    digests = [key for key in keys if not key.startswith(DELEGATED)]
    checksums = [key.removeprefix(DELEGATED) for key in keys if key.startswith(DELEGATED)]
    live: dict[str, bool] = {}
    if digests:
        knox = AuthToken.objects.filter(digest__in=digests).filter(
            Q(expiry__isnull=True) | Q(expiry__gt=now)
        )
        live |= {digest: True for digest in knox.values_list("digest", flat=True)}
    if checksums:
        delegated = AccessToken.objects.filter(token_checksum__in=checksums, expires__gt=now)
        found = delegated.values_list("token_checksum", flat=True)
        live |= {DELEGATED + checksum: True for checksum in found}
    return live


def still_valid(key: str) -> bool:
    return bool(valid([key]))


hub.register_probe("token", valid)
