"""The outbox: the notifications a transaction's events cause are written with them, each one
built from its receiver's own view. No worker here: nothing is sent."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import engine, signals
from games.models import Game
from games.store.log import load_state
from notifications.models import Delivery, Kind
from notifications.outbox import kinds_for, pending_call
from tests.notifications.conftest import (
    act,
    deliveries_of,
    hidden_cards,
    mover,
    strings_in,
    subscribe,
)

ALL = [kind.value for kind in Kind]
CALLS = ("truco", "envido")
RAISES = ("retruco", "envido", "real_envido", "falta_envido")


def test_outbox_turn_hand_over_notifies_only_the_next_seat(table) -> None:
    game_id, clients = table("valenciano", players=2)
    subscriptions = [subscribe(client, None, ALL) for client in clients]
    seat, action = mover(game_id, clients)
    other = 1 - seat

    act(clients[seat], game_id, action)

    [turn] = deliveries_of(subscriptions[other], Kind.YOUR_TURN)
    assert deliveries_of(subscriptions[seat]) == []
    assert turn.version == Game.objects.get(pk=game_id).version
    data = turn.payload["data"]
    assert turn.payload["type"] == "your_turn"
    assert (data["seat"], data["state"]["turn"]) == (other, other)
    assert data["state"]["legal_actions"]
    assert [event["seq"] for event in data["events"]] == [turn.version]


def test_outbox_payload_shows_own_cards_never_another_seats(table) -> None:
    game_id, clients = table("argentino", players=4)
    subscriptions = [subscribe(client, None, ALL) for client in clients]
    for _ in range(6):  # through a few hand-overs, a deal included when the hand ends early
        seat, action = mover(game_id, clients)
        act(clients[seat], game_id, action)

    written = Delivery.objects.filter(game_id=game_id)
    assert written.count() >= 6
    for seat, subscription in enumerate(subscriptions):
        for delivery in deliveries_of(subscription):
            seen = strings_in(delivery.payload)
            assert not seen & hidden_cards(game_id, seat), delivery.payload
            hand = delivery.payload["data"]["state"]["hand"]
            assert hand is None or hand["my_cards"] is not None


def test_outbox_hand_ended_shows_the_next_deal_redacted(table) -> None:
    game_id, clients = table("valenciano", players=2)
    subscriptions = [subscribe(client, None, [Kind.HAND_ENDED]) for client in clients]
    seat, fold = mover(game_id, clients, ("mazo",))

    act(clients[seat], game_id, fold)

    for number, subscription in enumerate(subscriptions):
        [ended] = deliveries_of(subscription)
        [deal] = [e for e in ended.payload["data"]["events"] if e["type"] == "hand_dealt"]
        hands = deal["data"]["hands"]
        assert [cards is not None for cards in hands] == [i == number for i in range(2)]


def test_outbox_resignation_ends_the_match_for_both(table) -> None:
    game_id, clients = table("valenciano", players=2)
    subscriptions = [subscribe(client, None, ALL) for client in clients]

    clients[1].post(f"/api/games/{game_id}/resign")

    for subscription in subscriptions:
        [ended] = deliveries_of(subscription)
        assert ended.kind == "match_ended"
        assert ended.payload["data"]["status"] == "finished"


def test_outbox_call_is_pending_for_the_answering_side(table) -> None:
    game_id, clients = table("argentino", players=4)
    subscriptions = [subscribe(client, None, ALL) for client in clients]
    seat, call = mover(game_id, clients, CALLS)

    act(clients[seat], game_id, call)

    answering = [s for s in range(4) if s % 2 != seat % 2]
    for number, subscription in enumerate(subscriptions):
        kinds = sorted(delivery.kind for delivery in deliveries_of(subscription))
        assert kinds == (["call_pending", "your_turn"] if number in answering else [])


def test_outbox_subscription_gets_only_the_kinds_it_wants(table) -> None:
    game_id, clients = table("valenciano", players=2)
    subscriptions = [subscribe(client, None, [Kind.MATCH_ENDED]) for client in clients]
    seat, action = mover(game_id, clients)
    act(clients[seat], game_id, action)
    assert Delivery.objects.count() == 0

    clients[0].post(f"/api/games/{game_id}/resign")

    assert [len(deliveries_of(s, Kind.MATCH_ENDED)) for s in subscriptions] == [1, 1]


def test_outbox_player_not_seated_gets_nothing(table, make_client) -> None:
    outsider = make_client()
    subscribe(outsider, None, ALL)
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    act(clients[seat], game_id, action)
    assert Delivery.objects.count() == 0


def test_outbox_rolls_back_with_its_events(table) -> None:
    game_id, clients = table("valenciano", players=2)
    for client in clients:
        subscribe(client, None, ALL)
    seat, action = mover(game_id, clients)
    with pytest.raises(RuntimeError), transaction.atomic():
        act(clients[seat], game_id, action)
        assert Delivery.objects.count() == 1
        raise RuntimeError("the transaction fails after the events were written")
    assert Delivery.objects.count() == 0


def test_outbox_is_given_the_fold_before_and_after_each_action(table) -> None:
    """What the outbox tells a seat is the step from ``before`` to ``state`` that the store's
    signal gives it: each the fold of the log up to that event."""
    game_id, clients = table("valenciano", players=2)
    given: list[signals.Recorded] = []

    def keep(sender: Any, recorded: list[signals.Recorded], **_: Any) -> None:
        given.extend(recorded)

    signals.recorded_together.connect(keep, sender=Game, dispatch_uid="test_outbox.keep")
    try:
        for _ in range(4):
            seat, action = mover(game_id, clients)
            act(clients[seat], game_id, action)
    finally:
        signals.recorded_together.disconnect(keep, sender=Game, dispatch_uid="test_outbox.keep")
    game = Game.objects.get(pk=game_id)
    events = [engine.event_from_json(p) for p in game.events.values_list("payload", flat=True)]
    assert len(given) == 4
    for one in given:
        first, last = one.rows[0].seq, one.rows[-1].seq
        assert one.before == engine.replay(events[: first - 1])
        assert one.state == engine.replay(events[:last])


def test_kinds_for_a_raise_is_a_new_call(table) -> None:
    game_id, clients = table("argentino", players=2)
    seat, call = mover(game_id, clients, CALLS)
    act(clients[seat], game_id, call)
    game = Game.objects.get(pk=game_id)
    called = load_state(game)
    other, raise_ = mover(game_id, clients, RAISES)
    assert other != seat and pending_call(called) is not None
    act(clients[other], game_id, raise_)
    game.refresh_from_db()
    raised = load_state(game)
    assert pending_call(raised) != pending_call(called)
    assert kinds_for(seat, called, raised, set()) == ["your_turn", "call_pending"]
    assert kinds_for(other, called, raised, set()) == []
    assert kinds_for(other, raised, raised, set()) == []  # nothing new: nothing to say


def test_outbox_asks_for_subscriptions_once_an_action(table) -> None:
    """One statement an action asks whether a seated player subscribes, with or without one."""
    game_id, clients = table("valenciano", players=2)
    table_name = '"notifications_subscription"'

    def subscriptions_asked() -> int:
        seat, action = mover(game_id, clients)
        with CaptureQueriesContext(connection) as done:
            act(clients[seat], game_id, action)
        assert done.captured_queries
        return len([q for q in done.captured_queries if f"FROM {table_name}" in q["sql"]])

    assert subscriptions_asked() == 1
    subscribe(clients[1], None, ALL)
    assert subscriptions_asked() == 1
