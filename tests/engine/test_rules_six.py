"""RULES.md §9 (with §1, §4-§6): six-player tables, 3 against 3, and the pica-pica hands played as
three duels on one deal."""

from __future__ import annotations

import pytest

from games import engine as E
from games.engine.events import DuelEnded, DuelStarted, HandDealt, HandEnded

from .helpers import Table

#: Seat 0 holds the two top cards; no flores.
SIX = [
    ["1E", "1B", "4C"],
    ["7E", "6E", "4B"],
    ["5C", "6C", "7C"],
    ["4O", "5O", "10E"],
    ["2C", "3O", "12B"],
    ["5B", "6B", "7B"],
]


def pica(preset: str = "argentino_clasico", scores=(0, 0), hands=SIX, **options) -> Table:
    table = Table(preset, players=6, scores=scores, pica_pica=True, **options)
    table._apply([E.deal_hands(table.state, hands, "pica_pica")])
    return table


def deck_for(hands: list[list[str]], mano: int, deck_name: str = "spanish40") -> list[str]:
    """A whole deck whose deal gives ``hands`` (by seat) when ``mano`` is the mano (§1)."""
    players = len(hands)
    dealt = [hands[(mano + place) % players][place // players] for place in range(3 * players)]
    return dealt + [card for card in E.DECKS[deck_name] if card not in dealt]


# --- the table ------------------------------------------------------------------------------------


def test_six_sides_alternate_and_the_deal_goes_round_from_the_mano():
    """§1, §9: side = seat mod 2; the dealer is seat 5 and seat 0 the mano of the first hand."""
    assert [E.side_of(seat) for seat in range(6)] == [0, 1, 0, 1, 0, 1]
    table = Table("argentino", players=6)
    deck = list(E.DECKS["spanish40"])
    table.deal_deck(deck)
    hand = table.hand
    assert (hand.dealer, hand.mano) == (5, 0)
    assert hand.dealt[0] == (deck[0], deck[6], deck[12]) and hand.dealt[5][2] == deck[17]


def test_six_a_baza_has_six_cards_and_every_seat_plays_in_order():
    table = Table("argentino_clasico", players=6, hands=SIX)
    for seat, card in enumerate(["4C", "4B", "5C", "4O", "2C", "5B"]):
        assert table.turn == seat
        table.play(seat, card)
    assert table.hand.results == (0,) and table.turn == 4  # seat 4's 2C won it for side 0


def test_six_any_member_of_the_answering_side_answers_and_binds_it():
    table = Table("argentino_clasico", players=6, hands=SIX)
    table.act(0, "truco")
    assert table.turn == 1
    assert table.legal(3) == table.legal(5) == table.legal(1)
    table.act(5, "quiero")
    assert table.hand.truco_holder == 1 and table.turn == 0


def test_six_the_side_concedes_fold_takes_out_all_three():
    table = Table("argentino", players=6, hands=SIX)
    for seat in range(6):
        table.act(seat, "paso")
    table.play(0, "4C")
    table.act(1, "mazo")
    assert table.hand.over and table.points() == [("truco", 0, 1)]


def test_six_partner_continues_needs_all_three_folds():
    table = Table(
        "valenciano",
        players=6,
        hands=[
            ["7E", "7O", "3O"],
            ["4C", "5C", "6C"],
            ["3C", "3B", "7C"],
            ["4O", "5O", "6O"],
            ["1E", "1B", "3E"],
            ["4B", "5B", "6B"],
        ],
    )
    table.act(0, "mazo")
    table.play(1, "4C")
    table.act(2, "mazo")
    assert not table.hand.over and table.turn == 3
    table.play(3, "4O")
    table.act(4, "mazo")
    assert table.hand.over and table.points() == [("truco", 1, 1)]


# --- pica-pica: the kind of each hand -------------------------------------------------------------


def redonda_folded_by_the_mano(table: Table) -> None:
    """An argentino redonda of SIX (hand 1): everyone passes, the mano folds: 1 to side 1."""
    table.deal(SIX)
    for seat in range(6):
        table.act(seat, "paso")
    table.act(0, "mazo")
    assert table.hand.over


def test_pica_hand_kinds_alternate_while_the_leader_lacks_more_than_five():
    """§9: the first hand of a cama is a redonda; after a redonda a pica-pica hand while the
    leading score is below target - 5; the deal records the kind."""
    table = Table("argentino", players=6, pica_pica=True)
    assert E.next_hand_kind(table.state) == "redonda"
    redonda_folded_by_the_mano(table)
    assert table.events[1] == HandDealt(1, 5, tuple(map(tuple, SIX)), "redonda")
    assert E.next_hand_kind(table.state) == "pica_pica"
    [deal] = table.deal_deck(E.DECKS["spanish40"])
    assert isinstance(deal, HandDealt) and deal.kind == "pica_pica" and table.hand.duel == 0
    assert table.hand.duelists == (1, 4)  # the new mano's duel: seat 1 against seat 4


@pytest.mark.parametrize(
    ("scores", "kind"), [((25, 0), "redonda"), ((0, 24), "redonda"), ((23, 20), "pica_pica")]
)
def test_pica_no_duels_once_the_leader_is_five_or_fewer_short(scores, kind):
    """After the redonda (+1 to side 1) the leader has 25, 25 or 23 of 30."""
    table = Table("argentino", players=6, scores=scores, pica_pica=True)
    redonda_folded_by_the_mano(table)
    assert E.next_hand_kind(table.state) == kind


def test_pica_never_without_the_option_and_never_after_a_pica_hand():
    plain = Table("argentino", players=6, hands=SIX)
    plain.act(0, "paso")
    assert E.next_hand_kind(plain.state) == "redonda"
    table = pica()
    table.act(0, "mazo")
    table.act(1, "mazo")
    table.act(2, "mazo")
    assert table.hand.over and E.next_hand_kind(table.state) == "redonda"


@pytest.mark.parametrize(
    ("players", "options", "scores"),
    [(6, {}, (0, 0)), (6, {"pica_pica": True}, (25, 0)), (6, {"pica_pica": True}, (0, 27))],
)
def test_pica_a_dealt_pica_hand_needs_the_option_and_room_below_the_target(
    players, options, scores
):
    table = Table("argentino", players=players, scores=scores, **options)
    with pytest.raises(E.InvalidAction):
        E.deal_hands(table.state, SIX, "pica_pica")


# --- pica-pica: the duels -------------------------------------------------------------------------


def test_pica_only_the_duelists_act():
    table = pica()
    for seat in (1, 2, 4, 5):
        assert table.legal(seat) == set()
        table.rejects(seat, "play", code="not_in_duel", card=SIX[seat][0])
        table.rejects(seat, "truco", code="not_in_duel")
    assert table.turn == 0 and table.hand.duelists == (0, 3)


def test_pica_each_duel_is_scored_when_it_ends_and_the_next_starts_fresh():
    table = pica()
    table.act(0, "truco")
    table.act(3, "quiero")
    table.plays("1E", "4O", "1B", "5O")
    assert table.state.scores == (2, 0) and table.hand.duel == 1 and not table.hand.over
    hand = table.hand
    assert (hand.truco_level, hand.results, hand.bazas, hand.folded) == (1, (), (), frozenset())
    assert hand.earlier_duels == (((0, "1E"), (3, "4O"), (0, "1B"), (3, "5O")),)
    assert table.turn == 1 and table.hand.duelists == (1, 4)
    starts = [event for event in table.events if isinstance(event, DuelStarted)]
    assert starts == [DuelStarted(1, (1, 4))]


def test_pica_a_fold_ends_only_the_duel_even_with_side_concedes():
    table = pica()
    table.act(0, "mazo")  # argentino_clasico: the envido window is open: 1 + 1
    assert table.state.scores == (0, 2) and table.hand.duel == 1
    assert table.hand.folded == frozenset()
    ended = [event for event in table.events if isinstance(event, DuelEnded)]
    assert ended == [DuelEnded(0, 1, "mazo", (("truco", 1, 1), ("mazo_penalty", 1, 1)), (0, 2))]


def test_pica_the_hand_ends_after_duel_2_with_every_duels_points():
    table = pica()
    for seat in (0, 1, 2):
        table.act(seat, "mazo")
    assert table.hand.over and table.hand.duel == 2
    [ended] = [event for event in table.events if isinstance(event, HandEnded)]
    assert (ended.winner, ended.reason, ended.points, ended.scores) == (None, "duels", (), (2, 4))
    assert len(table.hand.duel_points) == 6  # truco and penalty of each duel, for the record


def test_pica_the_remaining_duels_are_not_played_once_a_side_has_the_target():
    """§9: at 20-23 seat 3's falta envido (29 against 4) is worth 7 and ends the cama in duel 0."""
    table = pica(scores=(20, 23))
    table.act(0, "envido")
    table.act(3, "falta_envido")
    table.act(0, "quiero")
    assert table.hand.over and table.hand.duel == 0 and table.state.scores == (20, 30)
    assert table.state.winner == 1
    assert not [event for event in table.events if isinstance(event, DuelStarted)]


def test_pica_envido_and_its_ties_are_the_duelists_own():
    """§9: the duel's mano wins ties; the partners' envidos do not count."""
    hands = [
        ["4C", "5O", "6B"],
        ["7C", "3C", "12E"],
        ["1E", "2E", "3E"],
        ["4E", "5E", "6E"],
        ["6O", "4O", "10B"],
        ["1B", "2B", "3B"],
    ]
    table = pica(hands=hands)
    table.act(0, "mazo")
    table.act(1, "envido")
    table.act(4, "quiero")
    assert (table.hand.envido_winner, table.hand.envido_value) == (1, 30)


def test_pica_the_falta_of_a_later_duel_uses_the_score_as_it_stands():
    table = pica("argentino", scores=(10, 12))
    table.act(0, "paso")
    table.act(3, "paso")
    table.act(0, "truco")
    table.act(3, "quiero")
    table.plays("1E", "4O", "1B", "5O")
    assert table.state.scores == (12, 12)
    table.act(1, "falta_envido")
    table.act(4, "quiero")  # nobody in buenas: the winner (side 1 at 12) is brought up to 15
    assert table.hand.envido_points == (1, 3)


def test_pica_joc_fora_is_worth_what_the_duels_winner_lacks():
    valencian = [
        ["1E", "1B", "4C"],
        ["7E", "6E", "4B"],
        ["5C", "6C", "7C"],
        ["4O", "5O", "3E"],
        ["3C", "3O", "4E"],
        ["5B", "6B", "7B"],
    ]
    table = pica("valenciano", scores=(5, 10), hands=valencian)
    for seat, call in ((0, "truc"), (3, "retruc"), (0, "quatre_val"), (3, "joc_fora")):
        table.act(seat, call)
    table.act(0, "vull")
    table.plays("1E", "4O", "1B", "5O")
    assert table.state.scores[0] == 24 and table.state.camas == (1, 0)


def test_pica_the_flor_is_sung_in_its_holders_duel_only():
    hands = [
        ["4C", "5O", "6B"],
        ["1C", "2C", "3C"],
        ["7E", "6E", "4B"],
        ["4O", "7O", "10E"],
        ["4E", "5E", "12B"],
        ["1B", "2B", "3B"],
    ]
    table = pica(hands=hands, flor=True)
    assert table.legal(0) == {"play", "truco", "envido", "real_envido", "falta_envido", "mazo"}
    table.rejects(1, "flor", code="not_in_duel")
    table.act(0, "mazo")
    assert table.legal(1) == {"flor"}
    table.act(1, "flor")
    assert table.turn == 1 and table.hand.flor_winner == 1  # seat 4 holds none
    table.act(1, "mazo")
    assert table.state.scores == (1, 2 + 3)  # duel 0: 1 + 1 to side 1; duel 1: flor 3, mazo 1
    assert table.legal(2) == {"play", "truco", "envido", "real_envido", "falta_envido", "mazo"}
    table.rejects(5, "play", code="not_your_turn", card="1B")
    assert E.timeout_action(table.state)[0] == 2


def test_pica_views_show_the_duel():
    table = pica()
    view = E.view_for(table.state, 4)["hand"]
    assert (view["kind"], view["duel"], view["duelists"], view["earlier_duels"]) == (
        "pica_pica",
        0,
        [0, 3],
        [],
    )
    assert E.view_for(table.state, 4)["legal_actions"] == []
    table.act(0, "mazo")
    view = E.view_for(table.state, None)["hand"]
    assert (view["duel"], view["duelists"]) == (1, [1, 4])


def test_pica_replays_and_restores_across_duels():
    table = Table("argentino", players=6, pica_pica=True)
    table.deal_deck(deck_for(SIX, 0))
    for seat in range(6):
        table.act(seat, "paso")
    table.act(0, "mazo")
    snapshot = E.snapshot(table.state)
    start = len(table.events)
    table.deal_deck(deck_for(SIX, 1))
    assert table.hand.kind == "pica_pica"
    table.act(1, "paso")
    table.act(4, "paso")
    table.act(1, "mazo")
    assert table.hand.duel == 1 and table.hand.duelists == (2, 5)
    tail = table.events[start:]
    restored = E.restore(snapshot)
    for event in tail:
        restored = E.evolve(restored, E.event_from_json(event.to_json()))
    assert restored == table.state == E.replay(table.events)
