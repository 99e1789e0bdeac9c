"""RULES.md §5.3: the flor — compulsory singing, the flor round, the flor going first, settling,
the contest's table, scoring and folding; with the views and the clock's choice (§8)."""

from __future__ import annotations

import pytest

from games import engine as E
from games.engine.events import FlorSettled, HandEnded

from .helpers import Table

#: The mano holds a flor of 27 (7, sota, rey of oros), the pie one of 35 (4, 5, 6 of bastos).
BOTH = [["7O", "12O", "10O"], ["4B", "5B", "6B"]]
#: Only the pie holds flor (26: 1, 2, 3 of espadas); the mano has 29 for the envido.
PIE_ONLY = [["4C", "5C", "6B"], ["1E", "2E", "3E"]]
#: Only the mano holds flor (38), the pie none.
MANO_ONLY = [["7E", "6E", "5E"], ["1B", "2C", "3O"]]
#: Six players (conformance six-15): seats 0, 1 and 2 hold flores of 35, 26 and 27.
THREE_FLORES = [
    ["4B", "5B", "6B"],
    ["1C", "2C", "3C"],
    ["7O", "12O", "10O"],
    ["5E", "6O", "12E"],
    ["4E", "2O", "11B"],
    ["6C", "3O", "10E"],
]


def flor_table(hands, preset="argentino_clasico", players=2, **options) -> Table:
    return Table(preset, players=players, hands=hands, flor=True, **options)


def settled(table: Table) -> FlorSettled:
    [event] = [event for event in table.events if isinstance(event, FlorSettled)]
    return event


# --- 1. singing is compulsory ---------------------------------------------------------------------


def test_flor_off_every_flor_action_is_refused_as_flor_off():
    """§2/§8: without the option the flor's actions do not exist in the game."""
    table = Table("argentino_clasico", hands=MANO_ONLY)
    for name in ("flor", "contraflor", "contraflor_al_resto", "con_flor_me_achico"):
        table.rejects(0, name, code="flor_off")
    assert table.legal(0) == {"play", "truco", "envido", "real_envido", "falta_envido", "mazo"}


@pytest.mark.parametrize(
    ("name", "card"),
    [("play", "7E"), ("truco", None), ("envido", None), ("falta_envido", None), ("mazo", None)],
)
def test_flor_a_holder_does_nothing_before_singing(name, card):
    """§5.3.1: until he has sung, no other action is accepted from him (flor_first)."""
    table = flor_table(MANO_ONLY)
    table.rejects(0, name, code="flor_first", card=card)
    assert table.legal(0) == {"flor"}


def test_flor_in_the_envido_phase_the_holder_sings_instead_of_passing():
    table = flor_table(PIE_ONLY, preset="argentino")
    table.act(0, "paso")
    table.rejects(1, "paso", code="flor_first")
    assert table.legal(1) == {"flor"}
    table.act(1, "flor")
    assert table.hand.phase_turn is None and table.turn == 0  # the phase is over (§5.3.3)
    assert table.legal(0) == {"play", "truco", "mazo"}


def test_flor_only_a_holder_sings_and_only_once():
    """§5.3.1: no_flor without a flor, or twice."""
    table = flor_table(MANO_ONLY)
    table.act(0, "flor")
    table.rejects(0, "flor", code="no_flor")
    table.play(0, "7E")
    table.rejects(1, "flor", code="no_flor")


def test_flor_a_holder_sings_only_when_he_could_act():
    table = flor_table(PIE_ONLY)
    table.rejects(1, "flor", code="not_your_turn")  # the mano's turn
    table.play(0, "4C")
    table.act(1, "flor")


def test_flor_an_unsung_flor_restricts_its_holder_alone():
    """§8: a partner of a holder still answers for the side; the holder only sings."""
    hands = [["4C", "5O", "6B"], ["1E", "2E", "3E"], ["12B", "4O", "6C"], ["4E", "5B", "7C"]]
    table = flor_table(hands, players=4)
    table.act(0, "truco")
    assert table.legal(1) == {"flor"}
    assert table.legal(3) == {"quiero", "no_quiero", "retruco", "envido", "real_envido"} | {
        "falta_envido"
    }
    table.act(3, "quiero")  # binds side 1; seat 1 sings when he is next able to act
    assert table.hand.flor_sung == ()
    table.play(0, "4C")
    table.rejects(1, "play", code="flor_first", card="1E")
    table.act(1, "flor")
    assert settled(table).winner == 1


