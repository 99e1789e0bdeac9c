"""``strong``'s card play (games/bots/card_play.py): the card whose playouts over the drawn deals
win the hand most often, which can differ from the fixed rule where the rules make it pay."""

from __future__ import annotations

import random

import pytest

from games import engine as E
from games.bots import card_play, reading


def after_plays(preset: str, hands: list[list[str]], moves: list[tuple[int, E.Action]]):
    """The state of a 2-player hand dealt ``hands`` (seat 0 the mano) after ``moves``."""
    state = E.start(E.start_match(E.PRESETS[preset]))
    state = E.evolve(state, E.deal_hands(state, hands))
    for seat, action in moves:
        for event in E.decide(state, seat, action):
            state = E.evolve(state, event)
    return state


def test_the_top_card_is_kept_for_the_bazas_that_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mano leads a 3. Holding 1E, 3E and a 4, the rule takes baza 1 with the 1E (the lowest
    card that wins it) and then loses the hand whenever the mano holds a card above the 3E for
    baza 2. Giving baza 1 away with the 4 (or tying it with the 3E) keeps 1E and 3E for the two
    bazas that decide (RULES.md §4.3): the playouts find it, whichever way the first parda goes
    (over enough deals that one drawn without a card above the 3E for the mano is no tie)."""
    monkeypatch.setattr(card_play, "SAMPLES", 200)
    hands = [["3O", "5B", "6C"], ["3E", "1E", "4C"]]
    for preset, moves in (
        ("argentino_clasico", [(0, E.Action("play", card="3O"))]),
        (
            "argentino",
            [(0, E.Action("paso")), (1, E.Action("paso")), (0, E.Action("play", card="3O"))],
        ),
    ):
        view = E.view_for(after_plays(preset, hands, moves), 1)
        assert reading.rule_card(view) == "1E"
        picks = {card_play.choose_card(view, random.Random(seed)) for seed in range(5)}
        assert picks <= {"4C", "3E"}, preset


def test_the_card_played_is_always_one_held() -> None:
    rng = random.Random(3)
    for index in range(60):
        preset = ("argentino_clasico", "valenciano")[index % 2]
        rules = E.resolve_rules(preset, {"players": (2, 4, 6)[index % 3]})
        state = E.start(E.start_match(rules))
        deck = E.DECKS[rules.deck]
        state = E.evolve(state, E.deal(state, rng.sample(deck, len(deck))))
        while state.hand is not None and not state.hand.over:
            seat = E.turn(state)
            view = E.view_for(state, seat)
            card = card_play.choose_card(view, rng)
            assert card in view["hand"]["my_cards"]
            for event in E.decide(state, seat, E.Action("play", card=card)):
                state = E.evolve(state, event)
