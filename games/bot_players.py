"""Bots at the table: server-side players that act through Celery, on the same path as people.

A bot seat's move is a task sent after the commit that handed it the turn; it is keyed by the
game's version like a timeout, so a stale or repeated task does nothing. The bot sees only its
seat's view and redacted history (games/bots), and its action goes through ``engine.decide``.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import structlog
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import bots, engine
from games.models import Game, GameEvent, GameId, Seat
from games.store.log import append, load_state, lock_game, seats_of
from players.models import Player
from players.services import BOT_PREFIX

logger = structlog.get_logger(__name__)


def bot_player(level: str, number: int) -> Player:
    """The bot account for one seat of a level (bot-basic-1, bot-basic-2, ...): one per seat,
    since a player sits at most once at a table."""
    player, created = get_user_model().objects.get_or_create(
        username=f"{BOT_PREFIX}{level}-{number}",
        defaults={"display_name": f"Bot {level} {number}"},
    )
    if created:
        player.set_unusable_password()
        player.save(update_fields=["password"])
    return player


def bot_to_move(game: Game, state: engine.State) -> int | None:
    """The seat whose move a bot owes now, if a bot's (``games.tasks`` sends it after commit)."""
    seat = engine.turn(state)
    if not game.has_bots or game.status != Game.Status.ACTIVE or seat is None:
        return None
    bots = {bot.number for bot in seats_of(game) if bot.bot_level}
    return seat if seat in bots else None


def move(game_id: GameId, version: int, number: int) -> bool:
    """Play the bot of seat ``number`` at ``version``; False (nothing done) when stale."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.ACTIVE or game.version != version:
            return False
        seat = Seat.objects.filter(game=game, number=number).exclude(bot_level="").first()
        state = load_state(game)
        if seat is None or engine.turn(state) != number:
            return False
        history = [
            engine.redact_json(payload, number)
            for payload in GameEvent.objects.filter(game=game)
            .order_by("seq")
            .values_list("payload", flat=True)
        ]
        view = engine.view_for(state, number)
        # Seeded by game and version: a redelivered task would choose the same action.
        action = bots.choose(seat.bot_level, view, history, random.Random(f"{game.pk}:{version}"))
        # The same path as a person's action: engine.decide, then the log's one append.
        append(game, state, engine.decide(state, number, action), actor=seat.player, seat=number)
        logger.info("game.bot_move", game_id=str(game.pk), seat=number, action=action.type)
        return True


def stalled(seconds: float = 10.0) -> list[tuple[Any, int, int]]:
    """(game, version, seat) of bot turns whose task seems lost: the sweep sends them again."""
    before = timezone.now() - timedelta(seconds=seconds)
    rows = Seat.objects.filter(
        game__turn=F("number"),
        game__status=Game.Status.ACTIVE,
        game__updated_at__lte=before,
    ).exclude(bot_level="")
    return list(rows.values_list("game_id", "game__version", "number")[:500])
