"""Reminders that a deadline is near: one per game version, to the seats that must act.

A periodic task finds active games whose deadline falls within ``REMINDER_LEAD_SECONDS`` and
writes, under the game's lock and with the version checked again, a ``Reminder`` row (unique on
game and version: the database makes it once) and the deliveries, in one transaction.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import Game, GameId, Seat
from games.store.log import load_state, lock_game
from notifications import outbox, signals
from notifications.models import Kind, Reminder


def due(limit: int = 500) -> list[tuple[Any, int]]:
    """(game id, version) of the games whose deadline is near and not yet reminded of.

    Only turns longer than the lead time: on a shorter one the reminder would go out with the
    turn itself, where ``your_turn`` already says it.
    """
    now, lead = timezone.now(), settings.REMINDER_LEAD_SECONDS
    reminded = Reminder.objects.filter(game=OuterRef("pk"), version=OuterRef("version"))
    games = Game.objects.filter(
        status=Game.Status.ACTIVE,
        deadline__gt=now,
        deadline__lte=now + timedelta(seconds=lead),
        turn_seconds__gt=lead,
    ).exclude(Exists(reminded))
    return list(games.order_by("deadline").values_list("id", "version")[:limit])


def remind(game_id: GameId, version: int) -> bool:
    """Remind the seats that must act at ``version``; False (nothing done) if stale or done."""
    with transaction.atomic():
        game = lock_game(game_id)
        now = timezone.now()
        lead = timedelta(seconds=settings.REMINDER_LEAD_SECONDS)
        if (
            game.status != Game.Status.ACTIVE
            or game.version != version
            or game.deadline is None
            or not now < game.deadline <= now + lead
        ):
            return False
        try:
            with transaction.atomic():
                Reminder.objects.create(game=game, version=version)
        except IntegrityError:
            return False  # already reminded
        # Seat.awaiting is engine.may_act, kept by the store at every save.
        awaiting = Seat.objects.filter(game=game, awaiting=True).values_list("number", flat=True)
        seats = list(awaiting)
        signals.deadline_near.send(sender=Reminder, game=game, version=version, seats=seats)
        notices = [
            (subscription, seat, Kind.DEADLINE_NEAR)
            for subscription, seat in outbox.subscribers(game, seats=seats)
            if Kind.DEADLINE_NEAR in subscription.kinds
        ]
        if notices:
            outbox.write(game, notices, load_state(game))
        return True


def sweep(limit: int = 500) -> int:
    return sum(remind(game_id, version) for game_id, version in due(limit))
