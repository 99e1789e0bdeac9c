"""Challenges: a game proposed to named players or to whoever holds its private link.

The challenger sits at seat 0 (his partner at seat 2, at a table of 4: RULES.md §1); each other
seat names a player or is left open for the link. When every seat is taken and accepted the game
is created and started in the transaction that closes the challenge. A player may refuse
challenges from strangers (anyone he never sat at a table with) and blocks any challenge from a
player he blocks; the challenger is told only that the challenge is refused, never why.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import engine
from games.errors import rules_error
from games.selectors import have_shared_a_table
from lobby import notices, tables
from lobby.errors import (
    ChallengeClosed,
    ChallengeExpired,
    ChallengeNotFound,
    ChallengeRefused,
    NotChallenged,
    PlayerBlocked,
    TableRefused,
)
from lobby.lookups import by_id
from lobby.models import Challenge, ChallengeSeat
from notifications.models import Kind
from players import selectors as players
from players.models import Player

logger = structlog.get_logger(__name__)


@dataclass(frozen=True)
class ChallengeRequest:
    preset: str
    players: int
    turn_seconds: int
    rated: bool
    visibility: str
    options: dict[str, Any] = field(default_factory=dict)
    opponents: Sequence[int] = ()
    partner_id: int | None = None
    expires_in: int | None = None


def create_challenge(challenger: Player, request: ChallengeRequest) -> Challenge:
    try:
        engine.resolve_rules(request.preset, {**request.options, "players": request.players})
    except engine.InvalidRules as error:
        raise rules_error(error) from None
    named = _named_seats(challenger, request)
    for player in named.values():
        if player is not None and player.pk != challenger.pk:
            check_may_challenge(challenger, player)
    now = timezone.now()
    with transaction.atomic():
        challenge = Challenge.objects.create(
            challenger=challenger,
            preset=request.preset,
            options=request.options,
            players=request.players,
            turn_seconds=request.turn_seconds,
            rated=request.rated,
            visibility=request.visibility,
            link_token=secrets.token_urlsafe(24) if None in named.values() else None,
            created_at=now,
            expires_at=now
            + timedelta(seconds=request.expires_in or settings.LOBBY_CHALLENGE_SECONDS),
        )
        ChallengeSeat.objects.bulk_create(
            ChallengeSeat(
                challenge=challenge,
                number=number,
                player=player,
                accepted=number == 0,
            )
            for number, player in sorted(named.items())
        )
        invited = [player.pk for number, player in named.items() if number and player is not None]
        notices.tell(
            invited, Kind.CHALLENGE_RECEIVED, challenge_id=challenge.pk, by=challenge.challenger_id
        )
    logger.info("lobby.challenge_created", challenge_id=str(challenge.pk))
    return challenge


def _named_seats(challenger: Player, request: ChallengeRequest) -> dict[int, Player | None]:
    """Seat number -> player (None: open). Opponents take the odd seats, the partner seat 2."""
    opponents = list(request.opponents)
    if len(opponents) > request.players // 2:
        raise TableRefused(
            "opponents", "too_many", f"A table of {request.players} has {request.players // 2}."
        )
    if request.partner_id is not None and request.players != 4:
        raise TableRefused("partner_id", "no_partner_at_2", "A partner needs a table of 4.")
    ids = [*opponents, *([request.partner_id] if request.partner_id is not None else [])]
    if len(set(ids)) != len(ids) or challenger.pk in ids:
        raise TableRefused("opponents", "repeated", "Each player takes one seat.")
    found = {p.pk: p for p in get_user_model().objects.filter(pk__in=ids, is_active=True)}
    if len(found) != len(ids):
        field_name = "opponents" if set(opponents) - set(found) else "partner_id"
        raise TableRefused(field_name, "no_such_player", "No such player.")
    seats: dict[int, Player | None] = dict.fromkeys(range(request.players))
    seats[0] = challenger
    for number, player_id in zip(range(1, request.players, 2), opponents, strict=False):
        seats[number] = found[player_id]
    if request.partner_id is not None:
        seats[2] = found[request.partner_id]
    return seats


def check_may_challenge(challenger: Player, player: Player) -> None:
    """``player`` takes challenges from ``challenger``: no block either way, and known to him if
    he takes none from strangers."""
    blocks = players.blocks_among([challenger.pk, player.pk])
    if (challenger.pk, player.pk) in blocks:
        raise PlayerBlocked()
    if (player.pk, challenger.pk) in blocks:
        raise ChallengeRefused()
    if player.challenges_from == Player.ChallengesFrom.KNOWN and not have_shared_a_table(
        player.pk, challenger.pk
    ):
        raise ChallengeRefused()


def visible_challenge(
    player: Player, challenge_id: uuid.UUID | str, token: str | None = None
) -> Challenge:
    """A challenge its seated players see, and anyone with its link; to others it is not there."""
    challenge = by_id(Challenge.objects.all(), challenge_id)
    if challenge is None or not (
        _seated(challenge, player) or (token is not None and token == challenge.link_token)
    ):
        raise ChallengeNotFound()
    return challenge


def by_link(token: str) -> Challenge:
    challenge = Challenge.objects.filter(link_token=token).first() if token else None
    if challenge is None:
        raise ChallengeNotFound()
    return challenge


def _seated(challenge: Challenge, player: Player) -> bool:
    return ChallengeSeat.objects.filter(challenge=challenge, player=player).exists()


def _locked(player: Player, challenge_id: uuid.UUID | str, token: str | None = None) -> Challenge:
    visible_challenge(player, challenge_id, token)
    challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
    if challenge.status != Challenge.Status.PENDING:
        raise ChallengeClosed(extra={"challenge_status": challenge.status})
    if challenge.expires_at <= timezone.now():
        raise ChallengeExpired()
    return challenge


def accept(player: Player, challenge_id: uuid.UUID | str, *, token: str | None = None) -> Challenge:
    """Accept a named seat, or take an open one with the link; the last acceptance starts it."""
    with transaction.atomic():
        challenge = _locked(player, challenge_id, token)
        seats = list(ChallengeSeat.objects.select_for_update().filter(challenge=challenge))
        mine = next((seat for seat in seats if seat.player_id == player.pk), None)
        if mine is None:
            mine = _take_open_seat(challenge, seats, player)
        if mine.number == 0:
            raise NotChallenged()  # the challenger accepted by challenging
        mine.accepted = True
        mine.save(update_fields=["player", "accepted"])
        if all(seat.accepted and seat.player_id for seat in seats):
            _start(challenge, seats)
    return challenge


def _take_open_seat(
    challenge: Challenge, seats: list[ChallengeSeat], player: Player
) -> ChallengeSeat:
    free = [seat for seat in seats if seat.player_id is None]
    if not free:
        raise ChallengeClosed("Every seat of this challenge is taken.")
    seated = [seat.player for seat in seats if seat.player is not None]
    for other in seated:  # a block either way keeps the two from one table
        if players.blocks_among([other.pk, player.pk]):
            raise ChallengeRefused()
    # The odd seats first: the link's usual use is "anyone, play me".
    seat = min(free, key=lambda seat: (seat.number % 2 == 0, seat.number))
    seat.player = player
    return seat


def _start(challenge: Challenge, seats: list[ChallengeSeat]) -> None:
    by_number = {seat.number: seat.player for seat in seats}
    game = tables.start_table(
        [by_number[number] for number in range(challenge.players)],
        preset=challenge.preset,
        options=challenge.options,
        turn_seconds=challenge.turn_seconds,
        rated=challenge.rated,
        visibility=challenge.visibility,
    )
    challenge.status = Challenge.Status.ACCEPTED
    challenge.game = game
    challenge.ended_at = timezone.now()
    challenge.save(update_fields=["status", "game", "ended_at"])
    notices.tell(
        [seat.player_id for seat in seats if seat.player_id is not None],  # every seat: all taken
        Kind.CHALLENGE_ACCEPTED,
        game_id=game.pk,
        challenge_id=challenge.pk,
    )


def decline(player: Player, challenge_id: uuid.UUID | str, reason: str) -> Challenge:
    with transaction.atomic():
        challenge = _locked(player, challenge_id)
        if challenge.challenger_id == player.pk:
            raise NotChallenged()
        challenge.status = Challenge.Status.DECLINED
        challenge.decline_reason = reason
        challenge.declined_by = player
        challenge.ended_at = timezone.now()
        challenge.save(update_fields=["status", "decline_reason", "declined_by", "ended_at"])
        notices.tell(
            _seated_ids(challenge, but=player.pk),
            Kind.CHALLENGE_DECLINED,
            challenge_id=challenge.pk,
            reason=reason,
        )
    return challenge


def cancel(player: Player, challenge_id: uuid.UUID | str) -> Challenge:
    with transaction.atomic():
        challenge = _locked(player, challenge_id)
        if challenge.challenger_id != player.pk:
            raise NotChallenged()
        _end(challenge, Challenge.Status.CANCELLED, Kind.CHALLENGE_CANCELLED)
    return challenge


def _end(challenge: Challenge, status: str, kind: Kind) -> None:
    challenge.status = status
    challenge.ended_at = timezone.now()
    challenge.save(update_fields=["status", "ended_at"])
    notices.tell(_seated_ids(challenge), kind, challenge_id=challenge.pk)


def _seated_ids(challenge: Challenge, but: int | None = None) -> list[int]:
    ids = ChallengeSeat.objects.filter(challenge=challenge, player__isnull=False)
    return [player for player in ids.values_list("player_id", flat=True) if player != but]


def expire_due(now: datetime | None = None) -> int:
    now = now or timezone.now()
    with transaction.atomic():
        due = list(
            Challenge.objects.select_for_update(skip_locked=True).filter(
                status=Challenge.Status.PENDING, expires_at__lte=now
            )
        )
        for challenge in due:
            _end(challenge, Challenge.Status.EXPIRED, Kind.CHALLENGE_EXPIRED)
    return len(due)


def cancel_all(player_ids: Iterable[int]) -> None:
    """Every pending challenge these players sit in is cancelled (an account being deleted)."""
    ids = list(player_ids)
    with transaction.atomic():
        seated = ChallengeSeat.objects.filter(player_id__in=ids).values("challenge_id")
        pending = Challenge.objects.select_for_update().filter(
            Q(challenger_id__in=ids) | Q(pk__in=seated), status=Challenge.Status.PENDING
        )
        for challenge in pending:
            _end(challenge, Challenge.Status.CANCELLED, Kind.CHALLENGE_CANCELLED)


def challenges_of(player: Player) -> list[Challenge]:
    """The player's challenges, sent and received, newest first."""
    return list(
        Challenge.objects.filter(Q(challenger=player) | Q(seats__player=player))
        .distinct()
        .prefetch_related("seats")
        .order_by("-created_at")[:200]
    )
