"""``GET /api/games/{id}/stream`` on real ASGI server processes and the real Redis: a move made
through one process reaches a stream held by another, resuming loses and repeats nothing, and a
stream ends when the game does or when its token is revoked."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.games.conftest import Client
from tests.streams.conftest import ORIGIN, PER_PLAYER, PREFIX, call, thorough
from tests.streams.sse_client import Stream, open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def stream(server: Any, game_id: str, client: Client, query: str = "", **headers: str) -> Stream:
    return open_stream(
        f"{server.url}/api/games/{game_id}/stream{query}", client.token, headers=headers
    )


def move(server: Any, game_id: str, clients: list[Client], rng: random.Random) -> dict[str, Any]:
    """A random legal action of a seat that may act, posted to ``server`` over HTTP."""
    for seat in rng.sample(range(len(clients)), len(clients)):
        status, view = call("GET", f"{server.url}/api/games/{game_id}", clients[seat].token)
        assert status == 200, view
        if view["state"]["legal_actions"]:
            action = rng.choice(view["state"]["legal_actions"])
            body = {**action, "expected_version": view["version"]}
            key = {"Idempotency-Key": f"{seat}-{view['version']}-{rng.random()}"}
            status, result = call(
                "POST",
                f"{server.url}/api/games/{game_id}/actions",
                clients[seat].token,
                body,
                **key,
            )
            assert status == 201, result
            return result
    raise AssertionError("nobody may act")


def test_stream_on_one_process_receives_a_move_posted_on_the_other(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[1])
    assert reader.status == 200
    assert reader.response.getheader("Content-Type").startswith("text/event-stream")
    backlog = [reader.until(lambda m: m.event == "view")]
    assert [m.event for m in reader.messages] == ["match_started", "hand_dealt", "view"]
    assert backlog[0].data["version"] == 2 and backlog[0].data["my_seat"] == 1

    started = time.monotonic()
    result = move(one, game_id, clients, random.Random(1))
    event = reader.until(lambda m: m.id is not None)
    view = reader.until(lambda m: m.event == "view")
    took = time.monotonic() - started
    reader.close()

    assert event.id == 3 and event.data["seq"] == 3
    assert view.data["version"] == result["version"]
    assert view.data["state"]["legal_actions"] is not None
    assert took < 10  # the notification, not the 1 s check, would be < 0.1 s; noisy machine


def test_the_bench_clock_stamps_a_step_from_its_commit_to_its_send(clocked_server, table) -> None:
    """The streams bench's server-side figure (bench/delivery_clock.py, wrapped around the
    application from outside): the process holding the stream writes, for the step a move's
    notification caused, when the move's process published it, when the hub got it, when the
    stream's task woke, when its read was ready and when its bytes went to the server, in that
    order."""
    server = clocked_server
    game_id, clients = table("valenciano", players=2)
    reader = stream(server, game_id, clients[0])
    reader.until(lambda m: m.event == "view")
    rng = random.Random(3)

    def lines() -> list[list[str]]:
        text = server.delivery_log.read_text() if server.delivery_log.exists() else ""
        return [line.split() for line in text.splitlines() if f"game:{game_id}" in line]

    # A move's events may instead come with the 1 s check that happened to run between its
    # commit and its notification (no stamp then): a few moves make that chance negligible.
    before = time.time()
    for _ in range(3):
        version = move(server, game_id, clients, rng)["version"]
        reader.until(lambda m, v=version: m.event == "view" and m.data["version"] == v)
        deadline = time.monotonic() + 3  # the process flushes its lines every half second
        while not lines() and time.monotonic() < deadline:
            time.sleep(0.2)
        if lines():
            break
    reader.close()
    *stamps, _, seq = lines()[0]  # the backlog's step had no notification
    assert before <= float(stamps[0]) and sorted(stamps, key=float) == stamps
    assert float(stamps[-1]) <= time.time() and len(stamps) == 5
    assert int(seq) in [m.id for m in reader.messages if m.id is not None]


def test_resume_after_a_drop_loses_and_repeats_nothing(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    rng = random.Random(2)
    seen: list[int] = []
    first = stream(other, game_id, clients[0])
    for _ in range(3):
        move(one, game_id, clients, rng)
    while not seen or seen[-1] < 5:
        message = first.until(lambda m: m.id is not None)
        seen.append(message.id)
    first.close()  # dropped: what follows happens while nobody listens
    for _ in range(4):
        move(one, game_id, clients, rng)
    # EventSource sends the last id it saw; ?after= is the same for clients without one.
    again = stream(one, game_id, clients[0], "?after=0", **{"Last-Event-ID": str(seen[-1])})
    version = call("GET", f"{one.url}/api/games/{game_id}", clients[0].token)[1]["version"]
    while seen[-1] < version:
        seen.append(again.until(lambda m: m.id is not None).id)
    again.close()
    assert seen == list(range(1, version + 1))  # gapless, nothing twice


def test_moves_posted_back_to_back_reach_the_stream_whole(servers_pair, table) -> None:
    """As fast as a client can post them, on one process: the stream held on the other gets every
    event once and in order, and its last view is the API's own view of the same seat."""
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[0])
    rng = random.Random(5)
    for _ in range(40):
        if move(one, game_id, clients, rng)["game"]["status"] != "active":
            break
    status, final = call("GET", f"{other.url}/api/games/{game_id}", clients[0].token)
    assert status == 200
    last = reader.until(lambda m: m.event == "view" and m.data["version"] == final["version"])
    reader.close()
    assert [m.id for m in reader.messages if m.id is not None] == list(
        range(1, final["version"] + 1)
    )
    assert last.data == final


