"""Seeks: ask for a game, wait, be paired (or fill the table with bots), cancel, expire.

Pairing is safe with any number of server processes and workers at once: a pass reads the open
seeks of a pool, finds tables among them (lobby/pairing.py), and claims each table by locking its
seeks with ``SELECT ... FOR UPDATE SKIP LOCKED`` and checking under the locks that each still
waits; it marks them matched in the transaction that creates the game. Two passes never hold the
same seek, and a seek another pass holds is skipped, not waited for: a later pass (``sweep``, on
the beat) meets what is left. Nobody waits in
two seeks (``QueueEntry``'s key is the player), so nobody is paired into two games by two seeks.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games import engine
from games.errors import rules_error
from games.models import Game
from lobby import notices, pairing, tables
from lobby.errors import (
    AlreadySeeking,
    NotThePartner,
    PlayerBlocked,
    SeekClosed,
    SeekNotFound,
    TableRefused,
)
from lobby.lookups import by_id
from lobby.models import QueueEntry, Seek
from notifications.models import Kind
from players import selectors as players
from players.models import Player, rating_pool

logger = structlog.get_logger(__name__)
_shuffler = secrets.SystemRandom()
WAITING = (Seek.Status.OPEN, Seek.Status.WAITING_PARTNER)


@dataclass(frozen=True)
class SeekRequest:
    preset: str
    players: int
    turn_seconds: int
    rated: bool
    options: dict[str, Any] = field(default_factory=dict)
    rating_min: int | None = None
    rating_max: int | None = None
    partner_id: int | None = None
    bot_after: int | None = None
    bot_level: str = "basic"
    expires_in: int | None = None


def widening() -> pairing.Widening:
    return pairing.Widening(
        settings.LOBBY_WINDOW_BASE, settings.LOBBY_WINDOW_PER_SECOND, settings.LOBBY_WINDOW_MOST
    )


def pool_key(preset: str, players: int, turn_seconds: int, rated: bool, rules: Any) -> str:
    """Seeks pair only within one pool: the same resolved rules, table, clock and rated flag."""
    canonical = json.dumps(rules.to_json(), sort_keys=True)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return f"{preset}/{players}p/{turn_seconds}s/{'rated' if rated else 'casual'}/{digest}"


def create_seek(player: Player, request: SeekRequest) -> Seek:
    """A new seek; paired at once if compatible seekers wait (the answer then says matched)."""
    seek = _insert(player, request)
    if seek.status == Seek.Status.OPEN:
        pair_pool(seek.pool, around=seek)
        seek.refresh_from_db()
    return seek


def _insert(player: Player, request: SeekRequest) -> Seek:
    try:
        rules = engine.resolve_rules(
            request.preset, {**request.options, "players": request.players}
        )
    except engine.InvalidRules as error:
        raise rules_error(error) from None
    partner = _partner(player, request)
    if request.bot_after is not None and request.rated:
        raise TableRefused(
            "bot_after",
            "rated_seek",
            "Bots fill only unrated seeks: a game with a bot is not rated.",
        )
    low, high = request.rating_min, request.rating_max
    if low is not None and high is not None and low > high:
        raise TableRefused("rating_min", "empty_range", "rating_min is above rating_max.")
    family, size = rating_pool(request.preset, request.players)
    now = timezone.now()
    seek = Seek(
        player=player,
        partner=partner,
        preset=request.preset,
        options=request.options,
        players=request.players,
        turn_seconds=request.turn_seconds,
        rated=request.rated,
        pool=pool_key(request.preset, request.players, request.turn_seconds, request.rated, rules),
        rating=players.pool_ratings([player.pk], family, size)[player.pk],
        rating_min=low,
        rating_max=high,
        bot_after=request.bot_after,
        bot_level=request.bot_level if request.bot_after is not None else "",
        status=Seek.Status.WAITING_PARTNER if partner else Seek.Status.OPEN,
        created_at=now,
        expires_at=now + timedelta(seconds=request.expires_in or settings.LOBBY_SEEK_SECONDS),
    )
    try:
        with transaction.atomic():
            seek.save(force_insert=True)
            QueueEntry.objects.create(player=player, seek=seek)
    except IntegrityError:
        raise AlreadySeeking() from None
    logger.info("lobby.seek_created", seek_id=str(seek.pk), pool=seek.pool)
    return seek


def _partner(player: Player, request: SeekRequest) -> Player | None:
    if request.partner_id is None:
        return None
    if request.players != 4:
        raise TableRefused("partner_id", "no_partner_at_2", "A partner needs a table of 4.")
    partner = get_user_model().objects.filter(pk=request.partner_id, is_active=True).first()
    if partner is None or partner.pk == player.pk:
        raise TableRefused("partner_id", "no_such_player", "No such player to partner.")
    blocks = players.blocks_among([player.pk, partner.pk])
    if (player.pk, partner.pk) in blocks:
        raise PlayerBlocked()
    if (partner.pk, player.pk) in blocks:
        raise TableRefused("partner_id", "no_such_player", "No such player to partner.")
    return partner


def confirm_partner(player: Player, seek_id: uuid.UUID | str) -> Seek:
    """The named partner joins the seek: from now on the two wait, and are paired, together."""
    with transaction.atomic():
        seek = _locked(seek_id, player)
        if seek.partner_id != player.pk:
            raise NotThePartner()  # its creator: the seek is his, whatever its status
        if seek.status != Seek.Status.WAITING_PARTNER:
            raise SeekClosed()
        family, size = rating_pool(seek.preset, seek.players)
        ratings = players.pool_ratings(seek.seekers, family, size)
        seek.rating = round(sum(ratings.values()) / len(ratings))  # a pair plays as its mean
        seek.status = Seek.Status.OPEN
        seek.save(update_fields=["rating", "status"])
        try:
            with transaction.atomic():
                QueueEntry.objects.create(player=player, seek=seek)
        except IntegrityError:
            raise AlreadySeeking() from None
    pair_pool(seek.pool, around=seek)
    seek.refresh_from_db()
    return seek


def cancel_seek(player: Player, seek_id: uuid.UUID | str) -> Seek:
    with transaction.atomic():
        seek = _locked(seek_id, player)
        if seek.status not in WAITING:
            raise SeekClosed()
        _close([seek], Seek.Status.CANCELLED)
    return seek


def _locked(seek_id: uuid.UUID | str, player: Player) -> Seek:
    """The seek, locked (waiting for a pairing pass that holds it): a seeker's own only."""
    seek = by_id(Seek.objects.select_for_update(), seek_id)
    if seek is None or player.pk not in seek.seekers:
        raise SeekNotFound()
    return seek


