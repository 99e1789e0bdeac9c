"""The proof over bot games with away players: a person against a bot in each game, his devices on
the push lab, the harness acting for him turn by turn, sometimes away (the push must come, once
per device), sometimes at the table (his own move's instant answer by the bot must not buzz), and
sometimes answering before the deliberate delay is over (the push must not come). Some devices are
dead (refused once: removed), some push services throttle once (429 with Retry-After: retried),
some players chose quiet hours or other kinds (nothing written). Every push is decrypted: the badge
is right and no card is in it, nor in any stored row or log line.

Games: ``TRUC_PUSH_GAMES`` (20 by default; 200 with ``TRUC_PROPERTY_PROFILE=thorough``).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from datetime import time

import http_ece
import pytest
from django.utils import timezone

from games import bot_players
from games.models import Game, Seat
from games.store.log import load_state
from push import sending
from push.models import Device, Push, PushSettings
from tests.notifications.conftest import act
from tests.push.conftest import leave_tables, register
from tests.push.fakes import Browser, PushService
from tests.push.test_outbox import cards_in

pytestmark = pytest.mark.slow

THOROUGH = os.environ.get("TRUC_PROPERTY_PROFILE") == "thorough"
GAMES = int(os.environ.get("TRUC_PUSH_GAMES", "200" if THOROUGH else "20"))
#: The person's turns played in each game before he resigns it.
TURNS = 8
TURN_KINDS = ("your_turn", "call_pending")


@pytest.fixture
def service() -> Iterator[PushService]:
    local = PushService()
    yield local
    local.close()


def play_bots(game_id: str) -> None:
    """The bot's moves until the person may act or the game is over, as its tasks would."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status != "active":
            return
        seat = bot_players.bot_to_move(game, load_state(game))
        if seat is None:
            return
        assert bot_players.move(game.pk, game.version, seat)


def send_due(player, only: set | None = None) -> list[str]:
    """The worker, once the delay is over: every pending push of the player's (of ``only``),
    attempted until none is pending (a 429's Retry-After of 0 is due at once)."""
    statuses = []
    query = Push.objects.filter(device__player=player, status="pending")
    if only is not None:
        query = query.filter(pk__in=only)
    while pending := list(query.all()):
        for push in pending:
            Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
            statuses.append(sending.send(str(push.pk)))
    return statuses


class Tally(Counter[str]):
    pass


def test_pushes_over_bot_games_with_away_players(make_client, service, settings, caplog):
    caplog.set_level("INFO")
    rng = random.Random(27)
    browser = Browser(service.url("/push/x"))
    tally: Tally = Tally()
    for number in range(GAMES):
        me = make_client()
        paths = [f"/push/{number}/ok"]
        if number % 5 == 1:
            paths.append(f"/push/{number}/dead")
            service.then(410, path=paths[-1])  # the first push to it: gone
        if number % 5 == 2:
            service.then(429, {"Retry-After": "0"}, path=paths[0])
        for path in paths:
            browser.endpoint = service.url(path)
            register(me, {"kind": "webpush", "subscription": browser.subscription()})
        chose = number % 7
        if chose == 3:  # quiet all day long
            PushSettings.objects.create(
                player=me.player,
                kinds=list(TURN_KINDS),
                quiet_from=time(0),
                quiet_until=time(23, 59),
            )
        elif chose == 5:  # results only
            PushSettings.objects.create(player=me.player, kinds=["game_over"])
        preset = rng.choice(["valenciano", "argentino"])
        created = me.post(
            "/api/games", {"preset": preset, "bots": [{"seat": 1, "level": "random"}]}
        )
        assert created.status_code == 201, created.json()
        game_id = created.json()["id"]
        play_turns(me, game_id, rng, service, tally, wants_turns=chose not in (3, 5))
        if Game.objects.get(pk=game_id).status == "active":  # a fast match may be over
            assert me.post(f"/api/games/{game_id}/resign").status_code == 200
        tally["dead"] += len(paths) - 1
    check_received(service, browser, tally)
    # Every dead device that was pushed to was removed at its first refusal.
    left = Device.objects.filter(address__contains="/dead").count()
    assert tally["refused"] == tally["dead"] - left
    assert cards_in(caplog.text) == set()
    assert (
        cards_in(json.dumps(list(Push.objects.values("cause", "data", "message", "reason"))))
        == set()
    )


def play_turns(me, game_id, rng, service, tally, *, wants_turns: bool) -> None:
    came = True  # the turn comes to him (at the start, when he is mano), or stays his
    for turn in range(TURNS):
        play_bots(game_id)
        game = Game.objects.get(pk=game_id)
        if game.status != "active":
            return
        written = list(Push.objects.filter(device__player=me.player, status="pending"))
        causes = {push.cause for push in written}
        devices = Device.objects.filter(player=me.player).count()
        if not wants_turns:
            assert written == []
        elif came or written:  # the turn came to him, or a new call while it was his already
            assert len(causes) == 1 and len(written) == devices, (turn, causes, len(written))
            kinds = {push.kind for push in written}
            assert kinds <= set(TURN_KINDS) if came else kinds == {"call_pending"}, kinds
        view = me.get(f"/api/games/{game_id}").json()  # what the person would see (and play)
        action = rng.choice(view["state"]["legal_actions"])
        action = {**action, "expected_version": view["version"]}
        mode = turn % 3
        if mode == 0:  # away: the push comes
            leave_tables()
            statuses = send_due(me.player)
            tally["sent"] += statuses.count("sent")
            tally["refused"] += statuses.count("failed")
            tally["retried"] += statuses.count("pending")
            assert "skipped" not in statuses
        elif mode == 1:  # at the table: he read the game just now
            statuses = send_due(me.player)
            assert set(statuses) <= {"skipped"}
            tally["skipped_at_table"] += len(statuses)
        else:  # away, but he answers before the delay is over
            earlier = {push.pk for push in written}
            leave_tables()
            came = acted(me, game_id, action)
            leave_tables()
            # Those written before his answer; one his answer causes (a call left pending
            # against him) waits for the next turn's check.
            statuses = send_due(me.player, earlier)
            assert set(statuses) <= {"skipped"}
            tally["skipped_stale"] += len(statuses)
            assert all(
                push.reason == "the game moved on before it was sent"
                for push in Push.objects.filter(device__player=me.player, status="skipped")
                if push.reason != "the player was at the table"
            )
            continue
        came = acted(me, game_id, action)  # at the table now: the bot's answer must not buzz


def acted(me, game_id, action) -> bool:
    """Act for him; whether the turn then left him (so that its return is a turn change)."""
    act(me, game_id, action)
    return not Seat.objects.get(game_id=game_id, player=me.player).awaiting


def check_received(service: PushService, browser: Browser, tally: Tally) -> None:
    accepted = [got for got in service.pushes() if got.status == 201]
    ids: Counter[str] = Counter()
    for got in accepted:
        message = json.loads(
            http_ece.decrypt(
                got.body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
            )
        )
        ids[message["data"]["push_id"]] += 1
        if message["data"]["kind"] in TURN_KINDS:
            assert message["data"]["badge"] == "1"  # this game, the only one waiting for him
        assert cards_in(json.dumps(message)) == set()
    assert max(ids.values()) == 1  # none twice
    assert len(ids) == Push.objects.filter(status="sent").count() == tally["sent"]
    assert tally["sent"] >= GAMES and tally["refused"] > 0 and tally["retried"] > 0
    assert tally["skipped_at_table"] > 0 and tally["skipped_stale"] > 0
