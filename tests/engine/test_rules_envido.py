"""RULES.md §5.2: the envido ladder, its values, the falta, ties, scoring and the windows."""

from __future__ import annotations

import pytest

from games import engine as E

from .helpers import Table, action

#: The mano (seat 0) holds 33, the pie 29; all six cards are in both decks.
MANO_33 = [["7E", "6E", "4B"], ["5C", "4C", "3O"]]
PIE_33 = [["5C", "4C", "3O"], ["7E", "6E", "4B"]]
LADDER = {"envido", "real_envido", "falta_envido"}
SHORT = {"E": "envido", "RE": "real_envido", "F": "falta_envido"}


def call_in_turn(table: Table, calls: list[str]) -> None:
    """Make ``calls`` alternately, the mano first: each later call raises the one before."""
    for step, call in enumerate(calls):
        table.act(step % 2, call)


@pytest.mark.parametrize(
    ("sequence", "accepted", "refused"),
    [
        ("E", 2, 1),
        ("RE", 3, 1),
        ("F", "falta", 1),
        ("E E", 4, 2),
        ("E RE", 5, 2),
        ("E F", "falta", 2),
        ("RE F", "falta", 3),
        ("E E RE", 7, 4),
        ("E E F", "falta", 4),
        ("E RE F", "falta", 5),
        ("E E RE F", "falta", 7),
    ],
)
@pytest.mark.parametrize("answer", ["quiero", "no_quiero"])
def test_envido_sequence_values(sequence, accepted, refused, answer):
    """RULES.md §5.2 table: accepted = sum of the calls (falta alone if it ends in falta); refused
    = 1 for one call, else the accepted value without the last call, to the last caller's side."""
    calls = [SHORT[call] for call in sequence.split()]
    table = Table("argentino_clasico", scores=(3, 7), hands=MANO_33)
    call_in_turn(table, calls)
    last_caller = (len(calls) - 1) % 2
    table.act(1 - last_caller, answer)
    falta = 15 - 3  # nobody in buenas: the winner, the mano at 3, is brought up to 15
    if answer == "quiero":
        expected = (0, falta if accepted == "falta" else accepted)
    else:
        expected = (last_caller, refused)
    assert table.hand.envido_points == expected


def check_raises(preset: str, made: list[str], allowed: set[str], refused: list[str]) -> None:
    """After ``made``, the answerer may raise exactly ``allowed`` (canonical); ``refused`` words
    are each rejected as raise_not_allowed."""
    table = Table(preset, hands=MANO_33)
    call_in_turn(table, made)
    seat = len(made) % 2
    assert table.legal(seat) & LADDER == allowed, f"after {made}"
    for word in refused:
        table.rejects(seat, word, "raise_not_allowed")
    for word in allowed:
        E.decide(table.state, seat, action(word))


@pytest.mark.parametrize(
    ("made", "allowed", "refused"),
    [
        ([], LADDER, []),
        (["envido"], LADDER, []),
        (["real_envido"], {"falta_envido"}, ["envido", "real_envido"]),
        (["envido", "envido"], {"real_envido", "falta_envido"}, ["envido"]),
        (["envido", "real_envido"], {"falta_envido"}, ["envido", "real_envido"]),
        (["envido", "envido", "real_envido"], {"falta_envido"}, ["real_envido"]),
        (["falta_envido"], set(), ["envido", "real_envido", "falta_envido"]),
    ],
)
def test_envido_raise_any_higher(made, allowed, refused):
    """RULES.md §5.2 any_higher: an ordered prefix of E, E, RE, F with levels skippable."""
    check_raises("argentino_clasico", made, allowed, refused)


