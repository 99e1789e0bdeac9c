"""Every webhook the server sends is what the OpenAPI document's ``webhooks`` say of its kind,
and every message a player's stream tells is its ``PlayerStreamMessage``: each kind played for
real (the game's and the lobby's), sent to a local receiver, and each body and header received,
and each stream message, checked against the committed document, with no undocumented key."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import jsonschema
from django.utils import timezone

from games.models import Game
from games.rated_results import rate_game
from lobby import challenges, seeks
from notifications import reminders, sending
from notifications.models import Delivery, Kind
from tests.api.document import (
    SCHEMAS,
    conforms,
    message_conforms,
    webhook,
    webhook_body,
    webhook_headers,
)
from tests.notifications.conftest import act, mover, subscribe
from tests.notifications.receiver import Receiver
from tests.streams.test_stream_requests import wire_messages

SEEK = {"preset": "valenciano", "players": 2, "turn_seconds": 3600, "rated": True}


def test_every_kind_told_is_its_documented_webhook_and_notice(
    make_client, receiver: Receiver, settings
) -> None:
    settings.REMINDER_LEAD_SECONDS = 600
    people = ana, pep, cid, dan = [make_client() for _ in range(4)]
    for client in people:
        subscribe(client, receiver, [kind.value for kind in Kind], f"/{client.player.pk}")

    game_id = _lobby_notices(ana, pep, cid, dan)
    _game_notices(game_id, [ana, pep])
    assert rate_game(game_id), "the paired game was rated"
    _rematch_notices(game_id, ana, pep)
    _open_table(cid, dan)

    _webhooks_are_documented(receiver, ana)
    _notices_are_documented(people)


def _webhooks_are_documented(receiver: Receiver, ana: Any) -> None:

    for delivery in Delivery.objects.filter(status=Delivery.Status.PENDING):
        sending.send(str(delivery.pk))
    received = receiver.accepted()
    assert {request.payload["type"] for request in received} == set(Kind)  # every kind, sent
    for request in received:
        kind = request.payload["type"]
        conforms(request.payload, webhook_body(kind), exactly=True)
        conforms(request.payload, "Notification", exactly=True)
        for name, header in webhook_headers(kind).items():
            value = request.headers[name]
            typed = int(value) if header["schema"]["type"] == "integer" else value
            jsonschema.Draft202012Validator(
                header["schema"], format_checker=jsonschema.FormatChecker()
            ).validate(typed)
        detail = ana.get(f"/api/webhooks/deliveries/{request.webhook_id}")
        if detail.status_code == 200:  # ana's own deliveries: the API tells the same body
            assert detail.json()["payload"] == request.payload
            conforms(detail.json(), "DeliveryDetail", exactly=True)


def _notices_are_documented(people: list[Any]) -> None:
    """Every message of each player's stream is its kind's ``PlayerStreamMessage``, with no
    undocumented key; every kind of notice the document lists was told to somebody."""
    kinds = set()
    for client in people:
        response = client.get("/api/stream")
        assert response.status_code == 200
        for message in wire_messages(response.content):
            message_conforms(message, "PlayerStreamMessage")
            if "id" in message:  # a kept notice (a turn has none)
                kinds.add(json.loads(message["data"])["kind"])
    documented = set(SCHEMAS["PlayerStreamMessage"]["discriminator"]["mapping"])
    assert kinds == documented - {"your_turn", "call_pending", "end"}, documented - kinds


def _lobby_notices(ana: Any, pep: Any, cid: Any, dan: Any) -> str:
    """Seeks paired, filled with a bot and expired; challenges accepted, declined, cancelled and
    expired. The game ana and pep were paired at."""
    assert ana.post("/api/seeks", SEEK).status_code == 201
    paired = pep.post("/api/seeks", SEEK).json()
    assert paired["status"] == "matched", paired
    casual = {**SEEK, "preset": "argentino", "rated": False, "bot_after": 0}
    assert cid.post("/api/seeks", casual).status_code == 201
    assert seeks.sweep()["bot_games"] == 1, "cid's seek filled with a bot"
    alone = {**SEEK, "preset": "argentino_clasico", "expires_in": 5}
    assert dan.post("/api/seeks", alone).status_code == 201
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=10))["expired"] == 1

    accepted = _challenge(ana, cid)
    assert cid.post(f"/api/challenges/{accepted}/accept").status_code == 200
    declined = _challenge(pep, ana)
    answer = ana.post(f"/api/challenges/{declined}/decline", {"reason": "too_fast"})
    assert answer.status_code == 200
    cancelled = _challenge(ana, dan)
    assert ana.post(f"/api/challenges/{cancelled}/cancel").status_code == 200
    _challenge(dan, pep, expires_in=5)
    assert challenges.expire_due(now=timezone.now() + timedelta(seconds=10)) == 1
    return paired["game_id"]


def _challenge(challenger: Any, challenged: Any, **more: Any) -> str:
    body = {"preset": "valenciano", "opponents": [challenged.player.pk], "rated": False, **more}
    created = challenger.post("/api/challenges", body)
    assert created.status_code == 201, created.json()
    return created.json()["id"]


def _game_notices(game_id: str, clients: list[Any]) -> None:
    """A truco (your turn, call pending) refused (the hand ends), a deadline near, a resignation."""
    seat, call = mover(game_id, clients, ("truco",))
    act(clients[seat], game_id, call)
    seat, refusal = mover(game_id, clients, ("no_quiero",))
    act(clients[seat], game_id, refusal)
    near = timezone.now() + timedelta(seconds=60)
    Game.objects.filter(pk=game_id).update(deadline=near)
    assert reminders.sweep() == 1
    assert clients[0].post(f"/api/games/{game_id}/resign").status_code == 200


def _open_table(creator: Any, joiner: Any) -> None:
    """A seat taken at an open table: its creator is told (``player_joined``)."""
    created = creator.post("/api/games", {"preset": "valenciano", "players": 4})
    assert created.status_code == 201, created.json()
    assert joiner.post(f"/api/games/{created.json()['id']}/join").status_code == 200


def _rematch_notices(game_id: str, ana: Any, pep: Any) -> None:
    """A rematch offered and started; then, after it, one offered and declined."""
    assert ana.post(f"/api/games/{game_id}/rematch").json()["status"] == "offered"
    started = pep.post(f"/api/games/{game_id}/rematch").json()
    assert started["status"] == "started", started
    again = started["next_game_id"]
    assert pep.post(f"/api/games/{again}/resign").status_code == 200
    assert ana.post(f"/api/games/{again}/rematch").status_code == 200
    assert pep.post(f"/api/games/{again}/rematch/decline").json()["status"] == "declined"


def test_every_webhook_has_an_example_that_is_its_own_body() -> None:
    """The document shows each kind's body by an example (for a game's kinds, made by the
    engine), and each example is exactly what that kind's body schema describes."""
    for kind in Kind:
        examples = webhook(kind)["requestBody"]["content"]["application/json"]["examples"]
        [example] = examples.values()
        assert example["value"]["type"] == kind
        conforms(example["value"], webhook_body(kind), exactly=True)
