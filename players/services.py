"""Writes for accounts (register, log in and out with knox tokens, change the profile) and ratings.

Tokens are knox's: only a digest is stored, each login is a new token (one per device), and a token
dies after REST_KNOX["TOKEN_TTL"]. Usernames are unique regardless of case, so "Pep" and "pep" can
never be two people at one table; login accepts the username in any case for the same reason.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from typing import Any, Literal, get_args

import structlog
from django.contrib.admin.models import LogEntry
from django.contrib.auth import authenticate, user_logged_in, user_logged_out
from django.contrib.auth.password_validation import validate_password
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from knox.models import AuthToken

from players import ratings
from players.models import Block, Player, Rating, RatingChange
from players.names import NameCode, display_name_refusal, reads_as_bot
from players.signals import account_deleting
from truc_api.problems import ApplicationError, one_field

logger = structlog.get_logger(__name__)

#: A game's id (a UUID, or its text), as the rating changes name it.
GameId = uuid.UUID | str
#: The player ids of side 0 and of side 1, each in seat order.
Sides = tuple[Sequence[int], Sequence[int]]


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
    """AUTH_PASSWORD_VALIDATORS said no (too common, too like the username, only digits): a 422
    listing each reason under the password's field; the schema can say none of these."""

    code = "weak_password"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "That password is too easy to guess."

    def __init__(self, error: DjangoValidationError, field: str = "password") -> None:
        errors = [
            {"field": field, "code": _password_code(reason.code), "message": message}
            for reason in error.error_list
            for message in reason.messages
        ]
        super().__init__("The request has invalid fields.", extra={"errors": errors})

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return (*PASSWORD_CODES, "invalid")


#: The codes of Django's password validators (settings.AUTH_PASSWORD_VALIDATORS).
PASSWORD_CODES = (
    "password_too_similar",
    "password_too_short",
    "password_too_common",
    "password_entirely_numeric",
)


def _password_code(code: str | None) -> str:
    """A validator's code as the schema lists it: a validator added to the settings that this
    module does not know says `invalid` until its code is listed above."""
    return code if code in PASSWORD_CODES else "invalid"


@dataclass(frozen=True)
class Session:
    """A player logged in on one device: the token is shown once, here, and never stored."""

    player: Player
    token: str
    expiry: datetime


#: The codes of a field the players' services refuse (typed: a new one fails mypy until listed);
#: a display name's are players/names.py's.
FieldCode = Literal[NameCode, "wrong_password", "no_such_player"]


class InvalidField(ApplicationError):
    """One field a service finds at fault, a value the schema allows (the serializer could not
    tell): a 422 naming it, in the shape of DRF's own field errors. A 400 is for what the schema
    refuses (games/contract.py)."""

    code = "fields_refused"
    status = HTTPStatus.UNPROCESSABLE_ENTITY
    title = "The request's fields are each valid but cannot be carried out."

    DETAIL = "The request has invalid fields."

    def __init__(self, field: str, code: FieldCode, message: str) -> None:
        super().__init__(self.DETAIL, extra=one_field(field, code, message))

    @classmethod
    def field_codes(cls) -> tuple[str, ...]:
        return get_args(FieldCode)


class WrongPassword(InvalidField):
    """The password the request confirms itself with is not the account's: a 400 on that field
    (a 401 would tell the client its token is bad, and it is not)."""

    def __init__(self, field: str) -> None:
        super().__init__(field, "wrong_password", "This is not your current password.")


BOT_PREFIX = "bot-"
#: The name a deleted account keeps, so its finished games still read whole.
DELETED_PREFIX = "deleted-"
#: A guest's generated name, until he claims the account (``claim_guest``).
GUEST_PREFIX = "guest-"


def checked_display_name(name: str) -> str:
    """``name``, or a 422 on ``display_name`` when it deceives (players/names.py): a rule of
    characters the schema's pattern could not state, so a value the schema allows."""
    refused = display_name_refusal(name)
    if refused is not None:
        raise InvalidField("display_name", *refused)
    return name


def register_player(
    *, username: str, password: str, display_name: str = "", request: Any = None
) -> Session:
    candidate = Player(username=username, display_name=checked_display_name(display_name))
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as error:
        raise WeakPassword(error) from None
    # "bot-" names are the server's own bot players (games/bot_players.py), and a username is
    # shown where there is no display name: none may read as a bot's (players/names.py).
    if (
        reads_as_bot(username)
        or username.lower().startswith((BOT_PREFIX, DELETED_PREFIX, GUEST_PREFIX))
        or Player.objects.filter(username__iexact=username).exists()
    ):
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