@pytest.mark.parametrize(
    ("made", "allowed", "refused"),
    [
        ([], LADDER, []),
        (["envido"], {"envido"}, ["real_envido", "falta_envido"]),
        (["envido", "envido"], {"real_envido"}, ["envido", "falta_envido"]),
        (["envido", "envido", "real_envido"], {"falta_envido"}, ["envido", "real_envido"]),
        (["real_envido"], {"falta_envido"}, ["envido", "real_envido"]),
        (["falta_envido"], set(), ["envido", "real_envido", "falta_envido"]),
    ],
)
def test_envido_raise_next_level(made, allowed, refused):
    """RULES.md §5.2 next_level: a raise only to the next level; any level may open."""
    check_raises("argentino", made, allowed, refused)


@pytest.mark.parametrize(
    ("made", "allowed", "refused"),
    [
        ([], {"envido", "falta_envido"}, ["real_envido", "torne"]),
        (["envit"], {"envido", "falta_envido"}, ["real_envido"]),
        (["envit", "torne"], {"falta_envido"}, ["torne", "envit", "real_envido"]),
        (["falta"], set(), ["envit", "torne", "falta"]),
    ],
)
def test_envido_raise_valenciano(made, allowed, refused):
    """RULES.md §5.2 valenciano: envit -> torne -> falta; falta opens or answers envit."""
    check_raises("valenciano", made, allowed, refused)


def test_envido_torne_raises_an_envit_under_every_preset():
    """RULES.md §5: torne is accepted only as the raise over an envit, under every preset."""
    for preset in ("argentino", "argentino_clasico"):
        table = Table(preset, hands=MANO_33)
        table.rejects(0, "torne", "raise_not_allowed")
        table.act(0, "envit")
        table.act(1, "torne")
        assert table.hand.envido_calls == ("envido", "envido")
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "real_envido")
    table.rejects(1, "torne", "raise_not_allowed")
    table = Table("argentino_clasico", hands=MANO_33)
    call_in_turn(table, ["envido", "envido"])
    table.rejects(0, "torne", "raise_not_allowed")


@pytest.mark.parametrize(
    ("preset", "options", "scores", "winner", "falta"),
    [
        ("argentino_clasico", {}, (3, 7), 0, 12),  # both in malas: H - W
        ("argentino_clasico", {}, (3, 7), 1, 8),
        ("argentino_clasico", {}, (16, 5), 1, 14),  # one side in buenas: T - L
        ("argentino_clasico", {}, (5, 15), 0, 15),  # buenas from 15 exactly
        ("argentino_clasico", {"target": 15}, (4, 9), 0, 6),  # T <= 15: always T - L
        ("argentino_clasico", {"target": 12, "buenas_from": 10}, (2, 5), 1, 7),
        ("valenciano", {}, (5, 8), 1, 16),  # cama, both in males: the winner completes the cama
        ("valenciano", {}, (14, 3), 1, 10),  # cama otherwise: T - L
        ("valenciano", {}, (3, 13), 0, 11),  # bones from 13 exactly
        ("argentino_clasico", {"falta": "cama"}, (5, 8), 0, 25),
    ],
)
def test_envido_falta_value(preset, options, scores, winner, falta):
    """RULES.md §5.2 falta value: malas_buenas (H - W, or T - L in buenas or with T <= 15) and
    cama (T - W with both in males, otherwise T - L)."""
    table = Table(preset, scores=scores, hands=MANO_33 if winner == 0 else PIE_33, **options)
    table.act(0, "falta_envido")
    table.act(1, "quiero")
    assert table.hand.envido_winner == winner
    assert table.hand.envido_points == (winner, falta)


