"""Reads for ratings: a game's rating changes, a player's ratings and history, the leaderboards."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet, Subquery

from games.models import Game, Seat
from players.models import Player, Rating, RatingChange, RatingFamily, RatingSize
from players.ratings import PROVISIONAL_GAMES, START_RATING


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
            "family": change.family,
            "size": change.size,
            "before": change.before,
            "after": change.after,
            "delta": change.delta,
        }
        for change in changes
    ]


def current_ratings(player: Player) -> list[dict[str, Any]]:
    """The player's rating in every pool; a pool not played yet shows the start rating."""
    stored = {(r.family, r.size): r for r in Rating.objects.filter(player=player)}
    rows = []
    for family in RatingFamily:
        for size in RatingSize:
            rating = stored.get((family.value, size.value))
            games = rating.games if rating else 0
            rows.append(
                {
                    "family": family.value,
                    "size": size.value,
                    "value": rating.value if rating else START_RATING,
                    "games": games,
                    "provisional": games < PROVISIONAL_GAMES,
                    "updated_at": rating.updated_at if rating else None,
                }
            )
    return rows


def rating_history(player: Player) -> QuerySet[RatingChange]:
    """Every rating change of the player, newest first."""
    return RatingChange.objects.filter(player=player).order_by("-created_at", "-id")


def is_pool(family: str, size: str) -> bool:
    return family in RatingFamily.values and size in RatingSize.values


def leaderboard(family: str, size: str) -> QuerySet[Rating]:
    """One pool's ratings, best first; more games break a tie, then the earlier account."""
    return (
        Rating.objects.filter(family=family, size=size)
        .select_related("player")
        .order_by("-value", "-games", "player_id")
    )


def leaderboard_rows(ratings: Iterable[Rating], *, first_rank: int) -> list[dict[str, Any]]:
    """Leaderboard entries for one page of ``leaderboard()``, ranked from ``first_rank`` on."""
    return [
        {
            "rank": rank,
            "player": rating.player,
            "value": rating.value,
            "games": rating.games,
            "provisional": rating.games < PROVISIONAL_GAMES,
            "updated_at": rating.updated_at,
        }
        for rank, rating in enumerate(ratings, start=first_rank)
    ]


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
