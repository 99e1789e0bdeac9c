"""``strong``'s reading of a call (games/bots/reading.py): the caller's hands drawn to fit what the
table announced, weighed by a likelihood fit to the caller's own calls, played out by the rule the
engine referees; and the answers ``strong`` gives by it."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from games import engine as E
from games.bots import basic, envido_reading, reading, strong
from games.engine.events import HandEnded


def after(preset: str, hands: list[list[str]], moves: list[tuple[int, str]], scores=(0, 0)):
    """The state of a 2-player hand dealt ``hands`` (seat 0 the mano) after ``moves``."""
    state = E.start(E.start_match(E.PRESETS[preset]))
    state = replace(state, scores=scores)
    state = E.evolve(state, E.deal_hands(state, hands))
    for seat, name in moves:
        for event in E.decide(state, seat, E.Action(name)):
            state = E.evolve(state, event)
    return state


def calls(seat: int, ladder: str, hands_with: int, hands_without: int) -> list[dict[str, Any]]:
    """A history: ``seat`` calls on ``ladder`` in ``hands_with`` hands, not in the others."""
    history: list[dict[str, Any]] = []
    for index in range(hands_with + hands_without):
        if index < hands_with:
            history.append({"type": f"{ladder}_called", "seat": seat, "call": "truco"})
        history.append({"type": "hand_ended", "number": index + 1})
    return history


def test_the_callers_share_of_hands_with_a_call_is_fit_to_his_own_calls() -> None:
    assert reading.call_share([], 1, "truco") == reading.PRIOR_SHARE  # the prior: a third
    often = reading.call_share(calls(1, "truco", 10, 0), 1, "truco")
    seldom = reading.call_share(calls(1, "truco", 0, 10), 1, "truco")
    assert reading.caller_share(often, 2) == reading.SHARE_BOUNDS[1]
    assert reading.caller_share(seldom, 2) == reading.SHARE_BOUNDS[0]
    # Only the caller's side's calls on that ladder count.
    assert reading.call_share(calls(0, "truco", 10, 0), 1, "truco") == seldom
    assert reading.call_share(calls(1, "envido", 10, 0), 1, "truco") == seldom
    some = reading.call_share(calls(1, "truco", 3, 3), 1, "truco")
    assert seldom < reading.PRIOR_SHARE < some < often


def test_a_team_callers_share_is_one_members_of_the_sides() -> None:
    """A side of two that calls in 51 % of its hands has members who call in 30 % of theirs
    (1 - 0.7 ** 2 = 0.51); of three, in about 21 %; alone, in 51 %."""
    assert abs(reading.caller_share(0.51, 4) - 0.3) < 1e-9
    assert abs(reading.caller_share(0.51, 6) - (1 - 0.49 ** (1 / 3))) < 1e-9
    assert reading.caller_share(0.51, 2) == 0.51


def test_a_truco_call_weighs_the_callers_top_hands_and_some_bluffs() -> None:
    strengths = [0.1, 0.9, 0.5, 0.7, 0.3, 0.8, 0.2, 0.6, 0.4, 1.0]
    weights = reading.truco_weights(strengths, 0.1 + 0.9 * 0.3)  # the top 3 of 10, and bluffs
    assert [s for s, w in zip(strengths, weights, strict=True) if w == 1.0] == [0.9, 0.8, 1.0]
    assert all(w == reading.BLUFF for w in weights if w != 1.0)


def test_the_playout_agrees_with_the_referee() -> None:
    """Every seat playing the playouts' card rule with no calls, at 2, 4 and 6 players: the
    playout's winner, from every card played of the hand on, is the engine's."""
    rng = random.Random(4)
    checked = 0
    for index in range(150):
        preset = ("argentino", "valenciano", "argentino_clasico")[index % 3]
        players = (2, 4, 6)[index % 5 % 3]
        rules = E.resolve_rules(preset, {"players": players})
        deck = E.DECKS[rules.deck]
        state = E.start(E.start_match(rules))
        state = E.evolve(state, E.deal(state, rng.sample(deck, len(deck))))
        predicted: list[tuple[int, float]] = []  # (side, the playout's chance)
        while state.hand is not None and not state.hand.over:
            seat = E.turn(state)
            view = E.view_for(state, seat)
            if {"type": "paso"} in view["legal_actions"]:
                action = E.Action("paso")
            else:
                held = {other: list(cards) for other, cards in enumerate(state.hand.held)}
                predicted.append((view["side"], reading.playout(view, held)))
                action = E.Action("play", card=reading.rule_card(view))
            for event in E.decide(state, seat, action):
                state = E.evolve(state, event)
                if isinstance(event, HandEnded):
                    winner = event.winner
        assert predicted and all(p == float(winner == side) for side, p in predicted), index
        checked += len(predicted)
    assert checked >= 1000


def test_an_announced_envido_and_a_flor_limit_the_hands_drawn() -> None:
    # Seat 1 wins the envido with 33 (7 and 6 of espadas); seat 0 then holds 27.
    state = after(
        "argentino",
        [["7O", "10O", "1B"], ["7E", "6E", "4C"]],
        [(0, "envido"), (1, "quiero")],
    )
    view = E.view_for(state, 0)
    assert view["hand"]["envido"]["value"] == 33
    fits = reading.announced(view, 1)
    ours = ["7O", "10O", "1B"]
    assert fits([ours, ["7E", "6E", "4C"]]) and fits([ours, ["7B", "6B", "12C"]])
    assert not fits([ours, ["7E", "5E", "4C"]]) and not fits([ours, ["1C", "2C", "3B"]])
    # The losing side: at most the winner's value.
    assert reading.announced(E.view_for(state, 1), 0)([["7C", "6C", "1B"], ["7E", "6E", "4C"]])
    assert not reading.announced(E.view_for(state, 1), 0)([ours, ["7E", "5E", "4C"]])
    flor_on = {**view, "rules": {**view["rules"], "flor": True}}
    hand = {**view["hand"], "flor": {**view["hand"]["flor"], "sung": []}}
    no_flor = reading.announced({**flor_on, "hand": hand}, 1)
    assert not no_flor([ours, ["7E", "6E", "5E"]])  # he acted without singing: he holds none


def test_a_call_from_a_seldom_caller_is_read_as_stronger() -> None:
    """The same view and the same draws: the chance to win falls as the caller calls less often."""
    state = after(
        "argentino",
        [["1O", "12C", "5B"], ["3E", "2O", "6C"]],
        [(0, "paso"), (1, "paso"), (0, "truco")],
    )
    view = E.view_for(state, 1)
    often = reading.call_chance(view, calls(0, "truco", 12, 0), random.Random(2))
    seldom = reading.call_chance(view, calls(0, "truco", 0, 12), random.Random(2))
    uniform = basic.hand_chance(view)
    assert often is not None and seldom is not None
    assert seldom < often and seldom < uniform


def test_strong_answers_a_call_by_its_reading() -> None:
    """argentino, 2 players, 0-0, seat 0 calls: with the worst cards seat 1 never accepts (a
    truco it refuses; an envido it refuses, or raises as the strategy mixes it), with the best it
    never refuses, the truco and the envido alike."""
    worst, best = ["4C", "5O", "6B"], ["1E", "1B", "7E"]
    for ladder, moves in (
        ("truco", [(0, "paso"), (1, "paso"), (0, "truco")]),
        ("envido", [(0, "envido")]),
    ):
        for cards, refuses in (
            (worst, True),
            (best if ladder == "truco" else ["7C", "6C", "5B"], False),
        ):
            state = after("argentino", [["3O", "12O", "2B"], cards], moves)
            view = E.view_for(state, 1)
            assert (reading if ladder == "truco" else envido_reading).readable(view)
            seen = [{"type": f"{ladder}_called", "seat": 0, "call": moves[-1][1]}]
            picks = {strong.choose(view, seen, random.Random(seed)).type for seed in range(30)}
            if not refuses:
                assert "no_quiero" not in picks, picks
            elif ladder == "truco":
                assert picks == {"no_quiero"}, picks
            else:
                assert "quiero" not in picks and "no_quiero" in picks, picks
