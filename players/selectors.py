"""Reads for ratings: a game's rating changes, a player's ratings and history, the leaderboards."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet, Subquery

from games.models import Game, Seat
from players.models import (
    PRESET_FAMILIES,
    TABLE_SIZES,
    Block,
    Player,
    Rating,
    RatingChange,
    RatingFamily,
    RatingSize,
    rating_pool,
)
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


def have_shared_a_table(player_id: int, other_id: int) -> bool:
    """Whether the two ever sat at one game (started or over): "known" to each other."""
    theirs = Seat.objects.filter(player_id=other_id).values("game_id")
    return Seat.objects.filter(
        player_id=player_id, game_id__in=theirs, game__started_at__isnull=False
    ).exists()


def pool_stats(player: Player) -> list[dict[str, Any]]:
    """Games, wins and losses in every pool, counting each finished match with a winner (rated or
    not; an aborted game is no result)."""
    counts: dict[tuple[str, str], list[int]] = {
        (family.value, size.value): [0, 0] for family in RatingFamily for size in RatingSize
    }
    finished = Seat.objects.filter(
        player=player, game__status=Game.Status.FINISHED, game__winner_side__isnull=False
    ).values_list("number", "game__preset", "game__players", "game__winner_side")
    for number, preset, players, winner_side in finished:
        if players not in TABLE_SIZES or preset not in PRESET_FAMILIES:
            continue  # a table with no rating pool
        family, size = rating_pool(preset, players)
        counts[(family.value, size.value)][number % 2 != winner_side] += 1
    return [
        {"family": family, "size": size, "games": wins + losses, "wins": wins, "losses": losses}
        for (family, size), (wins, losses) in counts.items()
    ]
