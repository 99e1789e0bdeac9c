"""What is pushed, and the players' rules: one push per cause and device written with the events,
checked again when sent (the turn already gone, the player at the table), the badge, the game's
own words in the device's language, choices and quiet hours, and never a card."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import time, timedelta

import http_ece
import pytest
from django.utils import timezone

from games import engine
from games.models import Game
from games.rated_results import rate_game
from notifications import reminders
from push import sending
from push.models import Push, PushSettings
from tests.notifications.conftest import act, mover
from tests.push.conftest import SETTINGS, leave_tables, register
from tests.push.fakes import Browser, PushService


@pytest.fixture
def service() -> Iterator[PushService]:
    local = PushService()
    yield local
    local.close()


@pytest.fixture
def game(table, service):
    """A started valenciano game; the seat that may not act yet has a browser subscribed."""
    game_id, clients = table("valenciano")
    seat, action = mover(game_id, clients)
    away = clients[1 - seat]
    browser = Browser(service.url(f"/push/{away.player.pk}"))
    register(away, {"kind": "webpush", "subscription": browser.subscription(), "locale": "ca"})
    return game_id, clients[seat], away, action, browser


def due_now(push: Push) -> str | None:
    """The deliberate delay passed: the worker's attempt."""
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    return sending.send(str(push.pk))


def decrypted(service: PushService, browser: Browser) -> list[dict]:
    return [
        json.loads(
            http_ece.decrypt(
                got.body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
            )
        )
        for got in service.pushes()
    ]


CARD = re.compile(
    "|".join(sorted({c for deck in engine.DECKS.values() for c in deck}, key=len, reverse=True))
)


def cards_in(text: str) -> set[str]:
    """Card codes standing alone in ``text`` (``7O``, ``1E``, ``12B``...)."""
    return {
        found.group(0)
        for found in CARD.finditer(text)
        if not text[max(0, found.start() - 1) : found.start()].isalnum()
        and not text[found.end() : found.end() + 1].isalnum()
    }


def test_turn_handed_over_is_pushed_once_to_the_away_device(game, service, settings) -> None:
    game_id, mover_client, away, action, browser = game
    act(mover_client, game_id, action)

    [push] = Push.objects.all()
    assert push.kind == "your_turn" and push.device.player == away.player
    assert push.cause == f"game:{game_id}:{action['expected_version'] + 1}:your_turn"
    assert push.due_at >= timezone.now() + timedelta(seconds=settings.PUSH_DELAY_SECONDS - 1)
    assert sending.send(str(push.pk)) is None  # not before the deliberate delay
    assert due_now(push) == "sent"

    [message] = decrypted(service, browser)
    assert message["title"] == "Et toca"
    assert message["body"] == f"Contra {mover_client.player.public_name}."
    data = message["data"]
    assert data["game_id"] == game_id and data["kind"] == "your_turn"
    assert data["badge"] == "1" and data["url"] == f"/play/#/game/{game_id}"


def test_no_card_in_any_push_nor_its_log(game, service, caplog) -> None:
    game_id, mover_client, away, action, browser = game
    act(mover_client, game_id, action)
    caplog.set_level("DEBUG")
    for push in Push.objects.all():
        due_now(push)

    [message] = decrypted(service, browser)
    assert cards_in(json.dumps(message)) == set()
    assert cards_in(json.dumps(list(Push.objects.values("data", "cause", "reason")))) == set()
    assert cards_in(caplog.text) == set()


def test_turn_already_answered_is_not_pushed(game, service) -> None:
    game_id, mover_client, away, action, _ = game
    act(mover_client, game_id, action)
    seat, answer = mover(game_id, [away])
    act(away, game_id, answer)  # the away player answered before the delay was over

    stale = Push.objects.get(device__player=away.player)
    assert due_now(stale) == "skipped"
    assert Push.objects.get(pk=stale.pk).reason == "the game moved on before it was sent"
    assert service.pushes() == []


def test_player_reading_the_game_is_not_pushed(game, service) -> None:
    game_id, mover_client, away, action, _ = game
    act(mover_client, game_id, action)
    assert away.get(f"/api/games/{game_id}").status_code == 200  # he is at the table

    [push] = Push.objects.all()
    assert due_now(push) == "skipped"
    assert Push.objects.get(pk=push.pk).reason == "the player was at the table"
    assert service.pushes() == []


