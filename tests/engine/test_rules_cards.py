"""RULES.md §3: the two decks, the truco ranking and the envido value of a hand."""

from __future__ import annotations

from itertools import combinations, product

import pytest

from games import engine as E

from .helpers import Table

SUITS = "EBOC"

#: RULES.md §3 "Truco rank, high to low"; cards on one line tie.
TRUCO_LINES = [
    ["1E"],
    ["1B"],
    ["7E"],
    ["7O"],
    [f"3{suit}" for suit in SUITS],
    [f"2{suit}" for suit in SUITS],
    ["1O", "1C"],
    [f"12{suit}" for suit in SUITS],
    [f"11{suit}" for suit in SUITS],
    [f"10{suit}" for suit in SUITS],
    ["7C", "7B"],
    [f"6{suit}" for suit in SUITS],
    [f"5{suit}" for suit in SUITS],
    [f"4{suit}" for suit in SUITS],
]


def first_baza(mano_card: str, pie_card: str) -> object:
    """The result of a first baza where the mano plays ``mano_card`` and the pie ``pie_card``."""
    spare = [card for card in E.DECKS["spanish40"] if card not in (mano_card, pie_card)]
    table = Table("argentino_clasico", hands=[[mano_card, *spare[:2]], [pie_card, *spare[2:4]]])
    table.plays(mano_card, pie_card)
    return table.hand.results[0]


def test_spanish40_deck_holds_every_rank_of_every_suit():
    """RULES.md §3: spanish40 is 1–7, 10, 11, 12 of each suit."""
    ranks = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    deck = E.DECKS["spanish40"]
    assert len(deck) == 40
    assert set(deck) == {f"{rank}{suit}" for rank in ranks for suit in SUITS}


def test_valencian22_deck_holds_black_aces_and_threes_to_sevens():
    """RULES.md §3: valencian22 is 1E, 1B and 3–7 of every suit: no 2s, no figures."""
    deck = E.DECKS["valencian22"]
    assert len(deck) == 22
    assert set(deck) == {"1E", "1B"} | {f"{rank}{suit}" for rank in range(3, 8) for suit in SUITS}


def test_deal_refuses_cards_outside_the_games_deck():
    """RULES.md §3: the valenciano preset plays with the 22-card deck only."""
    table = Table("valenciano")
    with pytest.raises(E.InvalidAction):
        E.deal_hands(table.state, [["2E", "3E", "4E"], ["5E", "6E", "7E"]])
    with pytest.raises(E.InvalidAction):
        E.deal_hands(table.state, [["12O", "3E", "4E"], ["5E", "6E", "7E"]])


@pytest.mark.parametrize("line", range(len(TRUCO_LINES) - 1))
def test_truco_rank_each_line_beats_the_next(line):
    """RULES.md §3: every card of a line beats every card of the line below, whoever plays first."""
    for higher, lower in product(TRUCO_LINES[line], TRUCO_LINES[line + 1]):
        assert first_baza(higher, lower) == 0, f"{higher} should beat {lower}"
        assert first_baza(lower, higher) == 1, f"{higher} should beat {lower}"


@pytest.mark.parametrize("line", [line for line in TRUCO_LINES if len(line) > 1])
def test_truco_rank_cards_of_one_line_tie(line):
    """RULES.md §3 and §4.1: cards on one line tie, so the baza is parda."""
    for first, second in combinations(line, 2):
        assert first_baza(first, second) == "parda"
        assert first_baza(second, first) == "parda"


def test_truco_rank_holds_in_the_valencian_deck():
    """RULES.md §3: the 22-card deck keeps the ranking, it only lacks some cards."""
    table = Table("valenciano", hands=[["7O", "7C", "1B"], ["7E", "7B", "1E"]])
    table.plays("7O", "7E")  # 7E beats 7O: the pie wins and leads
    table.plays("1E", "1B")
    assert table.hand.results == (1, 1)


@pytest.mark.parametrize(
    ("cards", "value"),
    [
        (["7E", "6E", "12B"], 33),  # the maximum: 7 and 6 of one suit
        (["7C", "6C", "5C"], 33),  # three of a suit: the two highest count
        (["7C", "5C", "4C"], 32),
        (["10O", "4O", "1E"], 24),  # a figure counts 0 but makes a pair
        (["12C", "11C", "10C"], 20),  # three figures of one suit
        (["1C", "12C", "2B"], 21),  # an ace counts 1
        (["7E", "4B", "12O"], 7),  # no pair: the highest single card
        (["12E", "11B", "10O"], 0),  # single figures are worth 0
        (["3E", "5O", "2B"], 5),
        (["1E", "3E", "7O"], 24),  # the 22-card deck: 7O alone is ignored
    ],
)
def test_envido_of_hand(cards, value):
    """RULES.md §3: 20 + the two highest of a suit held twice or more, else the best single card."""
    assert E.envido_of(cards) == value


def test_envido_of_never_exceeds_33():
    """RULES.md §3: the maximum envido is 33."""
    assert max(E.envido_of(cards) for cards in combinations(E.DECKS["spanish40"], 3)) == 33
