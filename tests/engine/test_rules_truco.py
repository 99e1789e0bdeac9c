"""RULES.md §5 and §5.1: the truco ladder, who may raise, what acceptance and refusal are worth."""

from __future__ import annotations

import pytest

from games import engine as E

from .helpers import Table

#: The mano (seat 0) wins the first two bazas; these cards are in both decks.
STRONG_MANO = [["1E", "1B", "4C"], ["4O", "5O", "6O"]]
LADDER = ["truco", "retruco", "vale_cuatro", "joc_fora"]


def climb(table: Table, level: int) -> None:
    """Call up to ``level``, each a raise answering the last: seat 0 truco, seat 1 retruco..."""
    for step, call in enumerate(LADDER[: level - 1]):
        table.act(step % 2, call)


@pytest.mark.parametrize(("level", "worth"), [(2, 2), (3, 3), (4, 4)])
def test_truco_accepted_level_is_worth_its_number(level, worth):
    """RULES.md §5.1: truco accepted 2, retruco 3, vale cuatro 4, to the hand's winner."""
    table = Table("valenciano", hands=STRONG_MANO)
    climb(table, level)
    table.act((level + 1) % 2, "quiero")
    table.plays("1E", "4O", "1B", "5O")
    assert table.points() == [("truco", 0, worth)]


def test_truco_joc_fora_accepted_wins_the_whole_cama():
    """RULES.md §5.1: joc fora accepted: the hand's winner scores what it lacks to the target."""
    table = Table("valenciano", scores=(5, 10), hands=STRONG_MANO)
    climb(table, 5)
    table.act(0, "quiero")  # seat 1 called joc fora
    table.plays("1E", "4O", "1B", "5O")
    assert table.points() == [("truco", 0, 19)]
    assert table.state.scores == (24, 10)
    assert table.state.camas == (1, 0)