def test_a_call_to_answer_in_the_games_words(game, service) -> None:
    game_id, mover_client, away, action, browser = game
    truc = {"type": "truc", "expected_version": action["expected_version"]}
    act(mover_client, game_id, truc)

    [push] = Push.objects.all()
    assert push.kind == "call_pending" and push.data["call"] == "truco"
    due_now(push)
    [message] = decrypted(service, browser)
    assert message["title"] == "Truc! Et toca respondre"


def test_choices_and_quiet_hours_write_no_push(game, service) -> None:
    game_id, mover_client, away, action, _ = game
    away.http.patch(SETTINGS, {"kinds": ["game_over"]}, format="json")
    act(mover_client, game_id, action)
    assert not Push.objects.exists()

    now = timezone.now().time()
    quiet = {
        "kinds": ["your_turn", "call_pending"],
        "quiet_from": time((now.hour + 23) % 24).strftime("%H:%M"),
        "quiet_until": time((now.hour + 1) % 24).strftime("%H:%M"),
    }
    assert away.http.patch(SETTINGS, quiet, format="json").status_code == 200
    seat, answer = mover(game_id, [away, mover_client])
    back = [away, mover_client][seat]
    act(back, game_id, answer)
    seat, again = mover(game_id, [away, mover_client])
    act([away, mover_client][seat], game_id, again)
    assert not Push.objects.filter(device__player=away.player).exists()


def test_time_almost_up_is_urgent_and_passes_quiet_hours_if_chosen(
    table, service, settings
) -> None:
    settings.REMINDER_LEAD_SECONDS = 3600
    game_id, clients = table("valenciano", turn_seconds=7200)
    seat, _ = mover(game_id, clients)
    player = clients[seat]
    browser = Browser(service.url("/push/urgent"))
    register(player, {"kind": "webpush", "subscription": browser.subscription()})
    PushSettings.objects.create(
        player=player.player,
        kinds=["time_almost_up"],
        quiet_from=time(0),
        quiet_until=time(23, 59, 59),
        urgent_in_quiet_hours=True,
    )
    Game.objects.filter(pk=game_id).update(deadline=timezone.now() + timedelta(minutes=30))
    leave_tables()

    assert reminders.sweep() == 1
    [push] = Push.objects.all()
    assert push.kind == "time_almost_up"
    assert due_now(push) == "sent"
    [got] = service.pushes()
    assert got.headers["urgency"] == "high"
    assert decrypted(service, browser)[0]["title"] == "Time almost up"


def test_a_rated_game_over_is_pushed_with_the_rating_change(game, service) -> None:
    game_id, mover_client, away, _, browser = game
    assert mover_client.post(f"/api/games/{game_id}/resign").status_code == 200
    assert not Push.objects.exists()  # rated: it waits for the rating

    rate_game(game_id)
    [push] = Push.objects.all()
    assert push.kind == "game_over" and push.data["won"] is True
    due_now(push)
    [message] = decrypted(service, browser)
    assert message["title"] == "Has guanyat"
    assert re.search(r"Elo \+\d+\.$", message["body"]), message["body"]


def test_a_challenge_is_pushed_to_the_challenged(make_client, service) -> None:
    challenger, challenged = make_client(display_name="Vicent"), make_client()
    browser = Browser(service.url("/push/challenged"))
    register(challenged, {"kind": "webpush", "subscription": browser.subscription()})
    body = {"preset": "valenciano", "opponents": [challenged.player.pk], "rated": False}
    assert challenger.post("/api/challenges", body).status_code == 201

    [push] = Push.objects.all()
    assert push.kind == "challenge_received"
    due_now(push)
    assert decrypted(service, browser)[0]["body"] == "Vicent challenges you."


def test_badge_counts_the_games_waiting_for_the_player(make_client, service) -> None:
    me, rival = make_client(), make_client()
    browser = Browser(service.url("/push/badge"))
    register(me, {"kind": "webpush", "subscription": browser.subscription()})
    for _ in range(2):
        game_id = rival.post("/api/games", {"preset": "valenciano"}).json()["id"]
        assert me.post(f"/api/games/{game_id}/join", {"seat": 1}).status_code == 200
        seat, action = mover(game_id, [rival, me])
        if seat == 0:
            act(rival, game_id, action)  # now the game waits for me

    pushes = list(Push.objects.filter(device__player=me.player).order_by("created_at"))
    assert len(pushes) == 2  # one per game: its turn handed to me
    due_now(pushes[-1])
    assert decrypted(service, browser)[0]["data"]["badge"] == "2"
