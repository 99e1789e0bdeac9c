"""The bots (games/bots): legal actions only, blind to hidden cards, reproducible from a seed;
``strong``'s strategy file, its training and its mixing. No database: pure Python."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pytest

from bench import bot_matches
from bench import bot_styles as styles
from games import bots
from games import engine as E
from games.bots import basic, card_play, envido_reading, reading, strong, train_strong

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


def checked(level: str) -> bot_matches.Player:
    """A ``level`` bot (or style) whose every answer must be one of its view's legal actions."""

    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> Any:
        if level in styles.STYLES:
            action = styles.choose(level, view, rng)
        else:
            action = bots.choose(level, view, history, rng)
        assert isinstance(action, E.Action)
        assert action.to_json() in view["legal_actions"], (action, view["legal_actions"])
        return action

    return choose


def sometimes_times_out(player: bot_matches.Player, share: float) -> bot_matches.Player:
    """Lets the clock run out on ``share`` of the turns, as a player who walked away does."""

    def choose(view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random) -> Any:
        return None if rng.random() < share else player(view, history, rng)

    return choose


def play(
    preset: str,
    players: int,
    seats: list[bot_matches.Player],
    seed: int,
    options: dict[str, Any] | None = None,
) -> tuple[E.State, list[Decision]]:
    rules = E.resolve_rules(preset, {"players": players, **(options or {})})
    decisions: list[Decision] = []

    def watch(state: E.State, seat: int, view: dict[str, Any], history: list[Any]) -> None:
        check_blind(state, seat, view, history)
        decisions.append(Decision(state, seat, view, list(history)))

    state, _ = bot_matches.play_match(rules, seats, random.Random(seed), watch)
    assert state.match_over and state.winner in (0, 1)
    return state, decisions


@cache
def decisions(preset: str, players: int) -> list[Decision]:
    """Decision points of basic-vs-basic matches (one with timeouts) and a random match."""
    found: list[Decision] = []
    for seed in range(2):
        found += play(preset, players, [checked("basic")] * players, seed)[1]
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


def test_basic_is_a_function_of_the_view() -> None:
    for preset, players in TABLES:
        for decision in decisions(preset, players)[:40]:
            first = bots.choose("basic", decision.view, decision.history, random.Random(1))
            assert bots.choose("basic", decision.view, [], random.Random(2)) == first