# --- 2. the flor round ----------------------------------------------------------------------------


def test_flor_round_the_other_holders_sing_in_playing_order_after_the_first():
    """§5.3.2: seat 1 sings first, at his turn; then seats 2, 3 and 5, in playing order."""
    hands = [
        ["4C", "5O", "7B"],
        ["1C", "2C", "3C"],
        ["1E", "2E", "3E"],
        ["4B", "5B", "6B"],
        ["7O", "12B", "10C"],
        ["4O", "6O", "11O"],
    ]
    table = flor_table(hands, players=6)
    table.play(0, "4C")
    table.rejects(1, "play", code="flor_first", card="1C")
    table.act(1, "flor")  # the first; seats 2, 3 and 5 follow in playing order
    for seat in (2, 3, 5):
        assert table.turn == seat
        for other in range(6):
            if other != seat:
                table.rejects(other, "play", code="flor_pending", card=hands[other][-1])
        assert table.legal(seat) == {"flor"}
        table.act(seat, "flor")
    assert table.hand.flor_sung == (1, 2, 3, 5)
    assert table.hand.flor_pending and table.turn == 2  # side 0 answers side 1's flor


# --- 3. the flor goes first -----------------------------------------------------------------------


def test_flor_cancels_a_pending_envido_and_closes_it():
    table = flor_table(PIE_ONLY)
    table.act(0, "envido")
    table.rejects(1, "quiero", code="flor_first")
    table.act(1, "flor")
    hand = table.hand
    assert not hand.envido_pending and hand.envido_points is None and table.turn == 0
    table.rejects(0, "envido", code="envido_closed")
    table.act(0, "mazo")
    assert table.points() == [("flor", 1, 3), ("truco", 1, 1)]  # no mazo penalty (§5.3.7)


def test_flor_annuls_a_settled_envido():
    hands = [["4C", "5O", "6B"], ["7O", "6O", "1C"], ["12B", "11B", "10B"], ["4E", "5B", "6C"]]
    table = flor_table(hands, players=4)
    table.act(0, "envido")
    table.act(1, "quiero")
    assert table.hand.envido_winner == 1
    table.plays("4C", "1C")
    table.act(2, "flor")
    hand = table.hand
    assert (hand.envido_winner, hand.envido_value, hand.envido_points) == (None, None, None)
    table.plays("12B", "4E", "7O", "11B", "5B", "5O")
    assert [kind for kind, _, _ in table.points()] == ["flor", "truco"]


def test_flor_a_truco_suspended_by_the_cancelled_envido_is_pending_again_for_its_side():
    """§5.3.3: truco, an envido over it, a flor over the envido: the truco returns to side 1."""
    hands = [["4C", "5O", "6B"], ["7O", "6O", "1C"], ["12B", "11B", "10B"], ["4E", "5B", "6C"]]
    table = flor_table(hands, players=4)
    table.act(0, "truco")
    table.act(1, "envido")
    table.act(2, "flor")  # answers the envido (his side's to answer) by singing
    hand = table.hand
    assert hand.pending_ladder == "truco" and hand.truco_caller == 0 and table.turn == 1
    assert table.legal(1) == {"quiero", "no_quiero", "retruco"}
    assert table.legal(0) == set() and table.legal(2) == set()


# --- 4-5. settling and the contest ----------------------------------------------------------------


def test_flor_partners_flores_add_up_unopposed():
    hands = [["1E", "4E", "5E"], ["3C", "4O", "2B"], ["7O", "6O", "5O"], ["2C", "3B", "4C"]]
    table = flor_table(hands, players=4)
    table.act(0, "flor")
    table.act(2, "flor")
    event = settled(table)
    assert (event.how, event.winner, event.points, event.value) == ("unopposed", 0, 6, None)


