"""What a stream answers before it streams: the same checks as every request (401, 404 for a
private game, 400 for a bad cursor), and, reached through WSGI (here Django's test client), a
finite stream: the log after the cursor and the view, then the end."""

from __future__ import annotations

import json
import re

import pytest

from tests.api.document import SCHEMAS, member, message_conforms
from tests.streams.sse_client import Message

pytestmark = pytest.mark.django_db


def messages(body: bytes) -> list[Message]:
    found = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in fields:
            sent = fields.get("id")
            found.append(Message(fields["event"], fields["data"], int(sent) if sent else None))
    return found


def test_stream_needs_a_token(table, client) -> None:
    game_id, _ = table("valenciano", players=2)
    response = client.get(f"/api/games/{game_id}/stream")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"


def test_private_game_stream_does_not_exist_for_others(table, make_client) -> None:
    game_id, _ = table("valenciano", players=2, visibility="private")
    response = make_client().get(f"/api/games/{game_id}/stream")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert make_client().get("/api/games/not-a-uuid/stream").status_code == 404


@pytest.mark.parametrize(
    ("query", "headers", "field", "code"),
    [
        ("?after=-1", {}, "after", "min_value"),
        ("?after=x", {}, "after", "invalid_type"),
        ("?since=1", {}, "since", "unknown_field"),
        ("", {"Last-Event-ID": "nine"}, "after", "invalid_type"),
    ],
)
def test_stream_refuses_a_bad_cursor(table, query, headers, field, code) -> None:
    game_id, clients = table("valenciano", players=2)
    response = clients[0].get(f"/api/games/{game_id}/stream{query}", **headers)
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["field"], error["code"]) == (field, code)


def test_stream_refuses_a_cursor_no_log_has_reached(table) -> None:
    game_id, clients = table("valenciano", players=2)
    response = clients[0].get(f"/api/games/{game_id}/stream", **{"Last-Event-ID": "99"})
    assert response.status_code == 422  # well formed, but no log has reached it
    assert (response.json()["code"], response.json()["current_version"]) == ("after_beyond_log", 2)


def test_stream_through_wsgi_is_the_log_after_the_cursor_then_the_view(table) -> None:
    game_id, clients = table("valenciano", players=2)
    response = clients[1].get(f"/api/games/{game_id}/stream?after=0", **{"Last-Event-ID": "1"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    sent = messages(response.content)
    assert [(m.event, m.id) for m in sent] == [("hand_dealt", 2), ("view", None)]
    assert response.content.startswith(b"retry: ")


def test_stream_of_a_finished_game_read_to_its_end_is_204(table) -> None:
    game_id, clients = table("valenciano", players=2)
    clients[0].post(f"/api/games/{game_id}/resign")
    version = clients[0].get(f"/api/games/{game_id}").json()["version"]
    assert clients[1].get(f"/api/games/{game_id}/stream?after={version}").status_code == 204
    assert clients[1].get(f"/api/games/{game_id}/stream?after=0").status_code == 200


def test_stream_answers_only_get(table) -> None:
    game_id, clients = table("valenciano", players=2)
    response = clients[0].post(f"/api/games/{game_id}/stream")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_a_browser_may_resume_a_stream_from_an_allowed_origin(table, client, settings) -> None:
    """CORS as configured: the preflight lets Authorization and Last-Event-ID through."""
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.org"]
    game_id, _ = table("valenciano", players=2)
    preflight = client.options(
        f"/api/games/{game_id}/stream",
        HTTP_ORIGIN="https://app.example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, last-event-id",
    )
    assert preflight["Access-Control-Allow-Origin"] == "https://app.example.org"
    allowed = preflight["Access-Control-Allow-Headers"].lower()
    assert "authorization" in allowed and "last-event-id" in allowed
    elsewhere = client.options(
        f"/api/games/{game_id}/stream",
        HTTP_ORIGIN="https://evil.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
    )
    assert "Access-Control-Allow-Origin" not in elsewhere


def wire_messages(body: bytes) -> list[dict[str, str]]:
    """Each message's fields as on the wire (every value text); a block without ``data`` (the
    ``retry:`` line) is no message."""
    found = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        if "data" in fields:
            found.append(fields)
    return found


def test_each_streams_message_ids_are_the_documented_seqs(table, make_client) -> None:
    """Each message is its kind's schema in the document's union, its data's JSON that kind's
    `contentSchema`, with no undocumented key; a game stream's `id:` is its event's seq, a player
    stream's his notice's seq: each as the document's pattern says, and the same as the `seq` in
    its data."""
    game_id, clients = table("valenciano", players=2)
    challenge = {"preset": "valenciano", "opponents": [clients[1].player.pk], "rated": False}
    assert make_client().post("/api/challenges", challenge).status_code == 201
    for url, union, told in (
        (f"/api/games/{game_id}/stream", "GameStreamMessage", {"match_started", "hand_dealt"}),
        ("/api/stream", "PlayerStreamMessage", {"challenge_received"}),
    ):
        response = clients[1].get(url)
        assert response.status_code == 200
        numbered = []
        for message in wire_messages(response.content):
            message_conforms(message, union)
            kind = SCHEMAS[member(union, message["event"])]
            assert ("id" in message) == ("id" in kind["required"])
            if "id" in message:
                assert re.fullmatch(kind["properties"]["id"]["pattern"], message["id"])
                assert int(message["id"]) == json.loads(message["data"])["seq"]
                numbered.append(message)
        assert {message["event"] for message in numbered} >= told, url