def update_profile(
    player: Player, *, display_name: str | None = None, challenges_from: str | None = None
) -> Player:
    """Change what is given; None leaves a field as it is."""
    changed = []
    if display_name is not None:
        player.display_name = checked_display_name(display_name)
        changed.append("display_name")
    if challenges_from is not None:
        player.challenges_from = challenges_from
        changed.append("challenges_from")
    if changed:
        player.save(update_fields=changed)
    return player


def change_password(player: Player, *, current: str, new: str, keep: Any = None) -> Player:
    """A new password; every login token but ``keep`` (the request's own) is revoked. Apps'
    and personal tokens stay: each was given on purpose, and is revoked on its own."""
    if not player.check_password(current):
        raise WrongPassword("current_password")
    try:
        validate_password(new, user=player)
    except DjangoValidationError as error:
        raise WeakPassword(error, "new_password") from None
    with transaction.atomic():
        player.set_password(new)
        player.save(update_fields=["password"])
        tokens = AuthToken.objects.filter(user=player)
        if isinstance(keep, AuthToken):  # a login token; a delegated one is not among these
            tokens = tokens.exclude(digest=keep.digest)
        tokens.delete()
    logger.info("account.password_changed", player_id=player.pk)
    return player


def delete_account(player: Player, *, password: str) -> None:
    """Erase the player's personal data and end what he takes part in.

    The row stays, under a name that says nothing (``deleted-<random>``), so that finished games
    and his opponents' histories read whole; what he takes part in (games, seeks, challenges)
    ends through ``signals.account_deleting``, whose receivers are the apps that hold it (games/
    resigns his active games); every token dies, so the account can never be used again."""
    if not player.check_password(password):
        raise WrongPassword("password")
    erase_account(player)


def erase_account(player: Player) -> None:
    """``delete_account``'s work, once the player is known to ask for it (or an idle guest's
    removal, ``remove_idle_guests``)."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        account_deleting.send(sender=Player, player=player)
        player.username = f"{DELETED_PREFIX}{secrets.token_hex(8)}"
        player.display_name = player.email = player.first_name = player.last_name = ""
        player.set_unusable_password()
        player.is_active = player.is_staff = player.is_superuser = player.is_guest = False
        player.last_login = None
        player.deleted_at = timezone.now()
        player.challenges_from = Player.ChallengesFrom.EVERYONE
        player.save()
        AuthToken.objects.filter(user=player).delete()
        # The admin's history names objects by their str(): the old name would outlive the account.
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Player), object_id=str(player.pk)
        ).update(object_repr=player.username)
    logger.info("account.deleted", player_id=player.pk)


# --- Guests --------------------------------------------------------------------------------------


def start_guest(*, request: Any = None) -> Session:
    """A player with a generated name and no password, logged in at once: he plays casual
    games until he claims the account (``claim_guest``) or is removed as idle."""
    for _ in range(5):  # 2^32 names: a clash is rare, and each try is one insert
        try:
            with transaction.atomic():
                player = Player(username=f"{GUEST_PREFIX}{secrets.token_hex(4)}", is_guest=True)
                player.set_unusable_password()
                player.save()
                break
        except IntegrityError:
            continue
    else:
        raise UsernameTaken()
    logger.info("account.guest_started", player_id=player.pk)
    return start_session(player, request=request)


class NotAGuest(ApplicationError):
    code = "not_a_guest"
    status = HTTPStatus.CONFLICT
    title = "This account is not a guest's: it has a name and a password already."


def claim_guest(player: Player, *, username: str, password: str, display_name: str = "") -> Player:
    """The guest becomes a full account, the same row: his games, history and ratings stay."""
    if not player.is_guest:
        raise NotAGuest()
    player.username = username
    player.display_name = checked_display_name(display_name)
    try:
        validate_password(password, user=player)
    except DjangoValidationError as error:
        raise WeakPassword(error) from None
    if (
        reads_as_bot(username)
        or username.lower().startswith((BOT_PREFIX, DELETED_PREFIX, GUEST_PREFIX))
        or Player.objects.filter(username__iexact=username).exclude(pk=player.pk).exists()
    ):
        raise UsernameTaken()
    player.set_password(password)
    player.is_guest = False
    try:
        with transaction.atomic():
            player.save(update_fields=["username", "display_name", "password", "is_guest"])
    except IntegrityError:
        raise UsernameTaken() from None
    logger.info("account.guest_claimed", player_id=player.pk)
    return player


def block(player: Player, blocked_id: int) -> Block:
    """``player`` blocks another: idempotent; blocking oneself or nobody is a 400."""
    other = Player.objects.filter(pk=blocked_id, is_active=True).exclude(pk=player.pk).first()
    if other is None:
        raise NoSuchPlayer("blocked_id")
    found, _ = Block.objects.get_or_create(blocker=player, blocked=other)
    return found


class BlockNotFound(ApplicationError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    title = "You do not block this player."


def block_of(player: Player, blocked_id: int) -> Block:
    """``player``'s block of another, or a 404."""
    found = Block.objects.filter(blocker=player, blocked_id=blocked_id).select_related("blocked")
    block = found.first()
    if block is None:
        raise BlockNotFound()
    return block


