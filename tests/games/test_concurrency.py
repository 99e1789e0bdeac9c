"""Real concurrency against PostgreSQL: many HTTP clients hit a live server at the same instant.

Every request travels on its own TCP connection, opened beforehand; a barrier releases them all
together, so the server's threads really do race for the game row's lock (``store.lock_game``).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from knox.models import AuthToken

from games import engine
from games.models import Game, GameEvent, IdempotencyRecord, Seat
from games.store.log import load_state
from tests.games.conftest import Client

BURST = 50
JOINERS = 10
PROBLEM = "application/problem+json"


@dataclass(frozen=True)
class Request:
    path: str
    token: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    replayed: str | None
    body: Any


def burst(live_server: Any, requests: list[Request]) -> list[Reply]:
    """POST every request at once, each on its own connection, and collect the replies in order."""
    address = urlsplit(live_server.url)
    # Connect first, one by one, each given a moment to be accepted: the server's listen backlog
    # holds ten, and a connection the kernel drops is only retried a second later.
    connections = [
        http.client.HTTPConnection(address.hostname or "", address.port, timeout=60)
        for _ in requests
    ]
    for connection in connections:
        connection.connect()
        time.sleep(0.005)
    start = threading.Barrier(len(requests))

    def send(connection: http.client.HTTPConnection, request: Request) -> Reply:
        try:
            headers = {
                "Authorization": request.token,
                "Content-Type": "application/json",
                "Connection": "close",
                **request.headers,
            }
            payload = json.dumps(request.body)
            start.wait(timeout=30)
            connection.request("POST", request.path, body=payload, headers=headers)
            response = connection.getresponse()
            return Reply(
                status=response.status,
                content_type=response.getheader("Content-Type", ""),
                replayed=response.getheader("Idempotent-Replayed"),
                body=json.loads(response.read() or b"null"),
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(send, connections, requests))


def token_of(client: Client) -> str:
    _, token = AuthToken.objects.create(client.player)
    return f"Token {token}"


def action_request(
    game_id: str, token: str, action: dict[str, Any], version: int, key: str
) -> Request:
    return Request(
        f"/api/games/{game_id}/actions",
        token,
        {**action, "expected_version": version},
        {"Idempotency-Key": key},
    )


def seqs(game_id: str) -> list[int]:
    return list(
        GameEvent.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True)
    )


def assert_no_server_error(replies: list[Reply]) -> None:
    assert not [reply for reply in replies if reply.status >= 500], Counter(
        reply.status for reply in replies
    )


def movers(game_id: str, clients: list[Client]) -> dict[int, list[dict[str, Any]]]:
    """The legal actions of every seat that may act now, by seat."""
    views = [client.get(f"/api/games/{game_id}").json() for client in clients]
    return {
        seat: view["state"]["legal_actions"]
        for seat, view in enumerate(views)
        if view["state"]["legal_actions"]
    }


@pytest.mark.django_db(transaction=True)
def test_identical_submissions_at_once_store_the_action_once(
    live_server: Any, table: Callable[..., tuple[str, list[Client]]]
) -> None:
    game_id, clients = table("valenciano", players=2)
    game = Game.objects.get(pk=game_id)
    state = load_state(game)
    seat = engine.turn(state)
    assert seat is not None
    action = engine.legal_actions(state, seat)[0]
    # What one submission stores: the action's events, its consequences included.
    expected = [event.TYPE for event in engine.decide(state, seat, action)]
    before = game.version
    token, key = token_of(clients[seat]), str(uuid.uuid4())
    request = action_request(game_id, token, action.to_json(), before, key)

    replies = burst(live_server, [request] * BURST)

    assert_no_server_error(replies)
    assert {reply.status for reply in replies} == {201}
    assert all(reply.body == replies[0].body for reply in replies), "every reply is the first"
    assert sorted(reply.replayed or "first" for reply in replies) == ["first"] + ["true"] * (
        BURST - 1
    )
    added = list(GameEvent.objects.filter(game_id=game_id, seq__gt=before).order_by("seq"))
    by_action = [row.type for row in added if row.actor_id == clients[seat].player.pk]
    assert by_action == expected, "the action is stored once, with its consequences"
    assert {row.type for row in added if row.actor_id is None} <= {"hand_dealt"}
    assert [row.seq for row in added] == [event["seq"] for event in replies[0].body["events"]]
    assert seqs(game_id) == list(range(1, replies[0].body["version"] + 1))
    assert IdempotencyRecord.objects.filter(key=key).count() == 1


@pytest.mark.django_db(transaction=True)
def test_one_key_for_two_games_at_once_acts_in_one_game_only(
    live_server: Any, table: Callable[..., tuple[str, list[Client]]]
) -> None:
    """The per-game lock does not serialise two games: the key's unique index decides."""
    first_id, clients = table("valenciano", players=2)
    player, partner = clients
    created = player.post("/api/games", {"preset": "valenciano", "players": 2})
    second_id = created.json()["id"]
    assert partner.post(f"/api/games/{second_id}/join", {}).status_code == 200
    games = [Game.objects.get(pk=first_id), Game.objects.get(pk=second_id)]
    states = [load_state(game) for game in games]
    assert [engine.turn(state) for state in states] == [0, 0], "the creator is mano in both"
    token, key = token_of(player), str(uuid.uuid4())
    requests = [
        action_request(
            str(game.pk), token, engine.legal_actions(state, 0)[0].to_json(), game.version, key
        )
        for game, state in zip(games, states, strict=True)
    ] * (BURST // 2)

    replies = burst(live_server, requests)

    assert_no_server_error(replies)
    by_game = [replies[index::2] for index in range(2)]
    outcome = [{reply.status for reply in game_replies} for game_replies in by_game]
    assert sorted(outcome, key=sorted) == [{201}, {409}], Counter(r.status for r in replies)
    won, lost = (0, 1) if outcome[0] == {201} else (1, 0)
    assert all(reply.body == by_game[won][0].body for reply in by_game[won])
    assert {reply.body["code"] for reply in by_game[lost]} == {"idempotency_conflict"}
    assert Game.objects.get(pk=games[lost].pk).version == games[lost].version, "nothing stored"
    assert seqs(str(games[lost].pk)) == list(range(1, games[lost].version + 1))
    assert IdempotencyRecord.objects.filter(key=key).count() == 1


def _on_turn(game_id: str, clients: list[Client]) -> dict[int, list[dict[str, Any]]]:
    acting = movers(game_id, clients)
    assert len(acting) == 1, "one seat is on turn"
    return acting


def _answering_truco(game_id: str, clients: list[Client]) -> dict[int, list[dict[str, Any]]]:
    """A 4-player game where the seat on turn has called truco: both answerers may act."""
    [(seat, actions)] = _on_turn(game_id, clients).items()
    assert {"type": "truco"} in actions
    version = Game.objects.get(pk=game_id).version
    assert clients[seat].act(game_id, {"type": "truco"}, version).status_code == 201
    acting = movers(game_id, clients)
    assert sorted(acting) == sorted({(seat + 1) % 4, (seat + 3) % 4}), "the whole side answers"
    return acting


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("preset", "players", "position"),
    [("valenciano", 2, _on_turn), ("argentino_clasico", 4, _answering_truco)],
    ids=["seat-on-turn", "both-answerers-of-a-call"],
)
def test_different_submissions_at_once_accept_one_and_reject_the_rest_as_stale(
    live_server: Any,
    table: Callable[..., tuple[str, list[Client]]],
    preset: str,
    players: int,
    position: Callable[[str, list[Client]], dict[int, list[dict[str, Any]]]],
) -> None:
    game_id, clients = table(preset, players=players)
    acting = position(game_id, clients)
    before = Game.objects.get(pk=game_id).version
    tokens = {seat: token_of(clients[seat]) for seat in acting}
    seats = sorted(acting)
    requests = []
    for index in range(BURST):
        seat = seats[index % len(seats)]
        action = acting[seat][index // len(seats) % len(acting[seat])]
        requests.append(
            action_request(game_id, tokens[seat], action, before, f"burst-{index}-{uuid.uuid4()}")
        )

    replies = burst(live_server, requests)

    assert_no_server_error(replies)
    assert Counter(reply.status for reply in replies) == {201: 1, 409: BURST - 1}
    [accepted] = [reply for reply in replies if reply.status == 201]
    after = accepted.body["version"]
    assert after > before
    for reply in replies:
        if reply.status == 409:
            assert reply.content_type.startswith(PROBLEM)
            assert reply.body["code"] == "stale_version"
            assert reply.body["current_version"] == after
    assert seqs(game_id) == list(range(1, after + 1)), "the log stays gapless"
    assert Game.objects.get(pk=game_id).version == after
    assert IdempotencyRecord.objects.filter(key__startswith="burst-").count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("body", [{}, {"seat": 1}], ids=["any-seat", "the-same-seat"])
def test_joins_at_once_seat_one_player_and_start_the_game_once(
    live_server: Any, make_client: Callable[..., Client], body: dict[str, Any]
) -> None:
    creator = make_client()
    created = creator.post("/api/games", {"preset": "valenciano", "players": 2})
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    joiners = [make_client() for _ in range(JOINERS)]
    path = f"/api/games/{game_id}/join"
    requests = [Request(path, token_of(joiner), body, {}) for joiner in joiners]

    replies = burst(live_server, requests)

    assert_no_server_error(replies)
    assert Counter(reply.status for reply in replies) == {200: 1, 409: JOINERS - 1}
    for reply in replies:
        if reply.status == 409:
            assert reply.content_type.startswith(PROBLEM)
            assert reply.body["code"] in {"game_started", "seat_taken"}
    [winner] = [
        joiner for joiner, reply in zip(joiners, replies, strict=True) if reply.status == 200
    ]
    seated = dict(Seat.objects.filter(game_id=game_id).values_list("number", "player_id"))
    assert seated == {0: creator.player.pk, 1: winner.player.pk}
    events = GameEvent.objects.filter(game_id=game_id)
    assert events.filter(type="match_started").count() == 1, "the game starts exactly once"
    assert seqs(game_id) == list(range(1, Game.objects.get(pk=game_id).version + 1))
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE
