"""RULES.md §1 and §7: scoring at the end of a hand, camas, the match, and the dealer's rotation."""

from __future__ import annotations

import pytest

from games import engine as E
from games.engine.actions import CANONICAL

from .helpers import Table

#: The mano (seat 0) wins the first two bazas; the cards are in both decks.
STRONG_MANO = [["1E", "1B", "4C"], ["4O", "5O", "6O"]]


def mano_wins_with(table: Table, call: str | None = None) -> None:
    if call:
        table.act(0, call)
        table.act(1, "quiero")
    table.plays("1E", "4O", "1B", "5O")


@pytest.mark.parametrize(
    ("scores", "call"), [((29, 0), None), ((28, 3), "truco"), ((27, 3), "truco")]
)
def test_scores_are_capped_at_the_target(scores, call):
    """RULES.md §7: scores are capped at the target."""
    table = Table("argentino_clasico", scores=scores, hands=STRONG_MANO)
    mano_wins_with(table, call)
    assert table.state.scores == (min(30, scores[0] + (2 if call else 1)), scores[1])


def test_points_after_the_target_is_reached_are_ignored():
    """RULES.md §7: later points of the hand that won the cama are ignored."""
    table = Table("argentino_clasico", scores=(29, 29), hands=STRONG_MANO)
    table.play(0, "1E")
    table.act(1, "mazo")  # 1 to the mano reaches 30; the penalty point is not scored
    assert table.points() == [("truco", 0, 1)]
    assert table.state.scores == (30, 29)


def test_cama_won_counts_a_cama_and_the_scores_reset_at_the_next_deal():
    """RULES.md §7: the cama's winner counts a cama; both scores reset to 0 at the next deal."""
    table = Table("valenciano", scores=(23, 20), hands=STRONG_MANO)
    mano_wins_with(table)
    assert (table.state.scores, table.state.camas) == ((24, 20), (1, 0))
    assert table.state.needs_deal and not table.state.match_over
    table.deal(STRONG_MANO)
    assert (table.state.scores, table.state.camas) == ((0, 0), (1, 0))


@pytest.mark.parametrize(
    ("preset", "options", "camas", "over"),
    [
        ("valenciano", {}, (0, 0), False),  # best of 3: one cama is not enough
        ("valenciano", {}, (1, 0), True),
        ("valenciano", {}, (1, 1), True),
        ("argentino_clasico", {}, (0, 0), True),  # argentino plays one cama
        ("argentino_clasico", {"camas_to_win": 3}, (1, 0), False),
        ("argentino_clasico", {"camas_to_win": 3}, (2, 1), True),
    ],
)
def test_match_is_won_by_the_first_side_to_camas_to_win(preset, options, camas, over):
    """RULES.md §2 and §7: the first side to camas_to_win camas wins the match."""
    target = E.resolve_rules(preset, options).target
    table = Table(preset, scores=(target - 1, 0), camas=camas, hands=STRONG_MANO, **options)
    mano_wins_with(table)
    assert table.state.camas == (camas[0] + 1, camas[1])
    assert table.state.match_over is over
    assert table.state.winner == (0 if over else None)
    assert table.state.needs_deal is not over


@pytest.mark.parametrize("players", [2, 4])
def test_dealer_rotates_one_seat_each_hand_and_across_camas(players):
    """RULES.md §1: mano = dealer + 1; next hand the old mano deals, also after a cama ends."""
    table = Table("argentino_clasico", players=players, scores=(0, 29), camas_to_win=5)
    hands = [["1E", "1B", "4C"], ["4O", "5O", "6O"], ["7E", "7O", "4E"], ["5E", "6E", "4B"]]
    for number in range(2 * players + 1):
        table.deal(hands[:players])
        dealer = (players - 1 + number) % players
        assert (table.hand.dealer, table.hand.mano) == (dealer, (dealer + 1) % players)
        assert table.turn == table.hand.mano
        table.act(table.hand.mano, "mazo")
        if number == 0:
            assert table.state.camas == (0, 1)  # the first fold ended a cama; the match goes on


def test_deal_gives_one_card_at_a_time_starting_with_the_mano():
    """RULES.md §1: 3 cards each, one at a time, starting with the mano."""
    table = Table("argentino_clasico", players=4)
    deck = list(E.DECKS["spanish40"])
    table.deal_deck(deck)
    assert table.hand.held == tuple(tuple(deck[seat:12:4]) for seat in range(4))
    table.act(0, "mazo")
    table.deal_deck(deck)  # dealer 0: seat 1 is mano and gets the first card
    assert table.hand.held[1] == tuple(deck[0:12:4])
    assert table.hand.held[0] == tuple(deck[3:12:4])


def test_match_over_rejects_every_action():
    """RULES.md §7 and §8: after the match has ended every action is rejected with match_over."""
    table = Table("argentino_clasico", scores=(29, 0), hands=STRONG_MANO)
    mano_wins_with(table)
    assert table.state.match_over and not table.state.needs_deal
    assert table.turn is None
    for seat in (0, 1):
        assert table.legal(seat) == set()
        for name in CANONICAL:
            card = "4C" if name == "play" else None
            table.rejects(seat, name, "match_over", card=card)
    with pytest.raises(E.IllegalAction):
        E.deal_hands(table.state, STRONG_MANO)