@pytest.mark.parametrize(("level", "worth"), [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_truco_refused_pays_the_caller_the_level_below(level, worth):
    """RULES.md §5.1: refused truco 1, retruco 2, vale cuatro 3, joc fora 4, to the caller."""
    table = Table("valenciano", hands=STRONG_MANO)
    climb(table, level)
    caller = level % 2  # seat 0 calls the even levels, seat 1 the odd ones
    table.act(1 - caller, "no_quiero")
    assert table.points() == [("truco", caller, worth)]


def test_truco_refusal_ends_the_hand_at_once():
    """RULES.md §5.1: refusing ends the hand at once, before any card."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    table.act(0, "truco")
    table.act(1, "no_quiero")
    assert table.hand.over and table.state.needs_deal
    assert table.turn is None
    assert table.legal(0) == table.legal(1) == set()
    table.rejects(0, "play", "hand_over", card="1E")


def test_truco_vale_cuatro_is_the_argentino_top():
    """RULES.md §5.1: joc fora only with truco_top joc_fora; over vale cuatro only an answer."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    climb(table, 4)
    table.rejects(1, "joc_fora", "raise_not_allowed")
    assert table.legal(1) == {"quiero", "no_quiero"}
    table.act(1, "quiero")
    table.rejects(1, "joc_fora", "not_your_turn")
    table.play(0, "1E")
    table.rejects(1, "joc_fora", "raise_not_allowed")  # on his turn, holding the quiero


def test_truco_joc_fora_over_vale_cuatro_when_the_option_allows():
    """RULES.md §5.1: truco_top joc_fora adds the fifth level under any preset."""
    table = Table("argentino_clasico", truco_top="joc_fora", hands=STRONG_MANO)
    climb(table, 4)
    assert table.legal(1) == {"quiero", "no_quiero", "joc_fora"}
    table.act(1, "joc_fora")
    table.act(0, "no_quiero")
    assert table.points() == [("truco", 1, 4)]


def test_truco_only_the_next_level_may_be_called():
    """RULES.md §5.1: the ladder climbs one level at a time."""
    table = Table("valenciano", hands=STRONG_MANO)
    for call in ("retruco", "vale_cuatro", "joc_fora"):
        table.rejects(0, call, "raise_not_allowed")
    table.act(0, "truco")
    for call in ("truco", "vale_cuatro", "joc_fora"):
        table.rejects(1, call, "raise_not_allowed")


def test_truco_holder_raises_later_on_his_own_turn():
    """RULES.md §5.1: the side holding the quiero may raise later, on one of its members' turns."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    table.act(0, "truco")
    table.act(1, "quiero")
    table.rejects(1, "retruco", "not_your_turn")
    table.play(0, "1E")
    table.act(1, "retruco")
    table.act(0, "quiero")
    assert table.hand.truco_level == 3


def test_truco_caller_may_not_raise_his_own_accepted_call():
    """RULES.md §5.1: a raise belongs to the side that accepted the current level."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    table.act(0, "truco")
    table.act(1, "quiero")
    table.rejects(0, "retruco", "raise_not_allowed")
    assert table.legal(0) == {"play", "mazo"}


def test_truco_a_side_never_raises_twice_in_a_row():
    """RULES.md §5.1: one side never raises twice in a row; the raise right passes to the other."""
    table = Table("valenciano", hands=[["1E", "4C", "1B"], ["4O", "3O", "5O"]])
    table.act(0, "truco")
    table.act(1, "quiero")
    table.play(0, "1E")
    table.act(1, "retruco")
    table.act(0, "quiero")
    table.rejects(1, "vale_cuatro", "raise_not_allowed")
    table.play(1, "4O")  # the mano wins baza 1 and leads
    table.act(0, "vale_cuatro")
    table.act(1, "quiero")
    table.plays("4C", "3O", "5O")  # the pie wins baza 2 and leads baza 3
    table.rejects(0, "joc_fora", "raise_not_allowed")
    assert table.legal(0) == {"play", "mazo"}


def test_truco_raise_while_answering_accepts_the_level_called():
    """RULES.md §5.1: a raise implies accepting the level called."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    table.act(0, "truco")
    table.act(1, "retruco")
    assert table.hand.truco_level == 2
    table.act(0, "no_quiero")
    assert table.points() == [("truco", 1, 2)]


def test_truco_partner_of_the_holder_may_raise_on_his_turn():
    """RULES.md §5.1 with 4 players: any member of the side holding the quiero, on his turn."""
    hands = [["4C", "6C", "7B"], ["5E", "3B", "6E"], ["1E", "5O", "6O"], ["4B", "3E", "5B"]]
    table = Table("argentino_clasico", players=4, hands=hands)
    table.act(0, "truco")
    table.act(3, "quiero")  # any member of the answering side may answer
    assert table.turn == 0
    table.play(0, "4C")
    table.act(1, "retruco")
    table.act(2, "quiero")
    table.plays("5E", "1E")
    table.rejects(3, "vale_cuatro", "raise_not_allowed")


def test_truco_no_card_while_a_call_is_pending():
    """RULES.md §5: no card may be played while a call is pending; the turn then returns."""
    table = Table("argentino_clasico", hands=STRONG_MANO)
    table.play(0, "1E")
    table.act(1, "truco")
    assert table.turn == 0
    table.rejects(0, "play", "call_pending", card="1B")
    table.rejects(1, "play", "call_pending", card="4O")
    table.rejects(1, "quiero", "not_your_turn")  # only the other side answers
    table.act(0, "quiero")
    assert table.turn == 1  # back to the player who was to play


@pytest.mark.parametrize("preset", sorted(E.PRESETS))
def test_truco_valencian_names_are_aliases_under_every_preset(preset):
    """RULES.md §5: truc, retruc, quatre_val, vull, no_vull are accepted under every preset."""
    table = Table(preset, hands=STRONG_MANO, envido_window="first_baza")
    events = table.act(0, "truc")
    events += table.act(1, "retruc")
    events += table.act(0, "quatre_val")
    events += table.act(1, "vull")
    assert [event.to_json()["call"] for event in events[:3]] == ["truco", "retruco", "vale_cuatro"]
    assert table.hand.truco_level == 4
    table = Table(preset, hands=STRONG_MANO, envido_window="first_baza")
    table.act(0, "truc")
    table.act(1, "no_vull")
    assert table.points() == [("truco", 0, 1)]