def test_envido_counts_the_dealt_cards_played_or_not():
    """RULES.md §3: the envido of a hand is of the 3 dealt cards, played or not."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.play(0, "7E")
    table.act(1, "envido")
    table.act(0, "quiero")
    assert (table.hand.envido_winner, table.hand.envido_value) == (0, 33)


def test_envido_tie_goes_to_the_mano_with_2_players():
    """RULES.md §3: a tie goes to the mano, whichever seat he is."""
    tied = [["7E", "3E", "4B"], ["7O", "3O", "4C"]]  # 30 each
    table = Table("argentino_clasico", hands=tied)
    table.act(0, "envido")
    table.act(1, "quiero")
    assert table.hand.envido_winner == 0
    table.act(0, "mazo")
    table.deal(tied)  # dealer 0: seat 1 is mano
    table.act(1, "envido")
    table.act(0, "quiero")
    assert table.hand.envido_winner == 1


FOUR = {
    "A": ["7E", "4E", "12E"],  # 31
    "B": ["7O", "4O", "12O"],  # 31
    "x": ["1B", "2C", "5O"],  # 5
    "y": ["2B", "3C", "6O"],  # 6
}


@pytest.mark.parametrize(
    ("mano", "seats", "winner"),
    [
        (0, "ABxy", 0),  # the mano himself first
        (0, "xABy", 1),
        (0, "xyAB", 0),
        (1, "ABxy", 1),  # mano seat 1: the order is 1, 2, 3, 0
        (1, "AxyB", 1),
    ],
)
def test_envido_tie_goes_to_the_player_nearest_the_mano_with_4_players(mano, seats, winner):
    """RULES.md §3: a tie goes to the player nearest the mano in playing order."""
    hands = [FOUR[name] for name in seats]
    table = Table("argentino_clasico", players=4, hands=hands)
    if mano == 1:
        table.act(0, "mazo")
        table.deal(hands)
    assert table.hand.mano == mano
    table.act(mano, "envido")
    table.act((mano + 1) % 4, "quiero")
    assert (table.hand.envido_winner, table.hand.envido_value) == (winner, 31)


def test_envido_points_are_scored_when_the_hand_ends_before_the_truco_points():
    """RULES.md §5.2 and §7: envido points are added at the hand's end, before the truco points."""
    table = Table("argentino_clasico", hands=[["1E", "1B", "4C"], ["7O", "6O", "5C"]])
    table.act(0, "envido")
    table.act(1, "quiero")
    assert (table.hand.envido_winner, table.hand.envido_value) == (1, 33)
    assert table.state.scores == (0, 0)
    table.plays("1E", "7O", "1B", "6O")
    assert table.points() == [("envido", 1, 2), ("truco", 0, 1)]
    assert table.state.scores == (1, 2)


@pytest.mark.parametrize(
    ("scores", "answer", "points"), [((0, 28), "quiero", 2), ((0, 29), "no_quiero", 1)]
)
def test_envido_alone_reaching_the_target_ends_the_hand_at_once(scores, answer, points):
    """RULES.md §5.2: if the envido points alone reach the target the hand ends at once and that
    side wins the cama: here before any card, over a pending truco."""
    table = Table("argentino_clasico", scores=scores, hands=PIE_33)
    table.act(0, "truco")
    table.act(1, "envido")  # the pie answers the truco with an envido
    table.act(0, answer)
    assert table.hand.over and table.hand.held == tuple(map(tuple, PIE_33))
    assert table.points() == [("envido", 1, points)]
    assert (table.state.scores, table.state.camas, table.state.winner) == ((0, 30), (0, 1), 1)


def test_envido_phase_allows_only_an_envido_call_or_paso():
    """RULES.md §5.2 before_first_card: no truco, no fold and no card in the envido phase."""
    table = Table("argentino", hands=MANO_33)
    assert table.legal(0) == LADDER | {"paso"}
    assert table.legal(1) == set()
    table.rejects(0, "play", "envido_phase", card="7E")
    table.rejects(0, "truco", "envido_phase")
    table.rejects(0, "mazo", "envido_phase")
    table.rejects(0, "quiero", "nothing_to_answer")
    table.rejects(1, "paso", "not_your_turn")
    table.rejects(1, "envido", "not_your_turn")


