"""Six-player tables (RULES.md §9) and the flor (§5.3) through the HTTP API: creating, joining and
starting a 3 v 3 game, the new options checked and shown, a flor contest played by its singers."""

from __future__ import annotations

from typing import Any

import pytest

from games.store import log
from tests.engine.test_rules_flor import THREE_FLORES
from tests.games.conftest import Client
from tests.games.test_authorization import assert_problem

pytestmark = pytest.mark.django_db


class KnownDeal:
    """The deal's shuffle, replaced (randomness is the edge of the world): the first deal gives
    these hands, seat 0 the mano (RULES.md §1: place p goes to seat p mod n)."""

    def __init__(self, hands: list[list[str]]) -> None:
        self.hands = hands

    def shuffle(self, deck: list[str]) -> None:
        players = len(self.hands)
        dealt = [self.hands[place % players][place // players] for place in range(3 * players)]
        deck[:] = dealt + [card for card in deck if card not in dealt]


def read(client: Client, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def act(client: Client, game_id: str, kind: str) -> dict[str, Any]:
    response = client.act(game_id, {"type": kind}, read(client, game_id)["version"])
    assert response.status_code == 201, response.json()
    return response.json()


def test_six_player_game_is_created_joined_and_started_with_its_sides(make_client):
    host = make_client()
    created = host.post(
        "/api/games",
        {"preset": "argentino", "players": 6, "options": {"flor": True, "pica_pica": True}},
    )
    assert created.status_code == 201, created.json()
    game = created.json()
    assert (game["players"], game["rules"]["flor"], game["rules"]["pica_pica"]) == (6, True, True)
    listed = make_client().get("/api/games/open?players=6").json()
    assert [row["id"] for row in listed["results"]] == [game["id"]]
    row = listed["results"][0]
    assert [(seat["seat"], seat["side"]) for seat in row["seats"]] == [
        (seat, seat % 2) for seat in range(6)
    ]
    guests = [make_client() for _ in range(5)]
    for seat, guest in enumerate(guests, start=1):
        assert guest.post(f"/api/games/{game['id']}/join", {"seat": seat}).status_code == 200
    started = read(host, game["id"])
    assert started["status"] == "active"
    assert [(seat["seat"], seat["side"]) for seat in started["seats"]] == [
        (seat, seat % 2) for seat in range(6)
    ]
    for seat, client in enumerate([host, *guests]):
        view = read(client, game["id"])
        assert (view["my_seat"], view["state"]["side"]) == (seat, seat % 2)
        assert len(view["state"]["hand"]["cards_left"]) == 6
        assert view["state"]["hand"]["kind"] == "redonda"  # a cama opens with a redonda (§9)


@pytest.mark.parametrize(
    ("fields", "status", "code", "field"),
    [
        ({"preset": "valenciano", "options": {"flor": True}}, 422, "invalid_rules", "options.flor"),
        (
            {"preset": "argentino", "options": {"deck": "valencian22", "flor": True}},
            422,
            "invalid_rules",
            "options.flor",
        ),
        (
            {"preset": "argentino", "players": 4, "options": {"pica_pica": True}},
            422,
            "invalid_rules",
            "options.pica_pica",
        ),
        ({"preset": "argentino", "options": {"flor": "maybe"}}, 400, "invalid_request", "flor"),
        ({"preset": "argentino", "players": 8}, 400, "invalid_request", "players"),
    ],
)
def test_the_new_options_are_checked(make_client, fields, status, code, field):
    """RULES.md §2: a value of the wrong kind is a 400; valid values refused together a 422."""
    body = assert_problem(make_client().post("/api/games", fields), status, code)
    assert any(field in error["field"] for error in body["errors"]), body


def test_a_six_player_table_has_seats_0_to_5(make_client):
    game = make_client().post("/api/games", {"preset": "valenciano", "players": 6}).json()
    guest = make_client()
    refused = guest.post(f"/api/games/{game['id']}/join", {"seat": 6})
    assert {error["field"] for error in assert_problem(refused, 400, "invalid_request")["errors"]}
    assert guest.post(f"/api/games/{game['id']}/join", {"seat": 5}).status_code == 200


def test_a_flor_contest_is_played_by_its_singers_through_the_api(table, monkeypatch):
    monkeypatch.setattr(log, "_shuffler", KnownDeal(THREE_FLORES))
    game_id, clients = table("argentino_clasico", players=6, options={"flor": True})
    views = [read(client, game_id)["state"] for client in clients]
    assert [view["hand"]["my_flor"] for view in views] == [35, 26, 27, None, None, None]
    assert views[0]["legal_actions"] == [{"type": "flor"}]
    assert views[1]["legal_actions"] == []  # seat 1's flor shows nowhere before he sings
    act(clients[0], game_id, "flor")
    refused = clients[3].act(
        game_id, {"type": "play", "card": "5E"}, read(clients[3], game_id)["version"]
    )
    assert_problem(refused, 422, "flor_pending")  # the flor round: seats 1 and 2 sing first
    act(clients[1], game_id, "flor")
    act(clients[2], game_id, "flor")
    refused = clients[3].act(game_id, {"type": "flor"}, read(clients[3], game_id)["version"])
    assert_problem(refused, 422, "no_flor")
    contest = read(clients[4], game_id)["state"]
    assert contest["hand"]["pending_call"]["ladder"] == "flor" and contest["turn"] == 1
    refused = clients[3].act(game_id, {"type": "quiero"}, read(clients[3], game_id)["version"])
    assert_problem(refused, 422, "no_flor")
    result = act(clients[1], game_id, "quiero")
    [settled] = [event for event in result["events"] if event["type"] == "flor_settled"]
    assert settled["data"] == {"seat": 1, "how": "quiero", "winner": 0, "value": 35, "points": 9}
    flor = read(clients[5], game_id)["state"]["hand"]["flor"]
    assert (flor["sung"], flor["winner"], flor["value"]) == ([0, 1, 2], 0, 35)