def _close(
    seeks: Sequence[Seek], status: str, game: Game | None = None, at: datetime | None = None
) -> None:
    now = at or timezone.now()
    for seek in seeks:
        seek.status, seek.ended_at, seek.game = status, now, game
    Seek.objects.bulk_update(seeks, ["status", "ended_at", "game"])
    QueueEntry.objects.filter(seek__in=seeks).delete()


# --- pairing -------------------------------------------------------------------------------------


def pair_pool(pool: str, *, around: Seek | None = None, now: datetime | None = None) -> int:
    """One pairing pass over a pool's open seeks (around a newcomer: only the tables that would
    seat him); each table it finds is claimed and started in a transaction of its own. The
    number of games made."""
    now = now or timezone.now()
    waiting = Seek.objects.filter(status=Seek.Status.OPEN, pool=pool, expires_at__gt=now)
    if around is not None:
        # Those whose rating the newcomer's window holds, and whose own range (if they gave
        # one) holds his; a default window's widening is left to the pairing rules.
        low, high = _unit(around).window(now, widening())
        waiting = waiting.filter(rating__gte=low, rating__lte=high).filter(
            Q(rating_min__isnull=True) | Q(rating_min__lte=around.rating),
            Q(rating_max__isnull=True) | Q(rating_max__gte=around.rating),
        )
    # Read without a lock, and only the columns pairing reads: a pass may look at thousands of
    # seeks, and claims the few of each table it finds (``_claim``).
    seeks = list(
        waiting.only(*_PAIRING_COLUMNS).order_by("created_at")[: settings.LOBBY_PAIRING_BATCH]
    )
    if len(seeks) < 2:
        return 0
    by_id = {str(seek.pk): seek for seek in seeks}
    blocks = players.blocks_among(player for seek in seeks for player in seek.seekers)
    seeds = frozenset({str(around.pk)}) if around is not None else None
    units = [_unit(seek) for seek in seeks]
    found = pairing.find_tables(units, seeks[0].players, now, widening(), blocks, seeds)
    return sum(_claim([by_id[unit.id] for unit in table.units], now) for table in found)


def _claim(table: list[Seek], now: datetime) -> int:
    """Lock the table's seeks (``SKIP LOCKED``: never wait for another pass), check under the
    locks that each still waits and that they still may sit together, and start the game; 0
    (nothing done) when one of them was taken, cancelled or blocked meanwhile: a later pass
    sees what is left. The seeks change status only here, under these locks."""
    with transaction.atomic():
        # The claim's own moment, not the pass's: a pass may take a while, and a seek that
        # expired meanwhile is no longer there to claim.
        now = max(now, timezone.now())
        locked = list(
            Seek.objects.select_for_update(skip_locked=True)
            .filter(pk__in=[seek.pk for seek in table], status=Seek.Status.OPEN)
            .filter(expires_at__gt=now)
            .only(*_PAIRING_COLUMNS)
        )
        if len(locked) != len(table):
            return 0
        units = [_unit(seek) for seek in locked]
        blocks = players.blocks_among(player for seek in locked for player in seek.seekers)
        if not pairing.compatible(units, now, widening(), blocks):
            return 0
        _start(locked, now)
    return 1