def test_envido_phase_closes_the_envido_once_every_player_passed():
    """RULES.md §5.2 before_first_card: when all have passed the envido is closed for the hand,
    even for answering a truco, and the mano plays the first card."""
    table = Table("argentino", hands=MANO_33)
    table.act(0, "paso")
    table.rejects(0, "paso", "not_your_turn")
    table.act(1, "paso")
    assert table.turn == 0
    assert table.legal(0) == {"play", "truco", "mazo"}
    table.rejects(0, "envido", "envido_closed")
    table.rejects(0, "paso", "paso_not_allowed")
    table.act(0, "truco")
    table.rejects(1, "envido", "envido_closed")
    assert table.legal(1) == {"quiero", "no_quiero", "retruco"}


def test_envido_phase_a_player_who_passed_may_still_answer_and_raise():
    """RULES.md §5.2 before_first_card: a player who passed may answer or raise a later call; a
    settled envido ends the phase and the mano leads."""
    table = Table("argentino", hands=MANO_33)
    table.act(0, "paso")
    table.act(1, "envido")
    table.rejects(0, "paso", "call_pending")
    table.act(0, "envido")
    table.act(1, "quiero")
    assert table.hand.envido_points == (0, 4)
    assert table.turn == 0
    assert table.legal(0) == {"play", "truco", "mazo"}


def test_envido_phase_with_4_players_goes_round_in_seat_order():
    """RULES.md §5.2 before_first_card: the phase needs every player, in seat order."""
    hands = [FOUR[name] for name in "ABxy"]
    table = Table("argentino", players=4, hands=hands)
    for seat in (0, 1, 2):
        table.rejects((seat + 1) % 4, "paso", "not_your_turn")
        table.act(seat, "paso")
    table.rejects(0, "play", "not_your_turn", card="7E")
    assert table.turn == 3 and table.legal(3) == LADDER | {"paso"}
    table.act(3, "paso")
    assert table.turn == 0
    table.rejects(3, "envido", "not_your_turn")
    table.rejects(0, "envido", "envido_closed")
    table.play(0, "7E")


def test_envido_phase_with_4_players_a_later_seat_opens_and_any_opponent_answers():
    """RULES.md §5 and §5.2: the first answerer after the caller is shown; any member may answer."""
    hands = [FOUR[name] for name in "ABxy"]
    table = Table("argentino", players=4, hands=hands)
    table.act(0, "paso")
    table.act(1, "paso")
    table.act(2, "real_envido")
    assert table.turn == 3
    table.rejects(0, "quiero", "not_your_turn")
    table.act(1, "no_quiero")  # seat 1 passed, and answers for his side
    assert table.hand.envido_points == (0, 1)
    assert table.turn == 0


def test_envido_before_own_first_card_on_the_pies_turn_after_the_mano_played():
    """RULES.md §5.2 before_own_first_card: a player may call on his turn in baza 1."""
    table = Table("valenciano", hands=MANO_33)
    table.play(0, "7E")
    table.rejects(0, "envit", "not_your_turn")
    table.act(1, "envit")
    table.act(0, "vull")
    assert table.hand.envido_points == (0, 2)


def test_envido_before_own_first_card_closes_once_the_player_has_played():
    """RULES.md §5.2 before_own_first_card: answering a truco with envido only before one's own
    first card."""
    table = Table("valenciano", hands=MANO_33)
    table.play(0, "7E")
    table.act(1, "truc")
    table.rejects(0, "envit", "envido_closed")
    assert table.legal(0) == {"quiero", "no_quiero", "retruco"}


def test_envido_before_own_first_card_answering_a_truco_with_4_players():
    """RULES.md §5.2 before_own_first_card: of the answering side, only a player who has not
    played yet may answer a truco with an envido."""
    hands = [["7E", "4E", "5E"], ["7O", "4O", "5O"], ["3C", "6C", "1B"], ["3B", "6B", "7C"]]
    table = Table("valenciano", players=4, hands=hands)
    table.play(0, "7E")
    table.act(1, "truc")
    table.rejects(0, "envit", "envido_closed")
    table.act(2, "envit")
    table.act(1, "vull")
    assert table.hand.envido_winner == 0
    assert table.hand.pending_ladder == "truco" and table.turn == 2


