"""Property tests of the referee: random full matches, every invariant checked after every step.

Each example is one match of a preset at a table size, played from a seed that hypothesis draws: the
seed drives the shuffles and every choice of seat and action, so a failure names the seed that
reproduces it. After every deal and every action the match must keep RULES.md §8's guarantees:
each card in exactly one place, ``legal_actions`` exactly what ``decide`` accepts (for every seat;
``timeout_action`` among them), the state equal to the replay of its events (and to the last
snapshot restored plus the events since), no view or redacted event showing a card its reader may
not see, scores and camas that only move forward, and a match that ends.

The same runs with the flor on (RULES.md §5.3; deals rigged now and then so that several seats
hold flores and the contest is played) and at six-player tables, with and without pica-pica (§9):
views and redacted events must then also never tell whether a seat holds a flor it has not sung.

The number of matches per configuration comes from the hypothesis profile (``conftest.py``):
``TRUC_PROPERTY_EXAMPLES=2000`` or ``TRUC_PROPERTY_PROFILE=thorough`` asks for thousands.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from games import engine as E
from games.engine.actions import ALIASES, CANONICAL
from games.engine.events import MatchStarted

#: The hypothesis profile of ``conftest.py`` (``default`` or ``thorough``) the matches run under,
#: applied to the property test only: the suite's own active profile stays as it is.
PROFILE = settings.get_profile("engine_" + os.environ.get("TRUC_PROPERTY_PROFILE", "default"))
TABLES = [(preset, players) for preset in E.PRESETS for players in (2, 4)]
#: The optional features: the flor at 2 and 4 players, six players with either fold mode, and
#: pica-pica (whose redondas are six-player hands) with and without the flor. Their matches are
#: one short cama (``FEATURE_MATCH``), so that hundreds of them fit the default run: every rule
#: still comes up many times in each.
FEATURE_TABLES = [
    ("argentino", 2, {"flor": True}),
    ("argentino_clasico", 4, {"flor": True}),
    ("valenciano", 6, {}),
    ("argentino", 6, {"pica_pica": True}),
    ("argentino_clasico", 6, {"pica_pica": True, "flor": True}),
]
FEATURE_MATCH = {"target": 12, "buenas_from": 7, "camas_to_win": 1}
FEATURE_PROFILE = settings.get_profile(
    "engine_features_" + os.environ.get("TRUC_PROPERTY_PROFILE", "default")
)
MAX_STEPS = 10_000  # a deal or an action; a random match takes a few hundred
CARD_STRING = re.compile(r'"((?:1[0-2]|[1-7])[EBOC])"')

#: The actions a player could send without a card, legal or not: each canonical type and each alias.
CALLS: tuple[E.Action, ...] = (
    *(E.Action.from_json({"type": kind}) for kind in CANONICAL if kind != "play"),
    *(E.Action.from_json({"type": alias}) for alias in ALIASES),
)

#: How often a random player picks each kind of legal action, one style drawn per match: mostly
#: cards and seldom the mazo, so hands run to their bazas and not only to refusals and folds; or
#: every legal action alike, so the call ladders are climbed to their tops.
STYLES: tuple[dict[str, float], ...] = ({"play": 3.0, "mazo": 0.25}, {})


def _first(event: E.Event) -> MatchStarted:
    """A match's first event, which only ``start`` folds."""
    assert isinstance(event, MatchStarted)
    return event


@dataclass
class Match:
    """One random match and what the checks remember between its steps."""

    rules: E.Rules
    rng: random.Random
    candidates: tuple[E.Action, ...] = ()  # every call, and a play of every card of the deck
    weights: dict[str, float] = field(default_factory=dict)  # of the kinds of action (STYLES)
    events: list[E.Event] = field(default_factory=list)
    state: E.State | None = None
    replayed: E.State | None = None  # the fold of the events read back from their JSON
    restored: E.State | None = None  # the last snapshot between hands, restored, + the events since
    deck: tuple[str, ...] = ()  # the shuffled deck of the hand in progress
    log: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (seat, action) taken
    hand_events: list[tuple[E.Event, dict[int | None, frozenset[str]]]] = field(
        default_factory=list
    )  # this hand's events, with the card strings of each reader's redaction

    def fold(self, events: Sequence[E.Event]) -> None:
        for event in events:
            before = self.state
            self.state = E.start(_first(event)) if before is None else E.evolve(before, event)
            self.events.append(event)
            assert self.state.version == len(self.events)
            read_back = read_back_event(event)
            self.replayed = (
                E.start(_first(read_back))
                if self.replayed is None
                else E.evolve(self.replayed, read_back)
            )
            if self.restored is not None:
                self.restored = E.evolve(self.restored, read_back)
            if isinstance(event, E.events.HandDealt):
                self.hand_events = []
            self.hand_events.append((event, redactions(event, self.rules.players)))
            if before is not None:
                check_scores_move_forward(before, self.state, event)