@pytest.mark.parametrize(
    ("calls", "answer", "winner", "points"),
    [
        ([], "quiero", 1, 6),  # 3F to the best flor, the pie's 35
        ([], "con_flor_me_achico", 0, 3),  # the first side, 3 per flor it sang
        (["contraflor"], "quiero", 1, 9),  # 3F + 3
        (["contraflor"], "no_quiero", 1, 6),  # 3F to the contraflor side
        (["contraflor_al_resto"], "quiero", 1, 30 - 20 + 6),  # resto + 3F
        (["contraflor_al_resto"], "no_quiero", 1, 6),
        (["contraflor", "contraflor_al_resto"], "quiero", 1, 30 - 20 + 6),
        (["contraflor", "contraflor_al_resto"], "no_quiero", 0, 9),  # 3F + 3 to the mano
    ],
)
def test_flor_contest_table(calls, answer, winner, points):
    """§5.3.5's table with two flores; the resto is what the leader (20) lacks of 30."""
    table = flor_table(BOTH, scores=(20, 12))
    table.act(0, "flor")
    table.act(1, "flor")
    for step, call in enumerate(calls):
        table.act(1 - step % 2, call)
    answerer = 1 if len(calls) % 2 == 0 else 0
    table.act(answerer, answer)
    event = settled(table)
    assert (event.winner, event.points) == (winner, points)
    assert event.value == (35 if answer == "quiero" else None)  # only the compared winner's


@pytest.mark.parametrize(
    ("made", "legal"),
    [
        ([], {"quiero", "con_flor_me_achico", "contraflor", "contraflor_al_resto"}),
        (["contraflor"], {"quiero", "no_quiero", "contraflor_al_resto"}),
        (["contraflor_al_resto"], {"quiero", "no_quiero"}),
        (["contraflor", "contraflor_al_resto"], {"quiero", "no_quiero"}),
    ],
)
def test_flor_contest_answers(made, legal):
    table = flor_table(BOTH)
    table.act(0, "flor")
    table.act(1, "flor")
    for step, call in enumerate(made):
        table.act(1 - step % 2, call)
    answerer = 1 if len(made) % 2 == 0 else 0
    assert table.legal(answerer) == legal
    assert table.legal(1 - answerer) == set()
    for name in {"no_quiero", "con_flor_me_achico", "contraflor", "contraflor_al_resto"} - legal:
        table.rejects(answerer, name, code="raise_not_allowed")
    for name in ("truco", "envido", "mazo", "paso"):
        table.rejects(answerer, name, code="call_pending")


def test_flor_contest_three_flores_and_only_singers_answer():
    """§5.3.4-5, 6 players: F = 3; seat 3 of side 1 did not sing and may not answer (no_flor)."""
    table = flor_table(THREE_FLORES, players=6)
    table.act(0, "flor")
    table.act(1, "flor")
    table.act(2, "flor")
    assert table.turn == 1
    table.rejects(3, "quiero", code="no_flor")
    table.rejects(5, "contraflor", code="no_flor")
    table.act(1, "contraflor")
    assert table.turn == 2  # the first singer of side 0 after the caller
    table.rejects(4, "quiero", code="no_flor")
    table.act(0, "quiero")  # any singer of side 0 may answer
    event = settled(table)
    assert (event.winner, event.points, event.value) == (0, 3 * 3 + 3, 35)


def test_flor_achico_with_two_flores_of_the_first_side_scores_six():
    table = flor_table(THREE_FLORES, players=6)
    for seat in (0, 1, 2):
        table.act(seat, "flor")
    table.act(1, "con_flor_me_achico")
    assert (settled(table).winner, settled(table).points) == (0, 6)


def test_flor_contest_ties_go_to_the_singer_nearest_the_mano():
    hands = [["4B", "5B", "6B"], ["4C", "5C", "6C"]]  # 35 each
    table = flor_table(hands)
    table.act(0, "flor")
    table.act(1, "flor")
    table.act(1, "quiero")
    assert settled(table).winner == 0


def test_flor_no_contest_actions_without_a_contest():
    table = flor_table(MANO_ONLY)
    table.act(0, "flor")
    for name in ("contraflor", "contraflor_al_resto", "con_flor_me_achico"):
        table.rejects(0, name, code="no_flor_contest")
        table.rejects(1, name, code="no_flor_contest")


# --- 6-7. scoring and folding ---------------------------------------------------------------------


def test_flor_points_come_before_truco_points_and_stop_at_the_target():
    """§5.3.6 and §7: at 28-0 the flor's 3 ends the cama; the truco is never added."""
    table = flor_table(MANO_ONLY, scores=(28, 0))
    table.act(0, "flor")
    [ended] = [event for event in table.events if isinstance(event, HandEnded)]
    assert (ended.reason, ended.points, ended.scores) == ("flor_target", (("flor", 0, 3),), (30, 0))
    assert table.state.winner == 0 and table.turn is None


def test_flor_points_are_kept_when_the_singer_folds_later():
    table = flor_table(MANO_ONLY)
    table.act(0, "flor")
    table.act(0, "mazo")
    assert table.points() == [("flor", 0, 3), ("truco", 1, 1)]


def test_flor_nobody_folds_during_the_round_or_the_contest():
    table = flor_table(BOTH)
    table.act(0, "flor")
    table.rejects(0, "mazo", code="flor_pending")
    table.rejects(1, "mazo", code="flor_first")
    table.act(1, "flor")
    table.rejects(1, "mazo", code="call_pending")
    table.rejects(0, "mazo", code="not_your_turn")


def test_flor_never_sung_scores_nothing():
    """§5.3.1: seat 3 refuses the truco for side 1 before seat 1 could sing his flor."""
    hands = [["4C", "5O", "6B"], ["1E", "2E", "3E"], ["12B", "4O", "6C"], ["4E", "5B", "7C"]]
    table = flor_table(hands, players=4)
    table.act(0, "truco")
    table.act(3, "no_quiero")
    assert table.hand.over and table.points() == [("truco", 0, 1)]


def test_flor_a_holder_answering_a_truco_sings_and_the_truco_waits():
    table = flor_table([["1B", "2C", "3O"], ["7E", "6E", "5E"]])
    table.act(0, "truco")
    table.rejects(1, "no_quiero", code="flor_first")
    table.act(1, "flor")
    assert table.turn == 1 and table.hand.pending_ladder == "truco"
    table.act(1, "no_quiero")
    assert table.points() == [("flor", 1, 3), ("truco", 0, 1)]


# --- views and the clock --------------------------------------------------------------------------


def test_flor_views_show_the_own_flor_only_and_the_winning_value_only():
    """§8: nobody sees another's unsung flor; a compared flor shows the winner's value alone."""
    table = flor_table(BOTH)
    mine = E.view_for(table.state, 0)["hand"]
    theirs = E.view_for(table.state, 1)["hand"]
    assert (mine["my_flor"], theirs["my_flor"]) == (27, 35)
    assert E.view_for(table.state, None)["hand"]["my_flor"] is None
    assert mine["flor"] == {
        "sung": [],
        "round": False,
        "calls": [],
        "winner": None,
        "value": None,
        "points": None,
    }
    table.act(0, "flor")
    assert E.view_for(table.state, 0)["hand"]["flor"]["round"] is True
    table.act(1, "flor")
    pending = E.view_for(table.state, 0)["hand"]["pending_call"]
    assert pending == {"ladder": "flor", "call": "flor", "caller": 0, "answering_side": 1}
    table.act(1, "quiero")
    flor = E.view_for(table.state, None)["hand"]["flor"]
    assert (flor["winner"], flor["value"]) == (1, 35)
    assert flor["points"] == {"kind": "flor", "side": 1, "points": 6}
    assert "27" not in str(E.view_for(table.state, 1))


def test_flor_timeout_sings_the_flor_and_refuses_the_contest():
    table = flor_table(BOTH)
    assert E.timeout_action(table.state) == (0, E.Action("flor"))
    table.act(0, "flor")
    assert E.timeout_action(table.state) == (1, E.Action("flor"))
    table.act(1, "flor")
    assert E.timeout_action(table.state) == (1, E.Action("con_flor_me_achico"))
    table.act(1, "contraflor")
    assert E.timeout_action(table.state) == (0, E.Action("no_quiero"))


def test_flor_replays_from_its_events():
    table = flor_table(BOTH)
    for seat, name in ((0, "flor"), (1, "flor"), (1, "contraflor"), (0, "quiero")):
        table.act(seat, name)
    read_back = [E.event_from_json(event.to_json()) for event in table.events]
    assert E.replay(read_back).hand == table.state.hand