_PAIRING_COLUMNS = (
    *("id", "player_id", "partner_id", "rating", "rating_min", "rating_max", "created_at"),
    *("pool", "players", "preset", "options", "turn_seconds", "rated", "expires_at", "status"),
)


def _unit(seek: Seek) -> pairing.Unit:
    return pairing.Unit(
        str(seek.pk),
        tuple(seek.seekers),
        seek.rating,
        seek.created_at,
        seek.rating_min,
        seek.rating_max,
    )


def _start(seeks: list[Seek], now: datetime) -> None:
    """The game of one table of paired seeks, in the pass's transaction."""
    _shuffler.shuffle(seeks)  # who is mano is left to chance
    first = seeks[0]
    seats = pairing.seating([_unit(seek) for seek in seeks], first.players)
    people = get_user_model().objects.in_bulk(seats)
    game = tables.start_table(
        [people[player] for player in seats],
        preset=first.preset,
        options=first.options,
        turn_seconds=first.turn_seconds,
        rated=first.rated,
    )
    _close(seeks, Seek.Status.MATCHED, game, at=now)
    notices.tell(seats, Kind.MATCH_FOUND, game_id=game.pk, seats=list(seats), bots=0)
    logger.info("lobby.paired", game_id=str(game.pk), seeks=[str(seek.pk) for seek in seeks])


def _people(seek: Seek) -> list[Any]:
    return [seek.player] + ([seek.partner] if seek.partner_id else [])


def open_pools() -> list[str]:
    return list(
        Seek.objects.filter(status=Seek.Status.OPEN).values_list("pool", flat=True).distinct()
    )


def fill_with_bots(now: datetime | None = None) -> int:
    """Unrated seeks that waited their ``bot_after``: bots take the table's other seats."""
    now = now or timezone.now()
    made = 0
    with transaction.atomic():
        due = Seek.objects.select_for_update(skip_locked=True, of=("self",)).filter(
            status=Seek.Status.OPEN, rated=False, bot_after__isnull=False, expires_at__gt=now
        )
        for seek in due.select_related("player", "partner"):
            if seek.created_at + timedelta(seconds=seek.bot_after or 0) > now:
                continue
            people = _people(seek)
            seats: list[Any] = [None] * seek.players
            seats[0] = people[0]
            if len(people) == 2:
                seats[2] = people[1]  # partners sit on one side (RULES.md §1)
            bots = {number: seek.bot_level for number, who in enumerate(seats) if who is None}
            game = tables.start_table(
                seats,
                preset=seek.preset,
                options=seek.options,
                turn_seconds=seek.turn_seconds,
                rated=False,
                bots=bots,
            )
            _close([seek], Seek.Status.MATCHED, game)
            taken = [who.pk if who is not None else None for who in seats]
            notices.tell(
                seek.seekers, Kind.MATCH_FOUND, game_id=game.pk, seats=taken, bots=len(bots)
            )
            made += 1
    return made


def expire_due(now: datetime | None = None) -> int:
    """Seeks past their expiry are closed (and their seekers told)."""
    now = now or timezone.now()
    with transaction.atomic():
        due = list(
            Seek.objects.select_for_update(skip_locked=True).filter(
                status__in=WAITING, expires_at__lte=now
            )
        )
        if due:
            _close(due, Seek.Status.EXPIRED)
            for seek in due:
                notices.tell(seek.seekers, Kind.SEEK_EXPIRED, seek_id=seek.pk)
    return len(due)


def sweep(now: datetime | None = None) -> dict[str, int]:
    """The periodic pass: expire, fill with bots, and pair every pool."""
    expired = expire_due(now)
    bots = fill_with_bots(now)
    paired = sum(pair_pool(pool, now=now) for pool in open_pools())
    return {"expired": expired, "bot_games": bots, "games": paired}


def cancel_all(player_ids: Iterable[int]) -> None:
    """Every waiting seek of these players, cancelled (an account being deleted)."""
    ids = list(player_ids)
    with transaction.atomic():
        seeks = list(
            Seek.objects.select_for_update().filter(
                Q(player_id__in=ids) | Q(partner_id__in=ids), status__in=WAITING
            )
        )
        if seeks:
            _close(seeks, Seek.Status.CANCELLED)
