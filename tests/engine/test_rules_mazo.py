"""RULES.md §6: irse al mazo (fold)."""

from __future__ import annotations

import pytest

from .helpers import Table

#: The mano holds 33 and the pie 29; all six cards are in both decks.
MANO_33 = [["7E", "6E", "4B"], ["5C", "4C", "3O"]]
LADDER = ["truco", "retruco", "vale_cuatro", "joc_fora"]
#: 4 players: seat 2 holds the two best cards.
FOUR = [["4C", "5C", "6C"], ["4E", "5E", "6E"], ["1E", "1B", "7O"], ["4O", "5O", "6O"]]


def test_mazo_only_by_the_player_to_play_and_not_over_a_pending_call():
    """RULES.md §6: only the player whose turn it is, and with no call pending."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.rejects(1, "mazo", "not_your_turn")
    table.act(0, "truco")
    table.rejects(1, "mazo", "call_pending")  # he answers no_quiero instead
    table.rejects(0, "mazo", "call_pending")
    table.act(1, "quiero")
    table.play(0, "7E")
    table.rejects(0, "mazo", "not_your_turn")
    table.act(1, "mazo")
    assert table.hand.over


@pytest.mark.parametrize(("level", "worth"), [(1, 1), (2, 2), (3, 3), (4, 4), (5, 14)])
def test_mazo_pays_the_last_accepted_truco_level(level, worth):
    """RULES.md §6: the other side scores the current truco value (the last accepted level, 1 if
    none); joc fora accepted is worth the whole cama (§5.1)."""
    table = Table("valenciano", scores=(3, 10), hands=MANO_33)
    for step, call in enumerate(LADDER[: level - 1]):
        table.act(step % 2, call)
    if level > 1:
        table.act((level + 1) % 2, "quiero")
    table.act(0, "mazo")
    assert table.points() == [("truco", 1, worth)]


@pytest.mark.parametrize("folder", [0, 1])
def test_mazo_envido_penalty_while_the_window_is_open_for_the_folder(folder):
    """RULES.md §6: with mazo_envido_penalty, folding with the envido window open costs one more."""
    table = Table("argentino_clasico", hands=MANO_33)
    if folder == 1:
        table.play(0, "7E")
    table.act(folder, "mazo")
    winner = 1 - folder
    assert table.points() == [("truco", winner, 1), ("mazo_penalty", winner, 1)]


def test_mazo_no_penalty_without_the_option():
    """RULES.md §6: the extra point exists only with mazo_envido_penalty."""
    table = Table("argentino_clasico", mazo_envido_penalty=False, hands=MANO_33)
    table.act(0, "mazo")
    assert table.points() == [("truco", 1, 1)]


@pytest.mark.parametrize(
    ("before", "points"),
    [
        # first_baza: once baza 1 is complete the window is closed
        ([(0, "play", "7E"), (1, "play", "3O")], [("truco", 1, 1)]),
        # an accepted truco closes the window; the fold pays its level
        ([(0, "truco", None), (1, "quiero", None)], [("truco", 1, 2)]),
        # the envido closes the window, and the envido points already won are kept
        ([(0, "envido", None), (1, "quiero", None)], [("envido", 0, 2), ("truco", 1, 1)]),
    ],
)
def test_mazo_after_the_window_closed_costs_no_penalty(before, points):
    """RULES.md §6: no extra point once the envido window is closed; envido points are kept."""
    table = Table("argentino_clasico", hands=MANO_33)
    for seat, name, card in before:
        table.act(seat, name, card)
    table.act(0, "mazo")
    assert table.points() == points


def test_mazo_penalty_follows_the_folders_own_window_before_own_first_card():
    """RULES.md §6: the window must be open for the folder: under before_own_first_card a player
    who has played his first card folds without the extra point."""
    table = Table("valenciano", mazo_envido_penalty=True, hands=MANO_33)
    table.play(0, "7E")
    table.act(1, "mazo")
    assert table.points() == [("truco", 0, 1), ("mazo_penalty", 0, 1)]
    table.deal([["5C", "4C", "3O"], ["7E", "6E", "4B"]])  # seat 1 is mano now
    table.plays("7E", "3O")  # seat 1 wins baza 1 and leads baza 2
    table.act(1, "mazo")
    assert table.points() == [("truco", 0, 1)]


def test_mazo_no_penalty_after_the_envido_phase():
    """RULES.md §6 with before_first_card: the window closes with the phase, before any fold."""
    table = Table("argentino", mazo_envido_penalty=True, hands=MANO_33)
    table.act(0, "paso")
    table.act(1, "paso")
    table.act(0, "mazo")
    assert table.points() == [("truco", 1, 1)]


def test_mazo_4_players_side_concedes_ends_the_hand():
    """RULES.md §6 side_concedes: one player's fold ends the hand for his whole side."""
    table = Table("argentino_clasico", players=4, mazo_envido_penalty=False, hands=FOUR)
    table.plays("4C", "4E")
    table.act(2, "mazo")
    assert table.hand.over and table.hand.folded == frozenset({0, 2})
    assert table.points() == [("truco", 1, 1)]


def test_mazo_4_players_partner_continues_skips_the_folder():
    """RULES.md §6 partner_continues: the folder's turns are skipped, he answers no calls, and
    the bazas still decide the hand."""
    table = Table("valenciano", players=4, hands=FOUR)
    table.act(0, "mazo")
    assert not table.hand.over and table.turn == 1
    table.rejects(0, "play", "player_folded", card="5C")
    table.plays("4E", "1E", "4O")  # three cards complete baza 1; seat 2 wins and leads
    assert table.hand.results == (0,)
    table.play(2, "1B")
    table.act(3, "truc")
    assert table.turn == 2  # seat 0, the next of side 0 after the caller, is out
    table.rejects(0, "vull", "player_folded")
    table.act(2, "vull")
    table.play(3, "5O")
    assert table.turn == 1  # seat 0 is skipped
    table.play(1, "5E")
    assert table.points() == [("truco", 0, 2)]


def test_mazo_4_players_partner_continues_ends_when_a_whole_side_folded():
    """RULES.md §6 partner_continues: the hand ends when a whole side has folded."""
    table = Table("valenciano", players=4, hands=FOUR)
    table.act(0, "mazo")
    table.play(1, "4E")
    table.act(2, "mazo")
    assert table.hand.over
    assert table.points() == [("truco", 1, 1)]


def test_mazo_4_players_partner_continues_only_the_fold_that_ends_the_hand_costs_the_penalty():
    """RULES.md §6: with partner_continues only the last player of a side to fold can cost the
    envido penalty, since until then his partner may still call the envido."""
    table = Table("valenciano", players=4, mazo_envido_penalty=True, hands=FOUR)
    table.act(0, "mazo")  # window open for seat 0, but seat 2 stays in: no penalty
    assert not table.hand.over
    table.play(1, "4E")
    table.act(2, "envit")  # the envido can still be called by the partner
    table.act(3, "no_vull")
    table.act(2, "mazo")  # the envido was called: the window is closed, no penalty either
    assert table.hand.over
    assert ("mazo_penalty", 1, 1) not in table.points()


def test_mazo_4_players_partner_continues_last_fold_with_the_window_open_costs_the_penalty():
    """RULES.md §6: the fold that ends the hand costs the penalty if the window is open for him."""
    table = Table("valenciano", players=4, mazo_envido_penalty=True, hands=FOUR)
    table.act(0, "mazo")
    table.play(1, "4E")
    table.act(2, "mazo")
    assert table.hand.over
    assert table.points() == [("truco", 1, 1), ("mazo_penalty", 1, 1)]
