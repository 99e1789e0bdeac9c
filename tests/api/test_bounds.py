"""Every whole number a request may carry is bounded, in the document and by the server alike:
no value the schema allows overflows a column (a 500), none is stored wrapped, and the cursors
of the feed, the long poll and both streams agree on what they refuse (400 outside the schema's
bounds, 422 `after_beyond_log` within them but beyond the log)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lobby.models import Seek
from tests.api.document import DOCUMENT, SCHEMAS
from tests.factories import PlayerFactory
from tests.games.conftest import Client
from truc_api.bounds import MAX_ID, MAX_RATING
from truc_api.pagination import MAX_QUERY_INTEGER


def _integers(schema: Any, where: str, seen: frozenset[str] = frozenset()) -> Iterator[Any]:
    """(where, schema) of every integer a schema holds, through references, properties, items
    and unions."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            yield from _integers(SCHEMAS[name], f"{where}>{name}", seen | {name})
    kinds = schema.get("type")
    if kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds):
        yield where, schema
    for name, inner in schema.get("properties", {}).items():
        yield from _integers(inner, f"{where}.{name}", seen)
    for key in ("items", "additionalProperties"):
        yield from _integers(schema.get(key), f"{where}[]", seen)
    for key in ("oneOf", "anyOf", "allOf"):
        for inner in schema.get(key, []):
            yield from _integers(inner, where, seen)


def _request_integers() -> Iterator[Any]:
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for parameter in operation.get("parameters", []):
                where = f"{method.upper()} {path} {parameter['in']} {parameter['name']}"
                yield from _integers(parameter["schema"], where)
            for media in operation.get("requestBody", {}).get("content", {}).values():
                yield from _integers(media["schema"], f"{method.upper()} {path} body")


def test_every_request_integer_of_the_document_has_a_minimum_and_a_maximum() -> None:
    found = list(_request_integers())
    assert len(found) > 20  # the walk reaches them: seeks, actions, paths, cursors, pages
    unbounded = [
        where
        for where, schema in found
        if "enum" not in schema and not ("minimum" in schema and "maximum" in schema)
    ]
    assert unbounded == []


@pytest.fixture
def me(db: None) -> Client:
    return Client(PlayerFactory.create())


SEEK = {"preset": "valenciano", "turn_seconds": 3600, "rated": True}


@pytest.mark.parametrize(
    "field, value",
    [
        ("rating_max", 99999999999999999999),  # beyond any integer column: was a 500
        ("rating_max", 2**32 + 1400),  # was stored wrapped, as 1400
        ("rating_min", 2**31),  # was stored as -2**31
        ("rating_min", -1),
        ("partner_id", 2**63),
        ("expires_in", 2**63),
    ],
)
def test_a_seek_refuses_a_whole_number_beyond_its_bounds(me: Client, field: str, value: int):
    refused = me.post("/api/seeks", {**SEEK, "players": 4 if field == "partner_id" else 2,
                                     field: value})  # fmt: skip
    assert refused.status_code == 400, refused.json()
    assert refused["Content-Type"] == "application/problem+json"
    assert [error["field"] for error in refused.json()["errors"]] == [field]
    assert not Seek.objects.exists()


def test_a_seek_keeps_its_rating_window_as_given(me: Client) -> None:
    sought = me.post("/api/seeks", {**SEEK, "rating_min": 0, "rating_max": MAX_RATING})
    assert sought.status_code == 201, sought.json()
    seek = Seek.objects.get()
    assert (seek.rating_min, seek.rating_max) == (0, MAX_RATING)


def test_ids_in_bodies_are_bounded_like_a_bigint(me: Client) -> None:
    beyond = me.post("/api/players/me/blocks", {"blocked_id": MAX_ID + 1})
    assert beyond.status_code == 400
    nobody = me.post("/api/players/me/blocks", {"blocked_id": MAX_ID})
    assert nobody.status_code in (400, 404, 422), nobody.json()  # nobody has it: not a 500
    challenged = me.post("/api/challenges", {**SEEK, "opponents": [2**64]})
    assert challenged.status_code == 400
    assert challenged.json()["errors"][0]["field"].startswith("opponents")


def test_an_expected_version_beyond_any_log_is_refused(table: Any) -> None:
    game_id, clients = table("valenciano")
    acted = clients[0].act(game_id, {"type": "mazo"}, MAX_QUERY_INTEGER + 1)
    assert acted.status_code == 400, acted.json()
    assert acted.json()["errors"][0]["field"] == "expected_version"


@pytest.fixture
def started(table: Any) -> tuple[str, list[Client]]:
    return table("valenciano")


def _cursors(game_id: str) -> list[str]:
    return [
        f"/api/games/{game_id}/events",
        f"/api/games/{game_id}/events/wait",
        f"/api/games/{game_id}/stream",
        "/api/stream",
    ]


@pytest.mark.parametrize("after", ["-1", str(MAX_QUERY_INTEGER + 1), "1.5"])
def test_a_cursor_the_schema_refuses_is_a_400_everywhere(started: Any, after: str) -> None:
    game_id, clients = started
    for path in _cursors(game_id):
        refused = clients[0].get(f"{path}?after={after}")
        assert refused.status_code == 400, (path, refused.content)
        assert refused.json()["errors"][0]["field"] == "after", path


def test_a_cursor_beyond_the_log_is_a_422_everywhere(started: Any) -> None:
    """Within the schema's bounds but past the log: the feed answers as the long poll and the
    streams do, and never echoes the cursor as the game's version."""
    game_id, clients = started
    for path in _cursors(game_id):
        for after in (4294967296, MAX_QUERY_INTEGER):
            refused = clients[0].get(f"{path}?after={after}")
            assert refused.status_code == 422, (path, refused.content)
            assert refused["Content-Type"] == "application/problem+json"
            assert refused.json()["code"] == "after_beyond_log", path
    for resumed in ("-1", "", str(MAX_QUERY_INTEGER + 1)):
        for path in _cursors(game_id)[2:]:  # the streams: the header takes the place of `after`
            refused = clients[0].get(path, **{"Last-Event-ID": resumed})
            assert refused.status_code == 400, (path, resumed)
            beside = clients[0].get(
                f"{path}?after={MAX_QUERY_INTEGER + 1}", **{"Last-Event-ID": "0"}
            )
            assert beside.status_code == 400, path  # a bad `after` is refused beside the header
