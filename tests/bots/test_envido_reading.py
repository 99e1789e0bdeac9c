"""``strong``'s reading of an envido call (games/bots/envido_reading.py): every other seat's
openings, raises and passes weighed by each side's own shares, fit from the match's calls and the
hands it showed; and the answers ``strong`` gives by it at a team table."""

from __future__ import annotations

import random
from typing import Any

from games import engine as E
from games.bots import envido_reading, reading, strong

#: Cards whose envido is in the bottom half of the deck's (6: no two of a suit) and at the top (33).
LOW, TOP = ["4C", "5O", "6B"], ["7E", "6E", "1B"]


def envido_chance(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> float | None:
    """The chance ``envido_read`` gives this seat's side to win the envido accepted now."""
    found = envido_reading.envido_read(view, history, rng)
    return None if found is None else found.chance


def team_after(preset: str, hands: list[list[str]], moves: list[tuple[int, str]]) -> E.State:
    """The state of a 4-player hand dealt ``hands`` (seat 0 the mano) after ``moves``."""
    state = E.start(E.start_match(E.resolve_rules(preset, {"players": 4})))
    state = E.evolve(state, E.deal_hands(state, hands))
    for seat, name in moves:
        for event in E.decide(state, seat, E.Action(name)):
            state = E.evolve(state, event)
    return state


def opener_hands(hands: int, opens: bool, cards: list[str]) -> list[dict[str, Any]]:
    """A history of ``hands`` finished hands in which seat 0 opens the envido (or lets it pass),
    seat 1 refuses it, and seat 0 then shows ``cards``."""
    history: list[dict[str, Any]] = []
    for _ in range(hands):
        if opens:
            history.append({"type": "envido_called", "seat": 0, "call": "envido"})
            history.append({"type": "envido_refused", "seat": 1, "side": 1, "points": 1})
        else:
            history.append({"type": "envido_passed", "seat": 0})
        history += [{"type": "card_played", "seat": 0, "card": card} for card in cards]
        history.append({"type": "hand_ended"})
    return history


def test_the_shares_are_fit_to_each_sides_own_calls_and_shown_hands() -> None:
    share = reading.envido_share("spanish40")
    bluffs, _ = envido_reading.read_history(opener_hands(10, True, LOW), share)
    values, _ = envido_reading.read_history(opener_hands(10, True, TOP), share)
    passes, _ = envido_reading.read_history(opener_hands(10, False, LOW), share)
    high = reading.SHARE_BOUNDS[1]
    assert bluffs.calling("open", 0, 0, 2) == values.calling("open", 0, 0, 2) == high
    assert passes.calling("open", 0, 0, 2) == reading.SHARE_BOUNDS[0]
    # It opened with an envido, not higher: a real envido or a falta from it would say more.
    assert bluffs.calling("open", 2, 0, 2) < bluffs.calling("open", 1, 0, 2) < high
    # Bottom-half hands shown after a call are bluffs; a top hand says nothing of them.
    assert bluffs.bluffing("open", 0) > envido_reading.BLUFF == values.bluffing("open", 0)
    assert passes.bluffing("open", 0) < envido_reading.BLUFF
    # Seat 1 answered every call without raising: its side's raise share falls.
    assert bluffs.calling("raise", 0, 1, 2) < envido_reading.PRIOR_SHARE
    # The hand in progress: its actions, by seat, with the level called.
    now = [
        {"type": "envido_passed", "seat": 0},
        {"type": "envido_called", "seat": 1, "call": "real_envido"},
    ]
    assert envido_reading.read_history(now, share)[1] == [(0, "pass", -1), (1, "open", 1)]


def test_a_call_from_a_side_that_bluffs_is_read_as_weaker() -> None:
    """argentino, 4 players: seat 0 opens; seat 1 (a 28) is likelier to win the envido for his
    side when seat 0's side has opened with bottom-half hands than when it has opened only with
    its top ones (and let the envido pass with the others)."""
    hands = [["3O", "12O", "2B"], ["7O", "1O", "2C"], ["4E", "5E", "6C"], ["1C", "3B", "4B"]]
    state = team_after("argentino", hands, [(0, "envido")])
    view = E.view_for(state, 1)
    assert envido_reading.readable(view)
    now = [{"type": "envido_called", "seat": 0, "call": "envido"}]
    bluffer = opener_hands(8, True, LOW) + now
    valuer = opener_hands(3, True, TOP) + opener_hands(5, False, LOW) + now
    against_bluffs = envido_chance(view, bluffer, random.Random(5))
    against_values = envido_chance(view, valuer, random.Random(5))
    assert against_bluffs is not None and against_values is not None
    assert against_bluffs > against_values + 0.1


def test_a_partners_pass_and_a_partners_call_are_read() -> None:
    """argentino, 4 players, seat 0 passes, seat 1 opens, seat 2 (seat 0's partner, a 6) answers:
    his side is likelier to win with a partner who passed as seldom as his side opens (it opens
    in every hand) than one whose side always passes."""
    hands = [["3O", "12O", "2B"], ["7O", "1O", "2C"], LOW, ["1C", "3B", "4B"]]
    state = team_after("argentino", hands, [(0, "paso"), (1, "envido")])
    view = E.view_for(state, 2)
    now = [
        {"type": "envido_passed", "seat": 0},
        {"type": "envido_called", "seat": 1, "call": "envido"},
    ]
    chances = [
        envido_chance(view, opener_hands(8, opens, TOP) + now, random.Random(5))
        for opens in (True, False)
    ]
    assert None not in chances
    passed_seldom, passed_always = chances
    assert passed_seldom is not None and passed_always is not None
    assert passed_seldom < passed_always


def test_a_falta_from_a_side_that_raises_on_anything_is_accepted_at_a_team_table() -> None:
    """argentino, 4 players, 0-0, seat 0 opens with the falta (worth 15): seat 1, a 28, accepts
    it from a side that has opened every hand and shown bottom-half hands, and refuses it from
    one that has opened seldom and shown its top. Before the team's envido was read, the rule
    for the big bets refused any falta below 31."""
    hands = [["3O", "12O", "2B"], ["7O", "1O", "4C"], ["4E", "5E", "6C"], ["1C", "3B", "4B"]]
    state = team_after("argentino", hands, [(0, "falta_envido")])
    view = E.view_for(state, 1)
    assert view["hand"]["my_envido"] == 28 and strong.falta_size(view) == 2
    now = [{"type": "envido_called", "seat": 0, "call": "falta_envido"}]
    for history, accepts in (
        (opener_hands(10, True, LOW), True),
        (opener_hands(2, True, TOP) + opener_hands(8, False, LOW), False),
    ):
        picks = {strong.choose(view, history + now, random.Random(seed)).type for seed in range(20)}
        assert picks == ({"quiero"} if accepts else {"no_quiero"}), picks


def raised_hands(hands: int, refuses: bool) -> list[dict[str, Any]]:
    """A history: seat 0 opens the envido, seat 1 raises it, and seat 0 refuses the raise or
    accepts it, in each of ``hands`` finished hands."""
    answer = (
        {"type": "envido_refused", "seat": 0, "side": 0, "points": 2}
        if refuses
        else {"type": "envido_accepted", "seat": 0, "winner": 0, "value": 30, "points": 4}
    )
    history: list[dict[str, Any]] = []
    for _ in range(hands):
        history.append({"type": "envido_called", "seat": 0, "call": "envido"})
        history.append({"type": "envido_called", "seat": 1, "call": "envido"})
        history += [answer, {"type": "hand_ended"}]
    return history


def test_a_raise_is_weighed_by_how_often_the_other_side_refuses_one() -> None:
    """argentino, 2 players, 0-0, seat 0 opens the envido and seat 1 holds a 6: against a side
    that has accepted every raise over its own call, a raise plays 4 points at a poor chance and
    the answer is no quiero; against one that has refused every such raise, the raise wins 2
    points most of the time and is the answer."""
    state = E.start(E.start_match(E.PRESETS["argentino"]))
    state = E.evolve(state, E.deal_hands(state, [["3O", "12O", "2B"], LOW]))
    for event in E.decide(state, 0, E.Action("envido")):
        state = E.evolve(state, event)
    view = E.view_for(state, 1)
    now = [{"type": "envido_called", "seat": 0, "call": "envido"}]
    for refuses, answer in ((False, "no_quiero"), (True, "envido")):
        history = raised_hands(10, refuses) + now
        picks = {strong.choose(view, history, random.Random(seed)).type for seed in range(20)}
        assert picks == {answer}, picks
