"""The bots (games/bots): legal actions only, blind to hidden cards, consistent determinizations,
reproducible from a seed. No database: the bots are pure Python over the engine."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pytest

from games import bots
from games import engine as E
from games.bots import basic, strong
from games.bots.determinize import Knowledge, determinize, model_fit, rebuild
from games.engine.events import EnvidoAccepted

TABLES = [(preset, players) for preset in E.PRESETS for players in (2, 4)]
#: The flor (RULES.md §5.3) and six-player tables with and without pica-pica (§9), in short
#: matches, for every level: (preset, players, options).
FEATURE_TABLES = [
    ("argentino", 2, {"flor": True}),
    ("argentino_clasico", 4, {"flor": True}),
    ("valenciano", 6, {}),
    ("argentino", 6, {"pica_pica": True, "flor": True}),
    ("argentino_clasico", 6, {"pica_pica": True}),
]


@dataclass(frozen=True)
class Decision:
    """A point where a bot was asked to act: the full state, and what the bot was given."""

    state: E.State
    seat: int
    view: dict[str, Any]
    history: list[dict[str, Any]]
    all_basic: bool = False  # every seat of the match played basic, without timeouts


def card_strings(data: Any) -> set[str]:
    """Every card named in a JSON-ready structure (whole strings: "1E" is not in "11E")."""
    return set(re.findall(r'"(\d{1,2}[EBOC])"', json.dumps(data))) & set(E.cards.TRUCO_RANK)


def check_blind(state: E.State, seat: int, view: dict[str, Any], history: list[Any]) -> None:
    """The bot's input holds none of the other seats' unplayed cards: not in the view, not in the
    current hand's events, and no deal of the history shows another seat's cards."""
    assert state.hand is not None
    hidden = {card for other, held in enumerate(state.hand.held) if other != seat for card in held}
    deals = [index for index, event in enumerate(history) if event["type"] == "hand_dealt"]
    shown = card_strings(view) | card_strings(history[deals[-1] :])
    assert not hidden & shown, f"seat {seat} was shown {sorted(hidden & shown)}"
    for index in deals:
        hands = history[index]["hands"]
        assert all(cards is None for other, cards in enumerate(hands) if other != seat)


def checked(level: str, **budget: Any) -> bots.Player:
    """A ``level`` bot whose every answer must be one of its view's legal actions."""

    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> Any:
        if level == "strong" and budget:
            action = strong.choose(view, history, rng, **budget)
        else:
            action = bots.choose(level, view, history, rng)
        assert isinstance(action, E.Action)
        assert action.to_json() in view["legal_actions"], (action, view["legal_actions"])
        return action

    return choose


def sometimes_times_out(player: bots.Player, share: float) -> bots.Player:
    """Lets the clock run out on ``share`` of the turns, as a player who walked away does."""

    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> Any:
        return None if rng.random() < share else player(view, history, rng)

    return choose


def play(
    preset: str,
    players: int,
    seats: list[bots.Player],
    seed: int,
    options: dict[str, Any] | None = None,
) -> tuple[E.State, list[Decision]]:
    rules = E.resolve_rules(preset, {"players": players, **(options or {})})
    decisions: list[Decision] = []

    def watch(state: E.State, seat: int, view: dict[str, Any], history: list[Any]) -> None:
        check_blind(state, seat, view, history)
        decisions.append(Decision(state, seat, view, list(history)))

    state, _ = bots.play_match(rules, seats, random.Random(seed), watch)
    assert state.match_over and state.winner in (0, 1)
    return state, decisions


