"""The player behind a request, as the Player model."""

from __future__ import annotations

from typing import cast

from rest_framework.request import Request

from players.models import Player


def player_of(request: Request) -> Player:
    """``request.user`` of a view that requires authentication (``IsAuthenticated``, the default
    permission, has turned anonymous requests away before the view runs): a Player."""
    return cast(Player, request.user)
