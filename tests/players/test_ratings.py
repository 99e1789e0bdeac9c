"""players/ratings.py: Elo's rule, E = 1/(1+10^((Rb-Ra)/400)) and R' = R + K(S - E), proved by
properties and by examples worked by hand. No database."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from players.ratings import (
    DRAW,
    K_ESTABLISHED,
    K_PROVISIONAL,
    LOSS,
    PROVISIONAL_GAMES,
    START_RATING,
    WIN,
    Standing,
    expected_score,
    k_factor,
    rate_1v1,
    rate_sides,
    rate_teams,
)

ratings = st.integers(min_value=0, max_value=4000)
games = st.integers(min_value=0, max_value=200)
standings = st.builds(Standing, rating=ratings, games=games)
results = st.sampled_from([WIN, DRAW, LOSS])


@st.composite
def same_k_pairs(draw: st.DrawFn) -> tuple[Standing, Standing]:
    played = draw(games)
    other = draw(games.filter(lambda n: k_factor(n) == k_factor(played)))
    return Standing(draw(ratings), played), Standing(draw(ratings), other)


# --- properties ----------------------------------------------------------------------------------


@given(same_k_pairs(), results)
def test_rate_1v1_is_zero_sum_with_equal_k(pair: tuple[Standing, Standing], score: float):
    change_a, change_b = rate_1v1(*pair, score)
    assert change_a + change_b == 0


@given(standings, standings, results)
def test_rate_1v1_never_moves_a_rating_by_more_than_k(a: Standing, b: Standing, score: float):
    change_a, change_b = rate_1v1(a, b, score)
    assert abs(change_a) <= a.k
    assert abs(change_b) <= b.k


@given(standings, standings, standings, standings, results)
def test_rate_teams_of_two_never_moves_a_rating_by_more_than_k(
    a0: Standing, a2: Standing, b1: Standing, b3: Standing, score: float
):
    (c0, c2), (c1, c3) = rate_teams((a0, a2), (b1, b3), score)
    for standing, change in ((a0, c0), (a2, c2), (b1, c1), (b3, c3)):
        assert abs(change) <= standing.k


@given(standings, standings)
def test_rate_1v1_winner_never_loses_and_loser_never_gains(winner: Standing, loser: Standing):
    change_winner, change_loser = rate_1v1(winner, loser, WIN)
    assert change_winner >= 0
    assert change_loser <= 0


@given(standings, standings, standings, standings)
def test_rate_teams_of_two_winners_never_lose_and_losers_never_gain(
    a0: Standing, a2: Standing, b1: Standing, b3: Standing
):
    winners, losers = rate_teams((a0, a2), (b1, b3), WIN)
    assert all(change >= 0 for change in winners)
    assert all(change <= 0 for change in losers)


@given(ratings, games, games)
def test_rate_1v1_draw_between_equals_changes_nothing(rating: int, played_a: int, played_b: int):
    assert rate_1v1(Standing(rating, played_a), Standing(rating, played_b), DRAW) == (0, 0)


@given(ratings, games, standings, standings, results)
def test_rate_teams_of_two_partners_with_equal_ratings_get_equal_changes(
    rating: int, played: int, b1: Standing, b3: Standing, score: float
):
    partner = Standing(rating, played)
    (c0, c2), _ = rate_teams((partner, partner), (b1, b3), score)
    assert c0 == c2


@given(standings, standings, st.sampled_from([0, 1]))
def test_rate_sides_1v1_is_rate_1v1_with_the_winner_scoring_one(
    a: Standing, b: Standing, winner_side: int
):
    changes = rate_sides(((a,), (b,)), winner_side)
    expected = rate_1v1(a, b, WIN if winner_side == 0 else LOSS)
    assert changes == ((expected[0],), (expected[1],))


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_expected_score_lies_in_the_unit_interval_and_the_two_sides_sum_to_one(gap: int):
    e = expected_score(START_RATING + gap, START_RATING)
    assert 0.0 <= e <= 1.0
    assert e + expected_score(START_RATING, START_RATING + gap) == pytest.approx(1.0)


# --- worked by hand ------------------------------------------------------------------------------


def test_k_factor_is_provisional_for_the_first_twenty_games():
    assert PROVISIONAL_GAMES == 20
    assert k_factor(0) == k_factor(19) == K_PROVISIONAL == 40
    assert k_factor(20) == k_factor(500) == K_ESTABLISHED == 20


def test_rate_1v1_newcomers_win_k_over_two():
    # E = 1/(1+10^0) = 0.5; 40 * (1 - 0.5) = 20.
    assert rate_1v1(Standing(1500), Standing(1500), WIN) == (20, -20)


def test_rate_1v1_favourite_wins_little_underdog_wins_much():
    # Gap 200: E(1600) = 1/(1+10^-0.5) = 1/1.316228 = 0.759747.
    assert expected_score(1600, 1400) == pytest.approx(0.759747, abs=1e-6)
    # Favourite wins: 20 * (1 - 0.759747) = 4.805 -> 5.
    assert rate_1v1(Standing(1600, 30), Standing(1400, 30), WIN) == (5, -5)
    # Underdog wins: 20 * (1 - 0.240253) = 15.195 -> 15.
    assert rate_1v1(Standing(1400, 30), Standing(1600, 30), WIN) == (15, -15)


def test_rate_1v1_with_different_k_each_moves_by_their_own():
    # A provisional newcomer beats an established 1500: 40 * 0.5 = 20 up, 20 * 0.5 = 10 down.
    assert rate_1v1(Standing(1500, 3), Standing(1500, 50), WIN) == (20, -10)


def test_rate_teams_of_two_rates_each_player_against_the_opposing_average():
    # Side A (1500, 1700) beats side B (1600, 1600); every K is 40; both averages are 1600.
    # 1500 vs 1600: E = 1/(1+10^0.25) = 1/2.778279 = 0.359935; 40 * 0.640065 = 25.6 -> 26.
    # 1700 vs 1600: E = 0.640065; 40 * 0.359935 = 14.4 -> 14.
    # 1600 vs 1600: E = 0.5; 40 * (0 - 0.5) = -20 for each loser.
    side_a = (Standing(1500), Standing(1700))
    side_b = (Standing(1600), Standing(1600))
    assert rate_teams(side_a, side_b, WIN) == ((26, 14), (-20, -20))
    assert rate_sides((side_a, side_b), 0) == ((26, 14), (-20, -20))


def test_rate_sides_refuses_a_missing_winner_and_uneven_sides():
    with pytest.raises(ValueError, match="winner_side"):
        rate_sides(((Standing(1500),), (Standing(1500),)), 2)
    with pytest.raises(ValueError, match="cannot be rated"):
        rate_sides(((Standing(1500),), (Standing(1500), Standing(1500))), 0)