@cache
def decisions(preset: str, players: int) -> list[Decision]:
    """Decision points of basic-vs-basic matches (one with timeouts) and a random match."""
    found: list[Decision] = []
    for seed in range(2):
        found += [
            replace(decision, all_basic=True)
            for decision in play(preset, players, [checked("basic")] * players, seed)[1]
        ]
    timing_out = sometimes_times_out(checked("basic"), 0.1)
    found += play(preset, players, [timing_out, checked("random")] * (players // 2), 7)[1]
    return found


@pytest.mark.parametrize(("preset", "players"), TABLES)
@pytest.mark.parametrize("level", ["random", "basic"])
def test_random_and_basic_act_legally_and_blind(preset: str, players: int, level: str) -> None:
    for seed in range(3):
        play(preset, players, [checked(level), checked("random")] * (players // 2), seed)
        play(preset, players, [checked("random"), checked(level)] * (players // 2), seed)


@pytest.mark.parametrize(("preset", "players", "options"), FEATURE_TABLES)
@pytest.mark.parametrize("level", bots.LEVELS)
def test_every_level_plays_flor_and_six_player_tables_legally_and_blind(
    preset: str, players: int, options: dict[str, Any], level: str
) -> None:
    short = {**options, "target": 12, "buenas_from": 7, "camas_to_win": 1}
    for seed in range(2):
        seats = [checked(level), checked("random")] * (players // 2)
        play(preset, players, seats, seed, short)
        play(preset, players, seats[::-1], seed, short)


def test_basic_sings_its_flor_and_answers_the_contest_by_its_value() -> None:
    """RULES.md §5.3: a flor is sung when due; 35 raises to contraflor al resto, 26 concedes."""
    rules = E.resolve_rules("argentino_clasico", {"flor": True})
    state = E.start(E.start_match(rules))
    state = E.evolve(state, E.deal_hands(state, [["7O", "12O", "10O"], ["4B", "5B", "6B"]]))
    view = E.view_for(state, 0)
    assert basic.choose(view) == E.Action("flor")
    for event in E.decide(state, 0, E.Action("flor")):
        state = E.evolve(state, event)
    for event in E.decide(state, 1, E.Action("flor")):
        state = E.evolve(state, event)
    assert basic.choose(E.view_for(state, 1)) == E.Action("contraflor_al_resto")
    for event in E.decide(state, 1, E.Action("contraflor_al_resto")):
        state = E.evolve(state, event)
    assert basic.choose(E.view_for(state, 0)) == E.Action("no_quiero")  # 27 does not hold


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_strong_acts_legally_and_blind(preset: str, players: int) -> None:
    # A small budget: the search is the same, only its sample is smaller.
    seats = [checked("strong", samples=2), checked("basic")] * (players // 2)
    play(preset, players, seats, 11)
    fixed = checked("strong", samples=1, opponents="random", infer=False)
    play(preset, players, [checked("random"), fixed] * (players // 2), 12)


def test_the_default_strong_budget_decides_legally() -> None:
    for preset, players in TABLES:
        for decision in decisions(preset, players)[:60:10]:
            action = bots.choose("strong", decision.view, decision.history, random.Random(1))
            assert action in E.legal_actions(decision.state, decision.seat)


def test_basic_is_a_function_of_the_view() -> None:
    for preset, players in TABLES:
        for decision in decisions(preset, players)[:40]:
            first = bots.choose("basic", decision.view, decision.history, random.Random(1))
            assert bots.choose("basic", decision.view, [], random.Random(2)) == first


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_determinized_states_are_consistent(preset: str, players: int) -> None:
    rng = random.Random(5)
    for decision in decisions(preset, players)[::2]:
        state, seat, view, history = decision.state, decision.seat, decision.view, decision.history
        hand = state.hand
        assert hand is not None
        # The true deal rebuilds the true state, event for event.
        assert rebuild(view, history, hand.dealt) == state
        knowledge = Knowledge.of(view, history, models=everyone_basic(seat, players))
        assert knowledge.consistent(hand.dealt)
        for sample in determinize(view, history, rng, 2, everyone_basic(seat, players)):
            check_sample(state, seat, view, sample)
            assert sample == rebuild(view, history, sample.hand.dealt)  # type: ignore[union-attr]
            assert knowledge.consistent(sample.hand.dealt)  # type: ignore[union-attr]


def everyone_basic(seat: int, players: int) -> dict[int, Any]:
    return {other: basic.choose for other in range(players) if other != seat}


def check_sample(state: E.State, seat: int, view: dict[str, Any], sample: E.State) -> None:
    hand, guess = state.hand, sample.hand
    assert hand is not None and guess is not None
    # Own cards and every played card stay where they were.
    assert guess.dealt[seat] == hand.dealt[seat] and guess.held[seat] == hand.held[seat]
    assert (guess.bazas, guess.baza, guess.results) == (hand.bazas, hand.baza, hand.results)
    # The unseen cards go to the other seats, each holding as many as it really does.
    deck = E.DECKS[state.rules.deck]
    dealt = [card for cards in guess.dealt for card in cards]
    assert len(dealt) == len(set(dealt)) == 3 * state.players and set(dealt) <= set(deck)
    played = {card for plays in (*hand.bazas, hand.baza) for _, card in plays}
    for other in range(state.players):
        assert len(guess.held[other]) == len(hand.held[other])
        assert set(guess.dealt[other]) - set(guess.held[other]) == (
            set(hand.dealt[other]) - set(hand.held[other])
        )
        if other != seat:
            assert not set(guess.held[other]) & (played | set(hand.dealt[seat]))
    # The seat can do in the sample exactly what it can do in the game.
    assert E.legal_actions(sample, seat) == E.legal_actions(state, seat)
    assert [action.to_json() for action in E.legal_actions(sample, seat)] == view["legal_actions"]
    assert E.view_for(sample, seat) == view
    assert sample.scores == state.scores and sample.camas == state.camas


def test_the_other_seats_model_explains_what_they_did() -> None:
    """In basic-vs-basic matches, basic with the true cards makes the moves that were made."""
    checked_some = 0
    for preset, players in TABLES:
        for decision in decisions(preset, players):
            if not decision.all_basic:
                continue
            hand = decision.state.hand
            assert hand is not None
            knowledge = Knowledge.of(decision.view, decision.history)
            models = everyone_basic(decision.seat, players)
            assert knowledge.explains(hand.dealt, models)
            checked_some += 1
    assert checked_some > 100


def test_model_fit_reads_revealed_hands() -> None:
    """basic explains basic's revealed hands; a random player's, seldom."""
    for preset, players in TABLES:
        fits = [
            model_fit(decision.view, decision.history, basic.choose)
            for decision in decisions(preset, players)
            if decision.all_basic
        ]
        assert min(fits) >= 0 and max(fits) > 10
    lone = [  # the basic seats of the match against random players
        model_fit(decision.view, decision.history, basic.choose)
        for decision in decisions("argentino", 2)
        if not decision.all_basic and decision.seat == 0
    ]
    assert min(lone) < -strong.PRIOR


def test_envido_announcements_constrain_the_deals() -> None:
    seen = 0
    rng = random.Random(3)
    for preset, players in TABLES:
        for decision in decisions(preset, players):
            knowledge = Knowledge.of(decision.view, decision.history)
            if knowledge.envido is None:
                continue
            seen += 1
            winner, value, counted = knowledge.envido
            for _ in range(3):
                dealt = knowledge.sample(rng)
                best = [E.envido_of(dealt[seat]) for seat in counted if E.side_of(seat) == winner]
                assert max(best) == value
    assert seen > 20
    assert any(
        isinstance(event, EnvidoAccepted)
        for event in (E.event_from_json(data) for data in decisions("argentino", 2)[-1].history)
    )


def test_strong_is_reproducible_from_a_seed() -> None:
    for preset, players in (("valenciano", 2), ("argentino", 4)):
        for decision in decisions(preset, players)[:30:3]:
            args = (decision.view, decision.history)
            first = strong.choose(*args, random.Random(9), samples=4)
            assert strong.choose(*args, random.Random(9), samples=4) == first
    seats = [checked("strong", samples=2), checked("basic")]
    first = bots.play_match(E.PRESETS["argentino"], seats, random.Random(4))[1]
    assert bots.play_match(E.PRESETS["argentino"], seats, random.Random(4))[1] == first


def test_strong_takes_a_sure_point_and_refuses_a_sure_loss() -> None:
    """argentino, 2 players: seat 0 holds the top cards; every deal is consistent with that."""
    rules = E.PRESETS["argentino"]
    events: list[E.Event] = [E.start_match(rules)]
    state = E.replay(events)
    hands = [["1E", "1B", "7E"], ["4C", "5O", "6B"]]
    deal = E.deal_hands(state, hands)
    state = E.evolve(state, deal)
    events.append(deal)
    for seat, name in ((0, "paso"), (1, "paso")):
        for event in E.decide(state, seat, E.Action(name)):
            state = E.evolve(state, event)
            events.append(event)
    history = [E.redact(event, 0) for event in events]
    action = strong.choose(E.view_for(state, 0), history, random.Random(1))
    assert action == E.Action("truco")  # it cannot lose the hand: a call only adds points
    for event in E.decide(state, 0, action):
        state = E.evolve(state, event)
        events.append(event)
    history = [E.redact(event, 1) for event in events]
    view = E.view_for(state, 1)
    assert strong.choose(view, history, random.Random(1)) == E.Action("no_quiero")


def test_strong_without_the_hand_in_its_history_plays_basic() -> None:
    for decision in decisions("argentino_clasico", 2)[:20]:
        view = decision.view
        assert strong.choose(view, [], random.Random(1)) == basic.choose(view)
        stale = decision.history[: max(1, len(decision.history) - 1)]
        action = strong.choose(view, stale, random.Random(1))
        assert action.to_json() in view["legal_actions"]


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        bots.choose("grandmaster", {}, [], random.Random())