def shuffle(match: Match, state: E.State) -> tuple[str, ...]:
    """A shuffled deck; with the flor on, half the deals give some seats three of a suit."""
    deck = list(E.DECKS[match.rules.deck])
    match.rng.shuffle(deck)
    if not match.rules.flor or match.rng.random() < 0.5:
        return tuple(deck)
    players = state.players
    mano = (state.next_dealer + 1) % players
    hands: dict[int, list[str]] = {}
    for seat in match.rng.sample(range(players), match.rng.randint(1, players)):
        suit = match.rng.choice("EBOC")
        same = [card for card in deck if card.endswith(suit)][:3]
        if len(same) == 3:
            hands[seat] = same
            deck = [card for card in deck if card not in same]
    order = [card for seat in range(players) for card in hands.get(seat, [])]
    rest = [card for card in deck if card not in order]
    for seat in range(players):
        while len(hands.setdefault(seat, [])) < 3:
            hands[seat].append(rest.pop())
    # the deal gives place p to seat (mano + p) mod players (RULES.md §1)
    dealt = [hands[(mano + place) % players][place // players] for place in range(3 * players)]
    return (*dealt, *rest)


def new_match(rules: E.Rules, seed: int) -> Match:
    plays = (E.Action.from_json({"type": "play", "card": card}) for card in E.DECKS[rules.deck])
    rng = random.Random(seed)
    match = Match(rules, rng, (*CALLS, *plays), rng.choice(STYLES))
    match.fold([E.start_match(rules)])
    return match


def play(match: Match) -> None:
    """Deal and act at random until the match is over, checking everything after every step."""
    for _ in range(MAX_STEPS):
        state = match.state
        assert state is not None
        legal = check_legal_actions(state, match.candidates, match.replayed)
        if state.match_over:
            check_match_end(match)
            return
        if state.needs_deal:
            assert E.replay(match.events) == state  # the whole stream, at every hand's end
            # The server rebuilds a game from a snapshot taken here and the events after it.
            match.restored = E.restore(json.loads(json.dumps(E.snapshot(state))))
            match.deck = shuffle(match, state)
            match.fold([E.deal(state, match.deck)])
        else:
            seat, action = choose(match, legal)
            match.log.append((seat, action.to_json()))
            match.fold(E.decide(state, seat, action))
        check_step(match)
    raise AssertionError(f"the match did not end within {MAX_STEPS} steps")


def choose(match: Match, legal: dict[int, tuple[E.Action, ...]]) -> tuple[int, E.Action]:
    """A random seat among those that may act (not always ``turn``), then a weighted action."""
    state = match.state
    assert state is not None
    seats = [seat for seat, actions in legal.items() if actions]
    seat = E.turn(state)
    assert seat is not None
    if len(seats) > 1 and match.rng.random() < 0.3:
        seat = match.rng.choice(seats)  # another member of the answering side answers
    actions = legal[seat]
    weights = [match.weights.get(action.type, 1.0) for action in actions]
    return seat, match.rng.choices(actions, weights)[0]


# --- the checks -----------------------------------------------------------------------------------


def check_step(match: Match) -> None:
    state = match.state
    assert state is not None and state.hand is not None
    check_cards_in_one_place(state.hand, match.deck)
    # The replay of every event so far, folded one event a step (``E.replay`` of the whole stream
    # at every step would cost O(n²); it runs at each deal and at the end of the match).
    assert match.replayed == state
    assert match.restored == state, "restore(snapshot) + the events since differs from the state"
    check_nothing_hidden_is_shown(match)
    check_unsung_flores_are_not_shown(match)


def check_cards_in_one_place(hand: E.Hand, deck: Sequence[str]) -> None:
    """Every card of the deck dealt from is in one hand, on the table, or in the undealt rest."""
    dealt_count = 3 * len(hand.held)
    assert hand.dealt == tuple(
        tuple(deck[place] for place in range(dealt_count) if place % len(hand.held) == offset)
        for offset in _offsets(hand)
    ), "the hands are not the deal of the deck"
    places = Counter(card for cards in hand.held for card in cards)
    places.update(card for _, card in hand.baza)
    places.update(card for plays in hand.bazas for _, card in plays)
    places.update(card for plays in hand.earlier_duels for _, card in plays)  # pica-pica (§9)
    places.update(deck[dealt_count:])
    assert places == Counter(deck), f"cards out of place: {places - Counter(deck)}"


def _offsets(hand: E.Hand) -> Iterator[int]:
    """For seat 0, 1, ...: its first card's place in the deal, which starts with the mano (§1)."""
    players = len(hand.held)
    return ((seat - hand.mano) % players for seat in range(players))


def check_legal_actions(
    state: E.State, candidates: Sequence[E.Action], snapshot: E.State | None
) -> dict[int, tuple[E.Action, ...]]:
    """§8: ``legal_actions`` lists exactly what ``decide`` accepts, for every seat; returns them.

    Every candidate is tried on ``state``; afterwards it must still equal ``snapshot``, an equal
    state built apart from it (the replay), so no refused or accepted action changed it.
    """
    legal = {seat: E.legal_actions(state, seat) for seat in range(state.players)}
    for seat, listed in legal.items():
        assert len(set(listed)) == len(listed), f"seat {seat} lists an action twice: {listed}"
        assert all(action.type in CANONICAL and action.said is None for action in listed)
        accepted = {}
        for action in candidates:
            try:
                accepted[action] = E.decide(state, seat, action)
            except E.IllegalAction as error:
                assert error.code in E.REASONS, f"unstable code {error.code!r}"
        canonical = {action for action in accepted if action.said is None}
        assert canonical == set(listed), (
            f"seat {seat}: decide accepts {sorted(map(str, canonical))}, "
            f"legal_actions lists {sorted(map(str, listed))}"
        )
        for action in accepted.keys() - canonical:
            # An alias is its canonical action: the same events (RULES.md §5).
            assert accepted[action] == accepted[E.Action(action.type)], action
        for alias, name in ALIASES.items():
            said = E.Action.from_json({"type": alias})
            expected = E.Action(name) in canonical and (alias != "torne" or _torne_fits(state))
            assert (said in accepted) == expected, f"seat {seat}: alias {alias!r}"
    assert state == snapshot, "trying the actions changed the state"
    if state.hand is not None and state.hand.pending_caller is not None:
        # RULES.md §5: no card may be played while a call is pending.
        assert all(action.type != "play" for actions in legal.values() for action in actions)
    acting = {seat for seat, actions in legal.items() if actions}
    # ``turn`` is one of the seats that may act (the first answerer while a call is pending, §5);
    # the others can only be its partners answering the same call.
    turn = E.turn(state)
    assert (turn is None) == (not acting), f"turn {turn}, seats that may act {acting}"
    assert acting <= _answering_seats(state) | {turn}, f"turn {turn}, may act {acting}"
    assert turn is None or turn in acting
    if turn is not None:
        seat, action = E.timeout_action(state)  # what the clock makes a seat do must be legal
        assert action in legal[seat], f"timeout_action gives {seat} {action}"
    return legal


def _torne_fits(state: E.State) -> bool:
    """RULES.md §5: ``torne`` is accepted only as the raise over an envit."""
    hand = state.hand
    return hand is not None and hand.envido_pending and hand.envido_calls == ("envido",)


def _answering_seats(state: E.State) -> set[int]:
    hand = state.hand
    caller = None if hand is None else hand.pending_caller
    if hand is None or caller is None:
        return set()
    return {
        seat
        for seat in range(state.players)
        if E.side_of(seat) != E.side_of(caller) and seat not in hand.folded
    }


def read_back_event(event: E.Event) -> E.Event:
    """The event through its plain JSON text and back, which must give the same event."""
    data = event.to_json()
    read_back = E.event_from_json(json.loads(json.dumps(data)))
    assert read_back == event, f"{data} reads back as {read_back}"
    return read_back


def check_scores_move_forward(before: E.State, after: E.State, event: E.Event) -> None:
    """§7: within a cama scores only grow, by the points the hands announce, up to the target;
    camas only grow."""
    target = after.rules.target
    assert all(0 <= score <= target for score in after.scores), after.scores
    if before.cama_won and isinstance(event, E.events.HandDealt):
        assert after.scores == (0, 0)
    elif isinstance(event, E.events.HandEnded):
        scores = list(before.scores)  # the hand's points, in order, capped at the target
        for _, side, points in event.points:
            scores[side] = min(target, scores[side] + points)
        assert after.scores == tuple(scores) == event.scores, event
    else:
        assert all(a >= b for a, b in zip(after.scores, before.scores, strict=True)), event
    assert all(a >= b for a, b in zip(after.camas, before.camas, strict=True)), event
    assert all(camas <= after.rules.camas_to_win for camas in after.camas)


def check_nothing_hidden_is_shown(match: Match) -> None:
    """§8: no reader sees another seat's unplayed cards or the undealt deck, in views or events."""
    state = match.state
    assert state is not None and state.hand is not None
    undealt = set(match.deck[3 * state.players :])
    held = state.hand.held
    for reader in (*range(state.players), None):
        hidden = undealt | {
            card for seat, cards in enumerate(held) if seat != reader for card in cards
        }
        view = E.view_for(state, reader)
        shown = card_strings(view)
        assert not shown & hidden, f"view_for seat {reader} shows {sorted(shown & hidden)}"
        if reader is not None:
            assert view["hand"]["my_cards"] == list(held[reader])
        for event, seen in match.hand_events:
            leaked = seen[reader] & hidden
            if isinstance(event, E.events.HandDealt):
                # A deal shows the reader his own cards only, even the ones played since.
                leaked = seen[reader] - (set(event.hands[reader]) if reader is not None else set())
            assert not leaked, f"redact({event.TYPE}, {reader}) shows {sorted(leaked)}"


def check_unsung_flores_are_not_shown(match: Match) -> None:
    """§8: nothing any other reader sees depends on a flor not yet sung; the only flor value
    shown is the winning one of a compared contest (§5.3.6).

    For each seat that owes its flor (holds it, has not sung it, so has played no card), the same
    state with one of its cards exchanged for an undealt card of another suit (no flor any more)
    must give every other reader the very same view.
    """
    state = match.state
    assert state is not None and state.hand is not None
    hand = state.hand
    starts = (E.events.HandDealt, E.events.DuelStarted)  # a duel has its own flor (§9)
    start = max(i for i, (event, _) in enumerate(match.hand_events) if isinstance(event, starts))
    events = [event for event, _ in match.hand_events[start:]]
    sung = [event.seat for event in events if isinstance(event, E.events.FlorSung)]
    assert list(hand.flor_sung) == sung
    compared = [
        event for event in events if isinstance(event, E.events.FlorSettled) and event.value
    ]
    for event in compared:
        assert event.how == "quiero" and event.value == max(
            E.flor_of(hand.dealt[singer]) or 0 for singer in sung
        ), event
    if not state.rules.flor:
        return
    undealt = match.deck[3 * state.players :]
    for owner in range(state.players):
        cards = hand.held[owner]
        if owner in hand.flor_sung or len(cards) < 3 or E.flor_of(cards) is None:
            continue  # (a seat that has played a card sang first, maybe in an earlier duel)
        other = next(card for card in undealt if card[-1] != cards[0][-1])
        changed = (other, *cards[1:])
        dealt = tuple(changed if seat == owner else now for seat, now in enumerate(hand.dealt))
        held = tuple(changed if seat == owner else now for seat, now in enumerate(hand.held))
        twin = replace(state, hand=replace(hand, dealt=dealt, held=held))
        for reader in (*range(state.players), None):
            if reader != owner:
                assert E.view_for(twin, reader) == E.view_for(state, reader), (
                    f"seat {reader}'s view tells that seat {owner} holds a flor"
                )


def redactions(event: E.Event, players: int) -> dict[int | None, frozenset[str]]:
    """The cards each reader sees of an event, redacted from the event or from its stored JSON."""
    seen: dict[int | None, frozenset[str]] = {}
    for reader in (*range(players), None):
        redacted = E.redact(event, reader)
        assert E.redact_json(event.to_json(), reader) == redacted
        seen[reader] = card_strings(redacted)
    return seen


def card_strings(data: Any) -> frozenset[str]:
    """Every card named in a JSON-ready structure: whole JSON strings, so "1E" is not in "11E"."""
    return frozenset(CARD_STRING.findall(json.dumps(data)))


def check_match_end(match: Match) -> None:
    state = match.state
    assert state is not None and state.hand is not None and state.hand.over
    assert state.end_reason == "camas"
    assert state.winner is not None
    assert state.camas[state.winner] == state.rules.camas_to_win
    assert state.camas[1 - state.winner] < state.rules.camas_to_win
    assert E.turn(state) is None
    assert all(not E.legal_actions(state, seat) for seat in range(state.players))
    assert E.replay(E.event_from_json(event.to_json()) for event in match.events) == state


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), TABLES)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
@settings(PROFILE, deadline=None)  # again here: another plugin may load its own default profile
def test_random_matches_keep_the_referee_guarantees(preset: str, players: int, seed: int) -> None:
    match = new_match(E.resolve_rules(preset, {"players": players}), seed)
    try:
        play(match)
    except AssertionError:
        note(f"last actions (seat, action): {match.log[-12:]}")
        raise


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players", "options"), FEATURE_TABLES)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
@settings(FEATURE_PROFILE, deadline=None)
def test_random_matches_with_flor_and_six_players_keep_the_referee_guarantees(
    preset: str, players: int, options: dict[str, bool], seed: int
) -> None:
    overrides = {"players": players, **FEATURE_MATCH, **options}
    match = new_match(E.resolve_rules(preset, overrides), seed)
    try:
        play(match)
    except AssertionError:
        note(f"last actions (seat, action): {match.log[-12:]}")
        raise


def test_card_strings_match_whole_cards_only() -> None:
    assert card_strings({"a": ["11E", "x1E", "1E "], "1E": None}) == {"11E", "1E"}
    assert card_strings(["11E", "2E", "8O"]) == {"11E", "2E"}
