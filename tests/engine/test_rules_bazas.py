"""RULES.md §4: bazas, pardas, who leads, and the hand winner from the results."""

from __future__ import annotations

import pytest

from .helpers import Table

#: (mano's card, pie's card) per baza and outcome: M the mano wins it, P the pie, = parda.
CARDS = [
    {"M": ("1E", "4C"), "P": ("4C", "1E"), "=": ("3E", "3O")},
    {"M": ("1B", "4B"), "P": ("4B", "1B"), "=": ("2E", "2O")},
    {"M": ("7E", "4O"), "P": ("4O", "7E"), "=": ("12E", "12O")},
]
SIDE = {"M": 0, "P": 1, "=": "parda"}

#: RULES.md §4.3, line by line: the bazas as they fall, and the side that wins the hand.
BOTH_MODES = [
    ("MM", 0),  # two bazas won by one side
    ("PP", 1),
    ("M=", 0),  # r1 won by X, r2 parda -> X
    ("P=", 1),
    ("MPM", 0),  # r1 and r2 split -> r3 decides
    ("MPP", 1),
    ("PMP", 1),
    ("PMM", 0),
    ("MP=", 0),  # ... and a parda r3 goes to the winner of r1
    ("PM=", 1),
]
NEXT_DECIDES = [
    ("=M", 0),  # r1 parda: the next non-parda baza decides
    ("=P", 1),
    ("==M", 0),
    ("==P", 1),
    ("===", 0),  # three pardas -> the mano's side
]
MANO_WINS = [
    ("=M", 0),  # r1 parda counts as won by the mano's side, which wins r2
    ("==", 0),  # ... or r2 is parda
    ("=PM", 0),  # the other side wins r2: r3 decides
    ("=PP", 1),
    ("=P=", 0),  # ... and a parda r3 goes to the mano's side
]


def play_out(first_parda: str, outcomes: str) -> Table:
    """A 2-player hand (seat 0 the mano) whose bazas fall as ``outcomes`` says."""
    pairs = [CARDS[index][outcome] for index, outcome in enumerate(outcomes)]
    spare = [CARDS[index]["M"] for index in range(len(pairs), 3)]
    hands = [[pair[seat] for pair in pairs + spare] for seat in (0, 1)]
    table = Table("argentino_clasico", hands=hands, first_parda=first_parda)
    for pair in pairs:
        assert not table.hand.over, "the hand ended before its last baza"
        for _ in range(2):
            seat = table.turn
            table.play(seat, pair[seat])
    return table


@pytest.mark.parametrize(
    ("first_parda", "outcomes", "winner"),
    [("next_decides", *case) for case in BOTH_MODES + NEXT_DECIDES]
    + [("mano_wins", *case) for case in BOTH_MODES + MANO_WINS],
)
def test_hand_winner_from_baza_results(first_parda, outcomes, winner):
    """RULES.md §4.3: the hand winner from r1, r2, r3; the hand ends once decided (§4.4)."""
    table = play_out(first_parda, outcomes)
    assert table.hand.results == tuple(SIDE[outcome] for outcome in outcomes)
    assert table.hand.over
    assert table.points() == [("truco", winner, 1)]


def test_hand_three_pardas_go_to_the_mano_side_when_the_mano_is_seat_1():
    """RULES.md §4.3: three pardas -> the mano's side, whichever seat is mano."""
    table = Table("argentino_clasico", hands=[["1E", "4C", "5C"], ["1B", "4O", "5O"]])
    table.act(0, "mazo")
    table.deal([["3E", "2E", "12E"], ["3O", "2O", "12O"]])  # dealer 0, so seat 1 is mano
    assert table.turn == 1
    table.plays("3O", "3E", "2O", "2E", "12O", "12E")
    assert table.hand.results == ("parda", "parda", "parda")
    assert table.points() == [("truco", 1, 1)]


