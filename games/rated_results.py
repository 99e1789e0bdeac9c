"""The results of finished rated games, applied to the players' ratings: games/ knows who sat
where and which side won; players/ applies the result to its ratings
(``players.services.rate_match``, the Elo of players/ratings.py).

``rate_game`` runs from the Celery task the game server sends after a rated match ends
(``games.tasks``); the reconciler finds, with ``unrated_games``, whatever a lost message left.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog
from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from games.errors import GameNotFound
from games.models import Game, GameId, Seat
from games.signals import game_rated
from games.store.log import lock_game
from players import services as players
from players.models import RatingChange, rating_pool
from players.selectors import rating_change_item

logger = structlog.get_logger(__name__)


def rate_game(game_id: GameId) -> list[RatingChange]:
    """Apply a finished game's result to its players' ratings, once; the changes written.

    A no-op (an empty list) unless the game is finished, rated and has a winner (a forfeit counts:
    the side that forfeited lost; an aborted game never counts), and unless it was rated before.
    Safe to call any number of times, from any number of workers at once: the game row is locked
    first, so callers take turns and each later one finds the changes already written.
    """
    with transaction.atomic():
        try:
            game = lock_game(game_id)
        except GameNotFound:
            return []
        if not _is_ratable(game):
            return []
        seats = list(
            Seat.objects.filter(game=game).order_by("number").values_list("number", "player_id")
        )
        if len(seats) != game.players:
            logger.warning("rating_skipped_short_table", game_id=str(game.pk), seats=len(seats))
            return []
        sides: tuple[list[int], list[int]] = ([], [])
        for number, player in seats:
            sides[number % 2].append(player)  # side = seat number % 2, in seat order
        assert game.winner_side is not None  # _is_ratable
        pool = rating_pool(game.preset, game.players)
        changes = players.rate_match(game.pk, pool, sides, game.winner_side)
        if changes:
            # The finished game's view shows its rating changes: its ``updated_at`` moves, and
            # with it the game's ETag, or a poll would keep being answered 304 without them.
            game.updated_at = timezone.now()
            game.save(update_fields=["updated_at"])
            game_rated.send(sender=Game, game=game, changes=changes)
        return changes


def _is_ratable(game: Game) -> bool:
    return game.status == Game.Status.FINISHED and game.rated and game.winner_side is not None


def unrated_games(
    *, finished_before: datetime | None = None, limit: int | None = None
) -> list[Any]:
    """Ids of finished, rated games with a winner and no rating changes yet, oldest first."""
    games = Game.objects.filter(
        status=Game.Status.FINISHED, rated=True, winner_side__isnull=False
    ).exclude(Exists(RatingChange.objects.filter(game=OuterRef("pk"))))
    if finished_before is not None:
        games = games.filter(finished_at__lt=finished_before)
    ids = games.order_by("finished_at").values_list("pk", flat=True)
    return list(ids[:limit] if limit is not None else ids)


def rating_changes_for(game: Game) -> list[dict[str, Any]]:
    """What the game did to each player's rating, in seat order; empty until it is rated."""
    seat = Seat.objects.filter(game=OuterRef("game"), player=OuterRef("player")).values("number")
    changes = (
        RatingChange.objects.filter(game=game)
        .select_related("player")
        .annotate(seat=Subquery(seat[:1]))
        .order_by("seat", "player_id")
    )
    return [
        {
            "player_id": change.player_id,
            "name": change.player.public_name,
            "seat": change.seat,
            **rating_change_item(change),
        }
        for change in changes
    ]
