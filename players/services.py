"""Writes for accounts: register, log in and out (knox tokens), change the profile.

Tokens are knox's: only a digest is stored, each login is a new token (one per device), and a token
dies after REST_KNOX["TOKEN_TTL"]. Usernames are unique regardless of case, so "Pep" and "pep" can
never be two people at one table; login accepts the username in any case for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from typing import Any

from django.contrib.auth import authenticate, user_logged_in, user_logged_out
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from knox.models import AuthToken

from players.models import Player
from truc_api.problems import ApplicationError


class UsernameTaken(ApplicationError):
    code = "username_taken"
    status = HTTPStatus.CONFLICT
    title = "That username is taken."


class InvalidCredentials(ApplicationError):
    # One answer for an unknown username and a wrong password: never say which part was wrong.
    code = "invalid_credentials"
    status = HTTPStatus.UNAUTHORIZED
    title = "The username or password is wrong."


class WeakPassword(ApplicationError):
    """AUTH_PASSWORD_VALIDATORS said no: a 400 listing each reason under the `password` field."""

    code = "invalid_request"
    status = HTTPStatus.BAD_REQUEST
    title = "The request is not valid."

    def __init__(self, error: DjangoValidationError) -> None:
        errors = [
            {"field": "password", "code": reason.code or "invalid", "message": message}
            for reason in error.error_list
            for message in reason.messages
        ]
        super().__init__("The request has invalid fields.", extra={"errors": errors})


@dataclass(frozen=True)
class Session:
    """A player logged in on one device: the token is shown once, here, and never stored."""

    player: Player
    token: str
    expiry: datetime


def register_player(
    *, username: str, password: str, display_name: str = "", request: Any = None
) -> Session:
    candidate = Player(username=username, display_name=display_name)
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as error:
        raise WeakPassword(error) from None
    if Player.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    try:
        with transaction.atomic():
            player = Player.objects.create_user(
                username=username, password=password, display_name=display_name
            )
            return start_session(player, request=request)
    except IntegrityError:
        # Someone took the same username between the check and the insert.
        raise UsernameTaken() from None


def log_in(*, username: str, password: str, request: Any = None) -> Session:
    stored_username = (
        Player.objects.filter(username__iexact=username).values_list("username", flat=True).first()
    )
    # With no such player this still hashes the password once, so timing tells nothing either.
    player = authenticate(request, username=stored_username or username, password=password)
    if not isinstance(player, Player):
        raise InvalidCredentials()
    return start_session(player, request=request)


def start_session(player: Player, *, request: Any = None) -> Session:
    """A new token for one device; the player's other tokens are untouched."""
    instance, token = AuthToken.objects.create(player)
    user_logged_in.send(sender=Player, request=request, user=player)
    return Session(player=player, token=token, expiry=instance.expiry)


def log_out(token: AuthToken, *, request: Any = None) -> None:
    """Revoke the one token this request came with."""
    player = token.user
    token.delete()
    user_logged_out.send(sender=Player, request=request, user=player)


def log_out_everywhere(player: Player, *, request: Any = None) -> None:
    """Revoke every token of this player, on every device."""
    AuthToken.objects.filter(user=player).delete()
    user_logged_out.send(sender=Player, request=request, user=player)


def update_profile(player: Player, *, display_name: str | None = None) -> Player:
    """Change what is given; None leaves a field as it is."""
    changed = []
    if display_name is not None:
        player.display_name = display_name
        changed.append("display_name")
    if changed:
        player.save(update_fields=changed)
    return player