@pytest.mark.parametrize(("preset", "players"), TABLES)
@pytest.mark.parametrize("other", ["basic", "random", *styles.STYLES])
def test_strong_and_the_styles_act_legally_and_blind(preset: str, players: int, other: str) -> None:
    play(preset, players, [checked("strong"), checked(other)] * (players // 2), 11)
    play(preset, players, [checked(other), checked("strong")] * (players // 2), 12)


def test_strong_reads_its_view_and_of_the_history_only_the_calls() -> None:
    """Of the history it reads only the calls, answers and passes in each hand and the cards shown
    (the reading of a call, games/bots/reading.py and envido_reading.py): the same view, those
    events alone and the same seed give the same action; and some of its answers do read them."""
    kept = (
        "truco_called",
        "envido_called",
        "envido_passed",
        "envido_accepted",
        "envido_refused",
        "card_played",
        "hand_ended",
    )
    read = 0
    for preset, players in TABLES:
        for index, decision in enumerate(decisions(preset, players)):
            readable = reading.readable(decision.view) or envido_reading.readable(decision.view)
            if index % 4 and not readable:
                continue
            first = strong.choose(decision.view, decision.history, random.Random(3))
            calls = [event for event in decision.history if event["type"] in kept]
            assert strong.choose(decision.view, calls, random.Random(3)) == first
            read += readable and len(decision.view["legal_actions"]) > 1
    assert read > 50


def test_the_strategy_file_loads_and_fits_the_abstraction() -> None:
    assert strong.POLICY_PATH.stat().st_size < 5_000_000
    policy = strong.load_policy()
    assert len(policy) > 500
    for key, weights in policy.items():
        actions = key.rsplit("|", 1)[1].split(",")
        assert len(actions) == len(weights) >= 2
        assert set(actions) <= {*strong.KNOWN, strong.NO_ENVIDO}
        assert all(isinstance(w, int) and w >= 0 for w in weights) and sum(weights) > 0


def test_the_strategy_covers_most_decisions() -> None:
    """Most decisions with a choice of calls are in the file (the rest fall back to basic)."""
    policy = strong.load_policy()
    asked = found = 0
    for preset, players in TABLES:
        for decision in decisions(preset, players):
            infoset = strong.infoset(decision.view)
            if infoset is not None and len(infoset[1]) > 1:
                asked += 1
                found += infoset[0] in policy
    assert asked > 500 and found / asked > 0.8, (found, asked)


def test_a_tiny_training_run_reproduces() -> None:
    first = train_strong.train(12, seed=5)
    assert train_strong.train(12, seed=5) == first
    assert train_strong.train(12, seed=6) != first
    assert first["strategies"] == {}  # no key reaches MIN_VISITS in 12 hands
    tables = train_strong.Tables()
    rng = random.Random(5)
    state = train_strong.fresh_hand(E.PRESETS["argentino"], rng)
    train_strong.walk(state, 0, 1, tables, rng)
    assert tables.regrets and all(min(r) >= 0.0 for r in tables.regrets.values())


def test_the_strategy_mixes_where_the_game_calls_for_it() -> None:
    """It bluffs with weak hands and does not always raise with strong ones (module docstring)."""
    policy = strong.load_policy()

    def share(key: str, action: str) -> float:
        actions = key.rsplit("|", 1)[1].split(",")
        return policy[key][actions.index(action)] / sum(policy[key])

    truco = [key for key in policy if key.startswith("T|") and key.endswith("|play,up")]
    weak = [key for key in truco if "|t0|" in key or "|t1|" in key]
    assert any(0.05 < share(key, "up") < 0.95 for key in weak)  # a truco bluff
    envido_open = [key for key in policy if key.startswith("O")]
    assert any(
        0.05 < share(key, strong.NO_ENVIDO) < 0.95
        for key in envido_open
        if "|e0|" in key or "|e1|" in key
    )  # an envido bluff
    assert any(0.05 < share(key, "play") < 0.95 for key in truco if "|t7|" in key)  # slow play
    # And the bot samples: the same view, different seeds, different actions.
    mixed = 0
    for decision in decisions("argentino", 2):
        infoset = strong.infoset(decision.view)
        if infoset is None or infoset[0] not in policy:
            continue
        weights = policy[infoset[0]]
        if min(weights) >= 100:
            picks = {strong.choose(decision.view, [], random.Random(seed)) for seed in range(40)}
            mixed += len(picks) > 1
    assert mixed > 0


def test_strong_never_refuses_a_call_whose_refusal_loses_the_cama() -> None:
    """argentino, 2 players, 29-28: a refused truco would give the caller the cama."""
    rules = E.PRESETS["argentino"]
    state = E.start(E.start_match(rules))
    state = replace(state, scores=(29, 28))
    state = E.evolve(state, E.deal_hands(state, [["1E", "1B", "7E"], ["4C", "5O", "6B"]]))
    for seat, name in ((0, "paso"), (1, "paso"), (0, "truco")):  # seat 0 is the mano
        for event in E.decide(state, seat, E.Action(name)):
            state = E.evolve(state, event)
    view = E.view_for(state, 1)
    assert strong.refusal_loses(view)
    picks = {strong.choose(view, [], random.Random(seed)).type for seed in range(60)}
    assert "no_quiero" not in picks


def test_a_big_falta_is_accepted_only_with_a_top_envido() -> None:
    """argentino, 2 players, 0-0: a falta is worth 15, and from a caller not seen before it is
    read as a top hand (a falta is a rarer call than an envido); a 28 refuses it (the learned
    strategy alone would mostly accept), a 32 never does."""
    rules = E.PRESETS["argentino"]
    for answer, refused in ((["7O", "1O", "2C"], True), (["7O", "5O", "2C"], False)):
        state = E.start(E.start_match(rules))
        state = E.evolve(state, E.deal_hands(state, [["7E", "6E", "1B"], answer]))
        for event in E.decide(state, 0, E.Action("falta_envido")):  # seat 0 is the mano
            state = E.evolve(state, event)
        view = E.view_for(state, 1)
        assert strong.falta_size(view) == 2
        seen = [{"type": "envido_called", "seat": 0, "call": "falta_envido"}]
        picks = {strong.choose(view, seen, random.Random(seed)).type for seed in range(40)}
        assert picks == {"no_quiero"} if refused else "no_quiero" not in picks


def test_strong_falls_back_to_basic_outside_its_abstraction() -> None:
    """A decision it has no abstraction for (here a made-up call) is basic's, not a crash; a card
    basic would play there is chosen by strong's own card play."""
    for decision in decisions("argentino", 4)[:30]:
        view = {**decision.view, "legal_actions": [*decision.view["legal_actions"], {"type": "x"}]}
        if len(decision.view["legal_actions"]) > 1:
            assert strong.infoset(view) is None
            fallback = basic.choose(view)
            if fallback.type == "play":
                fallback = E.Action("play", card=card_play.choose_card(view, random.Random(1)))
            assert strong.choose(view, [], random.Random(1)) == fallback


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        bots.choose("grandmaster", {}, [], random.Random())
