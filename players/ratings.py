"""Elo ratings as pure functions: no Django, no database, no clock.

The rule (Arpad Elo, *The Rating of Chessplayers*, 1978; the form FIDE's Rating Regulations §8
and lichess's ``rating/Elo.scala`` use):

    expected score  E_a = 1 / (1 + 10 ** ((R_b - R_a) / 400))
    new rating      R_a' = R_a + K * (S_a - E_a)

where S_a is the result: 1 for a win, 0.5 for a draw, 0 for a loss. A Truc match always has a
winner (forfeits included), but the functions take draws too so that the rule reads whole.

Ratings are whole numbers: each change K * (S - E) is computed in floating point and rounded once,
at the edge, to the integer stored. Python's ``round`` rounds halves to even, which is symmetric
(``round(-x) == -round(x)``), so both players of a 1v1 game round the same quantity with opposite
signs.

Pools: a player has one rating per family of rules and table size (valenciano or argentino, 1v1,
2v2 or 3v3); ``players/models.py`` maps a game to its pool. Each function here sees one pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Every player enters every pool here.
START_RATING = 1500
# A player's first PROVISIONAL_GAMES rated games in a pool move their rating by up to K_PROVISIONAL
# points, so a newcomer reaches their level quickly; later ones by up to K_ESTABLISHED.
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40
K_ESTABLISHED = 20

# The result S of one game for one side.
WIN = 1.0
DRAW = 0.5
LOSS = 0.0

# Elo's scale: a difference of 400 points means the stronger side is expected to score 10:1.
_SCALE = 400.0


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one pool before a game, and how many rated games it rests on."""

    rating: int
    games: int = 0

    @property
    def k(self) -> int:
        return k_factor(self.games)


def is_provisional(games: int) -> bool:
    """Whether a rating resting on ``games`` rated games is still provisional."""
    return games < PROVISIONAL_GAMES


def k_factor(games: int) -> int:
    """K for a player who has already played ``games`` rated games in the pool."""
    return K_PROVISIONAL if is_provisional(games) else K_ESTABLISHED


def expected_score(rating: float, opponent: float) -> float:
    """E = 1 / (1 + 10^((R_opponent - R) / 400)), strictly between 0 and 1 for real ratings.

    Written in the form whose power never exceeds 1, so no rating gap can overflow a float.
    """
    exponent = (opponent - rating) / _SCALE
    if exponent <= 0:
        return 1.0 / (1.0 + math.pow(10.0, exponent))
    power = math.pow(10.0, -exponent)
    return power / (1.0 + power)


def rating_delta(rating: float, opponent: float, score: float, k: int) -> int:
    """round(K * (S - E)): the points one player gains (or loses, negative) from one result.

    |S - E| <= 1, so the change never exceeds K; S = 1 gives a change >= 0 and S = 0 one <= 0.
    """
    return round(k * (score - expected_score(rating, opponent)))


def rate_1v1(a: Standing, b: Standing, score_a: float) -> tuple[int, int]:
    """The rating changes of both players of a 1v1 game; ``score_a`` is A's result.

    B's surprise is the exact negation of A's (S_b - E_b = -(S_a - E_a)), so both changes come
    from one number: with equal K the changes are exact opposites and the pool keeps its points.
    With different K (one player still provisional) each moves by their own K and the pool gains
    or loses the difference: a newcomer's rating settles faster without dragging the established
    player's along.
    """
    surprise = score_a - expected_score(a.rating, b.rating)
    return round(a.k * surprise), -round(b.k * surprise)


def rate_teams(
    side_a: tuple[Standing, ...], side_b: tuple[Standing, ...], score_a: float
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The rating changes of the players of a team game (2v2 or 3v3); ``score_a`` is side A's
    result.

    Each player is rated as if they had played one game against a single opponent rated at the
    opposing side's average, with their team's result and their own K. Partners with the same
    rating and K therefore change by the same amount. The pool keeps its points only when both
    sides have equal ratings within each side and one K for all.
    """
    average_a = _average(side_a)
    average_b = _average(side_b)
    score_b = 1.0 - score_a
    return (
        tuple(rating_delta(a.rating, average_b, score_a, a.k) for a in side_a),
        tuple(rating_delta(b.rating, average_a, score_b, b.k) for b in side_b),
    )


def rate_sides(
    sides: tuple[tuple[Standing, ...], tuple[Standing, ...]], winner_side: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Changes for a finished match given as (side 0, side 1), one, two or three standings a side.

    Side 0 holds seats 0 (2, 4), side 1 seats 1 (3, 5): the seats' order within a side is kept.
    """
    if winner_side not in (0, 1):
        raise ValueError(f"winner_side must be 0 or 1, not {winner_side!r}")
    score_0 = WIN if winner_side == 0 else LOSS
    side_0, side_1 = sides
    if len(side_0) == len(side_1) == 1:
        change_0, change_1 = rate_1v1(side_0[0], side_1[0], score_0)
        return (change_0,), (change_1,)
    if len(side_0) == len(side_1) in (2, 3):
        return rate_teams(side_0, side_1, score_0)
    raise ValueError(f"sides of {len(side_0)} and {len(side_1)} players cannot be rated")


def _average(side: tuple[Standing, ...]) -> float:
    return sum(standing.rating for standing in side) / len(side)
