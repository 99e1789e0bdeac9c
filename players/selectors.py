"""Reads for ratings (a player's ratings and history, the leaderboards) and blocks.

What reads games (a game's rating changes, a player's record) is games/'s: games.rated_results and
games.selectors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from players.models import (
    Block,
    Player,
    Rating,
    RatingChange,
    RatingFamily,
    RatingSize,
)
from players.ratings import START_RATING, is_provisional


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
                    "provisional": is_provisional(games),
                    "updated_at": rating.updated_at if rating else None,
                }
            )
    return rows


def rating_change_item(change: RatingChange) -> dict[str, Any]:
    """One rating change as the game's view and the player's notice tell it: the pool, and the
    rating before and after."""
    return {
        "family": change.family,
        "size": change.size,
        "before": change.before,
        "after": change.after,
        "delta": change.delta,
    }


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
            "provisional": is_provisional(rating.games),
            "updated_at": rating.updated_at,
        }
        for rank, rating in enumerate(ratings, start=first_rank)
    ]


def pool_ratings(player_ids: Iterable[int], family: str, size: str) -> dict[int, int]:
    """Each player's rating in one pool; the start rating where he has not played it yet."""
    ids = list(player_ids)
    stored = dict(
        Rating.objects.filter(player_id__in=ids, family=family, size=size).values_list(
            "player_id", "value"
        )
    )
    return {player: stored.get(player, START_RATING) for player in ids}


def blocks_among(player_ids: Iterable[int]) -> frozenset[tuple[int, int]]:
    """(blocker, blocked) for every block between two of these players."""
    ids = list(player_ids)
    rows = Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids)
    return frozenset(rows.values_list("blocker_id", "blocked_id"))


def blocked_by(player: Player) -> list[int]:
    """The ids of the players ``player`` blocks."""
    return list(Block.objects.filter(blocker=player).values_list("blocked_id", flat=True))
