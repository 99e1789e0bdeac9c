"""Whether a stream's token still holds: checked at connect (authentication), when the player's
tokens are revoked (a ``token:<player>`` notification), and at every hub check (the probe)."""

from __future__ import annotations

from typing import cast

from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from players.models import Player
from streams import hub
from truc_api.authentication import TokenAuthentication


def authenticate(request: HttpRequest) -> tuple[Player, str]:
    """The player and his token's digest, the same check as every REST request's; 401 else."""
    found = TokenAuthentication().authenticate(Request(request))  # DRF's view of the request
    if found is None:
        raise NotAuthenticated()
    player, token = found
    return cast(Player, player), token.digest  # AUTH_USER_MODEL


def valid(digests: list[str]) -> dict[str, bool]:
    """The probe: True for each digest that is still a live token (absent otherwise)."""
    live = AuthToken.objects.filter(digest__in=digests).filter(
        Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    )
    return {digest: True for digest in live.values_list("digest", flat=True)}


def still_valid(digest: str) -> bool:
    return bool(valid([digest]))


hub.register_probe("token", valid)