def test_envido_before_own_first_card_is_closed_after_the_first_card():
    """RULES.md §5.2 before_own_first_card: once a player's first card is down, no envido."""
    table = Table("valenciano", hands=PIE_33)
    table.plays("5C", "7E")  # the pie wins baza 1 and leads baza 2
    table.rejects(1, "envit", "envido_closed")
    table.rejects(1, "falta", "envido_closed")


def test_envido_first_baza_mano_who_played_answers_a_truco_with_envido():
    """RULES.md §5.2 first_baza: his side answers a truco call even if he has already played."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.play(0, "7E")
    table.act(1, "truco")
    assert table.legal(0) == {"quiero", "no_quiero", "retruco"} | LADDER
    table.act(0, "envido")
    table.act(1, "quiero")
    assert table.hand.envido_points == (0, 2)
    assert table.hand.pending_ladder == "truco" and table.turn == 0


def test_envido_first_baza_closes_when_baza_1_is_complete():
    """RULES.md §5.2 first_baza: only while baza 1 is not complete."""
    table = Table("argentino_clasico", hands=PIE_33)
    table.plays("5C", "7E")
    table.rejects(1, "envido", "envido_closed")
    table.act(1, "truco")
    table.rejects(0, "envido", "envido_closed")


def test_envido_esta_primero_then_the_truco_comes_back():
    """RULES.md §5: an envido answering a truco suspends it until the envido is settled."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "truco")
    table.act(1, "envido")
    assert table.hand.pending_ladder == "envido" and table.turn == 0
    table.rejects(0, "retruco", "call_pending")
    table.rejects(1, "quiero", "not_your_turn")
    table.act(0, "quiero")
    assert table.hand.pending_ladder == "truco" and table.turn == 1
    assert table.legal(1) == {"quiero", "no_quiero", "retruco"}
    table.act(1, "quiero")
    assert (table.hand.truco_level, table.turn) == (2, 0)


@pytest.mark.parametrize("answer", ["quiero", "retruco"])
def test_envido_never_after_a_truco_is_accepted(answer):
    """RULES.md §5.2: never after a truco has been accepted; a raise counts as accepting."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "truco")
    table.act(1, answer)
    if answer == "retruco":
        table.rejects(0, "envido", "envido_closed")
        table.act(0, "quiero")
    table.rejects(0, "envido", "envido_closed")
    table.play(0, "7E")
    table.rejects(1, "envido", "envido_closed")


@pytest.mark.parametrize("answer", ["quiero", "no_quiero"])
def test_envido_at_most_one_per_hand(answer):
    """RULES.md §5.2: at most one envido per hand."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "envido")
    table.act(1, answer)
    for call in LADDER:
        table.rejects(0, call, "envido_closed")
    table.play(0, "7E")
    table.rejects(1, "real_envido", "envido_closed")
    table.act(1, "truco")
    table.rejects(0, "falta_envido", "envido_closed")


def test_envido_folded_player_does_not_count():
    """RULES.md §5.2: a player who has folded no longer counts for an envido settled after."""
    hands = [["4E", "5E", "1B"], ["7O", "6O", "5C"], ["7E", "4C", "7C"], ["6B", "4B", "3O"]]
    table = Table("valenciano", players=4, hands=hands)  # envido 29, 33, 31, 30
    table.play(0, "4E")
    table.act(1, "mazo")  # partner_continues: seat 1 (33) is out
    table.act(2, "envit")
    table.rejects(1, "vull", "player_folded")
    table.act(3, "vull")
    assert (table.hand.envido_winner, table.hand.envido_value) == (0, 31)