def unblock(player: Player, blocked_id: int) -> None:
    """Remove the block; a 404 when there is none, as reading it answers (a DELETE that found
    nothing to delete says so, and a second one of the same block too)."""
    deleted, _ = Block.objects.filter(blocker=player, blocked_id=blocked_id).delete()
    if not deleted:
        raise BlockNotFound()


class NoSuchPlayer(InvalidField):
    def __init__(self, field: str) -> None:
        super().__init__(field, "no_such_player", "No such player (or yourself).")


# --- Ratings -------------------------------------------------------------------------------------


def rate_match(
    game_id: GameId, pool: tuple[str, str], sides: Sides, winner_side: int
) -> list[RatingChange]:
    """Apply one game's result to its players' ratings, once; the changes written.

    ``sides`` are the player ids of side 0 and side 1, in seat order; ``pool`` the game's
    (family, size). A no-op (an empty list) when the game was rated before. The caller holds the
    game's row lock (``games.rated_results.rate_game``), so callers take turns and each later one
    finds the changes already written; the unique constraint on (game, player) is the backstop
    should a writer ever skip that lock.
    """
    if _rated_before(game_id):
        return []
    family, size = pool
    ratings_of = _lock_ratings(sorted(player for side in sides for player in side), family, size)
    rated = tuple([ratings_of[player] for player in side] for side in sides)
    deltas = ratings.rate_sides((_standings(rated[0]), _standings(rated[1])), winner_side)
    now = timezone.now()
    changes = [
        RatingChange(
            game_id=game_id,
            player_id=rating.player_id,
            family=family,
            size=size,
            before=rating.value,
            after=rating.value + delta,
            delta=delta,
            created_at=now,
        )
        for side, side_deltas in zip(rated, deltas, strict=True)
        for rating, delta in zip(side, side_deltas, strict=True)
    ]
    try:
        with transaction.atomic():  # a savepoint: the duplicate's error must not doom the rest
            RatingChange.objects.bulk_create(changes)
    except IntegrityError:
        # Only a duplicate is expected here: the changes someone else wrote are visible now.
        if not _rated_before(game_id):
            raise
        logger.info("rating_already_written", game_id=str(game_id))
        return []
    for change in changes:
        rating = ratings_of[change.player_id]
        rating.value = change.after
        rating.games += 1
        rating.updated_at = now
    Rating.objects.bulk_update(ratings_of.values(), ["value", "games", "updated_at"])
    return changes


def _rated_before(game_id: GameId) -> bool:
    return RatingChange.objects.filter(game_id=game_id).exists()


def _standings(side: list[Rating]) -> tuple[ratings.Standing, ...]:
    return tuple(ratings.Standing(rating.value, rating.games) for rating in side)


def _lock_ratings(player_ids: list[int], family: str, size: str) -> dict[int, Rating]:
    """The players' ratings in one pool, created at the start rating if new, locked by player id.

    One INSERT .. ON CONFLICT DO NOTHING does get_or_create for every player; the rows are then
    locked in player-id order, so two games that share players lock them in the same order and
    can never deadlock.
    """
    Rating.objects.bulk_create(
        [Rating(player_id=player, family=family, size=size) for player in player_ids],
        ignore_conflicts=True,
    )
    locked = (
        Rating.objects.select_for_update()
        .filter(player_id__in=player_ids, family=family, size=size)
        .order_by("player_id")
    )
    return {rating.player_id: rating for rating in locked}