def test_a_lost_notification_only_waits_for_the_next_check(servers_pair, table, settings) -> None:
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[0])
    reader.until(lambda m: m.event == "view")
    settings.STREAMS_CHANNEL_PREFIX = f"{PREFIX}-nobody-listens"  # this move's notice is lost
    seat, action = next(
        (seat, a)
        for seat, c in enumerate(clients)
        for a in c.get(f"/api/games/{game_id}").json()["state"]["legal_actions"]
    )
    response = clients[seat].act(game_id, action, 2)
    assert response.status_code == 201
    event = reader.until(lambda m: m.id is not None)  # found by the check (1 s here)
    reader.close()
    assert event.id == 3


@thorough
def test_idle_stream_sends_heartbeats(servers_pair, table) -> None:
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[0])
    reader.until(lambda m: m.event == "view")
    started = time.monotonic()
    beats = 0
    while beats < 2:
        beats += reader.response.readline().startswith(b": heartbeat")
    reader.close()
    assert 1 < time.monotonic() - started < 15  # one a second here (STREAM_HEARTBEAT_SECONDS)


def test_a_finished_game_sends_its_last_events_and_closes(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[1])
    reader.until(lambda m: m.event == "view")
    status, _ = call("POST", f"{one.url}/api/games/{game_id}/resign", clients[0].token)
    assert status == 200
    rest = reader.read_to_end()  # the server closes it
    events = [m.event for m in rest]
    assert "match_ended" in events
    assert events[-2:] == ["view", "end"] and rest[-1].data == {"reason": "game_over"}
    assert rest[-2].data["status"] == "finished"
    # Reconnecting with every event in hand: 204, which stops an EventSource for good.
    last = max(m.id for m in rest if m.id is not None)
    again = stream(other, game_id, clients[1], **{"Last-Event-ID": str(last)})
    assert again.status == 204
    again.close()


def test_a_revoked_tokens_stream_closes(servers_pair, table) -> None:
    one, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = stream(other, game_id, clients[0])
    reader.until(lambda m: m.event == "view")
    started = time.monotonic()
    status, _ = call("POST", f"{one.url}/api/auth/logout", clients[0].token)
    assert status == 204
    end = reader.until(lambda m: m.event == "end")
    assert end.data == {"reason": "token_revoked"}
    assert reader.next() is None  # closed
    assert time.monotonic() - started < 10
    refused = stream(other, game_id, clients[0])
    assert refused.status == 401
    assert refused.response.getheader("Content-Type") == "application/problem+json"


def test_streams_a_player_may_open_are_capped(servers_pair, table) -> None:
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    held = [stream(other, game_id, clients[0]) for _ in range(PER_PLAYER)]
    assert [s.status for s in held] == [200] * PER_PLAYER
    refused = stream(other, game_id, clients[0])
    body = refused.response.read()
    assert refused.status == 429
    assert refused.response.getheader("Retry-After") == "10"
    assert b'"code":"too_many_streams"' in body.replace(b" ", b"")
    held[0].close()
    deadline = time.monotonic() + 10
    while (again := stream(other, game_id, clients[0])).status == 429:
        again.close()
        assert time.monotonic() < deadline, "a closed stream's place never came back"
        time.sleep(0.2)
    for s in [*held, again]:
        s.close()


def test_spectators_only_on_public_games_and_cors(servers_pair, table, make_client) -> None:
    _, other = servers_pair
    private_id, _ = table("valenciano", players=2, visibility="private")
    public_id, _ = table("valenciano", players=2)
    outsider = make_client()
    hidden = stream(other, private_id, outsider)
    assert hidden.status == 404
    watcher = stream(other, public_id, outsider, Origin=ORIGIN)
    assert watcher.status == 200
    assert watcher.response.getheader("Access-Control-Allow-Origin") == ORIGIN
    deal = watcher.until(lambda m: m.event == "hand_dealt")
    view = watcher.until(lambda m: m.event == "view")
    watcher.close()
    assert deal.data["data"]["hands"] == [None, None]
    assert view.data["my_seat"] is None and view.data["state"]["hand"]["my_cards"] is None
