"""Every 201 says where what it created is read back: a `Location` the document declares (with
its pattern), that a GET with the same token answers with the created thing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.document import DOCUMENT
from tests.factories import PlayerFactory
from tests.games.conftest import Client
from tests.notifications.conftest import mover

pytestmark = pytest.mark.django_db


def make_client() -> Client:
    return Client(PlayerFactory.create())


def _created() -> dict[str, dict[str, Any]]:
    """The 201 answers of the document, by operation id."""
    return {
        operation["operationId"]: operation["responses"]["201"]
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "201" in operation.get("responses", {})
    }


def _pattern(operation_id: str) -> re.Pattern[str]:
    header = _created()[operation_id]["headers"]["Location"]
    assert header["required"] is True
    return re.compile(header["schema"]["pattern"])


def test_every_201_declares_its_location() -> None:
    created = _created()
    assert len(created) >= 8
    for name, answer in created.items():
        schema = answer.get("headers", {}).get("Location", {}).get("schema", {})
        assert schema.get("format") == "uri-reference" and schema.get("pattern"), name


def _read_back(client: Any, operation_id: str, response: Any) -> Any:
    """The created thing, read at the answer's Location, which the document's pattern matches."""
    assert response.status_code == 201, response.json()
    where = response["Location"]
    assert _pattern(operation_id).fullmatch(where), (operation_id, where)
    read = client.get(where)
    assert read.status_code == 200, (where, read.json())
    return read.json()


def test_each_201_is_read_back_at_its_location(settings) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    http = APIClient()
    registered = http.post(
        "/api/auth/register",
        {"username": "pep-read-back", "password": "s3cret-Pass!x", "display_name": "Pep"},
        format="json",
    )
    http.credentials(HTTP_AUTHORIZATION=f"Bearer {registered.json()['token']}")
    profile = _read_back(http, "auth_register", registered)
    assert (profile["username"], profile["display_name"]) == ("pep-read-back", "Pep")

    me, rival = make_client(), make_client()
    game = me.post("/api/games", {"preset": "valenciano"})
    assert _read_back(me.http, "games_create", game)["id"] == game.json()["id"]
    game_id = game.json()["id"]
    assert rival.post(f"/api/games/{game_id}/join").status_code == 200

    seat, action = mover(game_id, [me, rival])
    body = {key: value for key, value in action.items() if key != "expected_version"}
    acted = [me, rival][seat].act(game_id, body, action["expected_version"])
    page = _read_back([me, rival][seat].http, "games_act", acted)
    assert page["events"] == acted.json()["events"]  # exactly the events this action recorded

    said = me.post(f"/api/games/{game_id}/chat", {"room": "players", "text": "Bona sort!"})
    assert _read_back(me.http, "games_chat_say", said) == said.json()
    assert rival.get(said["Location"]).json() == said.json()  # the table reads it too

    blocked = me.post("/api/players/me/blocks", {"blocked_id": rival.player.pk})
    assert _read_back(me.http, "players_me_block", blocked) == blocked.json()

    seek = {"preset": "argentino", "players": 2, "rated": False}
    sought = rival.post("/api/seeks", seek)
    assert _read_back(rival.http, "seeks_create", sought) == sought.json()

    other = make_client()
    challenge = {"preset": "valenciano", "opponents": [other.player.pk], "rated": False}
    sent = rival.post("/api/challenges", challenge)
    assert _read_back(rival.http, "challenges_create", sent) == sent.json()

    hook = {"url": "http://127.0.0.1:9/hook", "kinds": ["your_turn"]}
    subscribed = me.post("/api/webhooks/subscriptions", hook)
    read = _read_back(me.http, "webhooks_subscriptions_create", subscribed)
    assert read["id"] == subscribed.json()["id"]


def test_a_chat_line_is_not_read_where_the_list_would_not_give_it() -> None:
    """A line by id: not found for a spectator while the match is on, nor to one who blocks
    its author, as the room's list would not give it them."""
    me, rival, spectator = make_client(), make_client(), make_client()
    game_id = me.post("/api/games", {"preset": "valenciano"}).json()["id"]
    assert rival.post(f"/api/games/{game_id}/join").status_code == 200
    said = me.post(f"/api/games/{game_id}/chat", {"room": "players", "text": "Truc?"})
    assert said.status_code == 201
    assert spectator.get(said["Location"]).status_code == 404
    assert rival.post("/api/players/me/blocks", {"blocked_id": me.player.pk}).status_code == 201
    refused = rival.get(said["Location"])
    assert (refused.status_code, refused.json()["code"]) == (404, "not_found")
    assert me.get(f"/api/games/{game_id}/chat/999999999").status_code == 404


def test_a_block_is_read_while_it_lasts() -> None:
    me, rival = make_client(), make_client()
    where = f"/api/players/me/blocks/{rival.player.pk}"
    assert me.get(where).status_code == 404
    assert me.post("/api/players/me/blocks", {"blocked_id": rival.player.pk}).status_code == 201
    assert me.get(where).json()["player"]["id"] == rival.player.pk
    assert me.http.delete(where).status_code == 204
    assert me.get(where).status_code == 404


def test_unblocking_a_player_you_do_not_block_is_not_found() -> None:
    """A DELETE that finds no block says so, as a GET of it does; the second of two as well."""
    me, rival = make_client(), make_client()
    where = f"/api/players/me/blocks/{rival.player.pk}"
    refused = me.http.delete(where)
    assert (refused.status_code, refused.json()["code"]) == (404, "not_found")
    assert refused["Content-Type"] == "application/problem+json"
    assert me.post("/api/players/me/blocks", {"blocked_id": rival.player.pk}).status_code == 201
    assert me.http.delete(where).status_code == 204
    assert me.http.delete(where).status_code == 404
    assert me.http.delete(f"/api/players/me/blocks/{2**63}").status_code == 404
