"""Actions and events in and out of their JSON: what the stream stores and what clients send."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import engine as E
from games.engine import events as ev
from games.engine.actions import ALIASES, CANONICAL

RULES = E.resolve_rules("valenciano", {"players": 4})

#: One event of every type, with every field set to something a game really stores.
EVENTS: tuple[E.Event, ...] = (
    ev.MatchStarted(RULES, E.RULES_VERSION),
    ev.HandDealt(
        1, 3, (("1E", "5E", "4B"), ("1B", "6E", "5B"), ("3E", "7E", "6B"), ("4E", "3B", "7B"))
    ),
    ev.HandDealt(2, 0, (("1E", "5E", "4B"),) * 6, "pica_pica"),
    ev.EnvidoPassed(0),
    ev.CardPlayed(1, "7O"),
    ev.TrucoCalled(2, "retruco", 3),
    ev.TrucoAccepted(3, 3),
    ev.TrucoRefused(1, 2),
    ev.EnvidoCalled(0, "falta_envido"),
    ev.EnvidoAccepted(1, 1, 33, 7),
    ev.EnvidoRefused(0, 1, 2),
    ev.FlorSung(1),
    ev.FlorCalled(0, "contraflor_al_resto"),
    ev.FlorSettled(3, "quiero", 1, 35, 16),
    ev.FlorSettled(None, "unopposed", 0, None, 6),
    ev.Folded(2, 1),
    ev.TurnTimedOut(3, 2),
    ev.BazaEnded(2, E.PARDA, None, 0),
    ev.DuelEnded(1, 0, "mazo", (("flor", 1, 3), ("truco", 0, 1)), (4, 9)),
    ev.DuelStarted(2, (2, 5)),
    ev.HandEnded(4, 0, "bazas", (("envido", 1, 2), ("truco", 0, 3)), (12, 7)),
    ev.CamaEnded(0, (1, 0)),
    ev.MatchEnded(None, "aborted", 3),
)


def through_text(data: dict[str, Any]) -> dict[str, Any]:
    """What a database JSON column or an HTTP body gives back."""
    loaded: dict[str, Any] = json.loads(json.dumps(data))
    return loaded


def test_every_event_type_is_covered() -> None:
    assert {event.TYPE for event in EVENTS} == set(E.EVENT_TYPES)


@pytest.mark.parametrize("event", EVENTS, ids=lambda event: event.TYPE)
def test_event_round_trips_through_json(event: E.Event) -> None:
    data = through_text(event.to_json())
    assert data["type"] == event.TYPE and data["v"] == event.SCHEMA
    assert E.event_from_json(data) == event


def test_a_deal_of_schema_1_reads_back_as_a_redonda() -> None:
    """Deals stored before the hand kind existed (RULES.md §9) are redondas."""
    data = through_text(ev.HandDealt(1, 1, (("1E", "5E", "4B"), ("1B", "6E", "5B"))).to_json())
    assert data["v"] == 2 and data["kind"] == "redonda"
    del data["kind"]
    dealt = E.event_from_json({**data, "v": 1})
    assert isinstance(dealt, ev.HandDealt) and dealt.kind == "redonda"


def test_event_stream_of_a_played_hand_round_trips() -> None:
    events: list[E.Event] = [E.start_match(RULES)]
    state = E.replay(events)
    events.append(E.deal(state, E.DECKS[RULES.deck]))
    state = E.evolve(state, events[-1])
    while not state.hand.over:
        seat = E.turn(state)
        assert seat is not None
        for event in E.decide(state, seat, E.legal_actions(state, seat)[0]):
            events.append(event)
            state = E.evolve(state, event)
    read_back = [E.event_from_json(through_text(event.to_json())) for event in events]
    assert read_back == events
    assert E.replay(read_back) == state


@pytest.mark.parametrize("name", [*CANONICAL, *ALIASES])
def test_action_round_trips_through_json(name: str) -> None:
    data = {"type": name, "card": "11E"} if name == "play" else {"type": name}
    action = E.Action.from_json(through_text(data))
    assert action.to_json() == data  # a client reads back the word it said
    assert action.type == ALIASES.get(name, name) and action.type in CANONICAL
    assert E.Action.from_json(action.to_json()) == action


def test_play_reads_every_card_of_the_spanish_deck() -> None:
    for card in E.DECKS["spanish40"]:
        assert E.Action.from_json({"type": "play", "card": card}) == E.play(card)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "Flor"}, "unknown_action"),
        ({"type": "contra_flor"}, "unknown_action"),
        ({"type": "flor", "card": "1E"}, "unknown_field"),
        ({"type": "Truco"}, "unknown_action"),
        ({"type": None}, "unknown_action"),
        ({"card": "1E"}, "required"),
        ({"type": "truco", "card": "1E"}, "unknown_field"),
        ({"type": "vull", "seat": 1}, "unknown_field"),
        ({"type": "play", "card": "1E", "seat": 0}, "unknown_field"),
        ({"type": "play"}, "required"),
        ({"type": "play", "card": "8E"}, "invalid_card"),
        ({"type": "play", "card": "1e"}, "invalid_card"),
    ],
)
def test_malformed_action_raises_invalid_action(data: dict[str, Any], code: str) -> None:
    with pytest.raises(E.InvalidAction) as error:
        E.Action.from_json(data)
    assert error.value.code == code


def test_action_that_is_not_an_object_raises_invalid_action() -> None:
    with pytest.raises(E.InvalidAction) as error:
        E.Action.from_json(["play", "1E"])  # type: ignore[arg-type]  # the wrong type tried
    assert error.value.code == "invalid_action"


def test_unknown_event_type_raises_invalid_event() -> None:
    with pytest.raises(E.InvalidEvent):
        E.event_from_json({"type": "flor_called", "v": 1, "seat": 0})
    with pytest.raises(E.InvalidEvent):
        E.event_from_json({"v": 1, "seat": 0})


@pytest.mark.parametrize("event", EVENTS, ids=lambda event: event.TYPE)
def test_event_of_a_newer_or_no_schema_raises_invalid_event(event: E.Event) -> None:
    for version in (event.SCHEMA + 1, 0, None, "1"):
        data = {**event.to_json(), "v": version}
        with pytest.raises(E.InvalidEvent) as error:
            E.event_from_json(data)
        assert error.value.code == "invalid_event"


def test_event_with_an_unknown_or_missing_field_raises_invalid_event() -> None:
    played = ev.CardPlayed(1, "7O").to_json()
    with pytest.raises(E.InvalidEvent):
        E.event_from_json({**played, "face_down": True})
    with pytest.raises(E.InvalidEvent):
        E.event_from_json({key: value for key, value in played.items() if key != "card"})


def test_stream_of_a_newer_rules_version_raises_invalid_event() -> None:
    newer = ev.MatchStarted(RULES, E.RULES_VERSION + 1)
    with pytest.raises(E.InvalidEvent):
        E.replay([E.event_from_json(newer.to_json())])