def test_hand_mano_wins_parda_counts_for_the_mano_when_the_mano_is_seat_1():
    """RULES.md §4.3 mano_wins: r1 parda counts as won by the mano's side, here side 1."""
    table = Table(
        "argentino_clasico", first_parda="mano_wins", hands=[["1E", "4C", "5C"], ["1B", "4O", "5O"]]
    )
    table.act(0, "mazo")
    table.deal([["3E", "2E", "12E"], ["3O", "2O", "12O"]])
    table.plays("3O", "3E", "2O", "2E")
    assert table.hand.results == ("parda", "parda")
    assert table.points() == [("truco", 1, 1)]


def test_baza_winner_leads_the_next_baza():
    """RULES.md §4.2: the baza winner leads the next baza."""
    table = Table("argentino_clasico", hands=[["4E", "1B", "5C"], ["1E", "4O", "5O"]])
    table.plays("4E", "1E")
    assert table.turn == 1
    table.rejects(0, "play", "not_your_turn", card="1B")


def test_baza_parda_is_led_again_by_its_leader_not_by_the_first_top_card():
    """RULES.md §4.2: after a parda, the player who led the parda baza leads again."""
    hands = [["4C", "6C", "7B"], ["3E", "6E", "5B"], ["3O", "6O", "5O"], ["4B", "5E", "5C"]]
    table = Table("argentino_clasico", players=4, hands=hands)
    table.plays("4C", "3E", "3O", "4B")  # seats 1 and 2 tie on top: parda, led by seat 0
    assert table.hand.results == ("parda",)
    assert table.turn == 0


def test_baza_parda_leader_who_folded_passes_the_lead_to_the_next_active_player():
    """RULES.md §4.2: if the parda's leader has folded, the next active player after him leads."""
    hands = [["4C", "6C", "7B"], ["3E", "6E", "5B"], ["3O", "6O", "5O"], ["4B", "5E", "5C"]]
    table = Table("valenciano", players=4, hands=hands)
    table.plays("4C", "3E", "3O", "4B")
    table.act(0, "mazo")  # partner_continues: only seat 0 is out
    assert table.turn == 1


def test_baza_partners_tying_win_it_for_their_side_and_the_first_in_its_order_leads():
    """RULES.md §4.1: a top rank played only by one side wins; the first in this baza's order
    who played it is the baza winner."""
    hands = [["4C", "6C", "7B"], ["5E", "3B", "6E"], ["1E", "5O", "6O"], ["4B", "3E", "5B"]]
    table = Table("argentino_clasico", players=4, hands=hands)
    table.plays("4C", "5E", "1E", "4B")  # seat 2 wins baza 1 and leads baza 2: 2, 3, 0, 1
    table.plays("5O", "3E", "6C", "3B")  # partners 3 and 1 share the top rank
    assert table.hand.results == (0, 1)
    assert table.turn == 3


def test_third_baza_is_not_played_once_the_hand_is_decided():
    """RULES.md §4.4: a baza that can no longer change the result is not played."""
    table = Table("argentino_clasico", hands=[["1E", "1B", "4C"], ["4O", "5O", "6O"]])
    table.plays("1E", "4O", "1B", "5O")
    assert table.hand.over and table.state.needs_deal
    assert table.hand.held == (("4C",), ("6O",))
    table.rejects(1, "play", "hand_over", card="6O")


def test_baza_order_with_4_players_is_seat_order_from_the_leader():
    """RULES.md §4.1: the leader plays, then each other player in seat order."""
    hands = [["4C", "5C", "6C"], ["4E", "5E", "6E"], ["1E", "5O", "6O"], ["4B", "5B", "6B"]]
    table = Table("argentino_clasico", players=4, hands=hands)
    for seat in range(4):
        for other in set(range(4)) - {seat}:
            table.rejects(other, "play", "not_your_turn", card=hands[other][2])
        table.play(seat, hands[seat][0])
    assert table.hand.results == (0,)
    assert table.turn == 2  # seat 2 won and leads: 2, 3, 0, 1
    table.plays("5O", "5B", "5C", "5E")
    assert [seat for seat, _ in table.hand.bazas[1]] == [2, 3, 0, 1]
