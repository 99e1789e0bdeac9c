"""'The deadline is near': once per (game, version), to the seats that must act, and only when
the deadline really is near."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from games.models import Game
from notifications import reminders, sending
from notifications.models import Delivery, Kind, Reminder
from notifications.tasks import send_deadline_reminders
from tests.notifications.conftest import (
    act,
    deliveries_of,
    hidden_cards,
    mover,
    strings_in,
    subscribe,
)

LEAD = 600


@pytest.fixture(autouse=True)
def _lead(settings) -> None:
    settings.REMINDER_LEAD_SECONDS = LEAD


def _deadline_in(game_id: str, seconds: float) -> None:
    Game.objects.filter(pk=game_id).update(deadline=timezone.now() + timedelta(seconds=seconds))


@pytest.fixture
def game(table):
    """A 2-player game with hour-long turns, both players subscribed to reminders."""
    game_id, clients = table("valenciano", players=2, turn_seconds=3600)
    subscriptions = [subscribe(client, None, [Kind.DEADLINE_NEAR]) for client in clients]
    return game_id, clients, subscriptions


def test_reminder_once_per_version_to_the_seat_that_must_act(game) -> None:
    game_id, clients, subscriptions = game
    seat, action = mover(game_id, clients)
    _deadline_in(game_id, LEAD - 60)

    assert send_deadline_reminders() == 1
    assert send_deadline_reminders() == 0

    [reminder] = deliveries_of(subscriptions[seat])
    assert deliveries_of(subscriptions[1 - seat]) == []
    data = reminder.payload["data"]
    assert reminder.payload["type"] == "deadline_near"
    assert (data["seat"], data["state"]["turn"], data["events"]) == (seat, seat, [])
    assert not strings_in(reminder.payload) & hidden_cards(game_id, seat)
    version = Game.objects.get(pk=game_id).version
    assert list(Reminder.objects.values_list("version", flat=True)) == [version]

    act(clients[seat], game_id, action)  # a new version, a new turn, a new deadline (an hour)
    assert send_deadline_reminders() == 0
    _deadline_in(game_id, LEAD - 60)
    assert send_deadline_reminders() == 1
    assert [len(deliveries_of(s)) for s in subscriptions] == [1, 1]


def test_reminder_not_before_the_lead_time_nor_after_the_deadline(game) -> None:
    game_id, *_ = game
    _deadline_in(game_id, LEAD + 60)
    assert reminders.due() == []
    _deadline_in(game_id, -1)  # overdue: the timeout is applied instead
    assert reminders.due() == []
    game_version = Game.objects.get(pk=game_id).version
    assert reminders.remind(game_id, game_version) is False
    assert Reminder.objects.count() == 0


def test_reminder_not_for_turns_shorter_than_the_lead(table) -> None:
    game_id, clients = table("valenciano", players=2, turn_seconds=LEAD)
    subscribe(clients[0], None, [Kind.DEADLINE_NEAR])
    _deadline_in(game_id, 30)
    assert reminders.due() == []


def test_reminder_stale_version_does_nothing(game) -> None:
    game_id, *_ = game
    _deadline_in(game_id, 60)
    version = Game.objects.get(pk=game_id).version
    assert reminders.remind(game_id, version - 1) is False
    assert reminders.remind(game_id, version) is True
    assert reminders.remind(game_id, version) is False
    assert Delivery.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_reminder_racing_sweeps_remind_once(game, monkeypatch) -> None:
    monkeypatch.setattr(sending, "send_after_commit", lambda *args: None)  # no worker here
    game_id, *_ = game
    _deadline_in(game_id, 60)
    version = Game.objects.get(pk=game_id).version
    start = threading.Barrier(6)
    results: list[bool] = []

    def sweep() -> None:
        try:
            start.wait()
            results.append(reminders.remind(game_id, version))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sweep) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == [False] * 5 + [True]
    assert Reminder.objects.count() == Delivery.objects.count() == 1
