"""`FieldErrorCode` is every code the server puts in a problem's `errors`, and only those.

Real requests, made from the committed document: for every operation, bodies and query values
the document refuses (each property missing, null, of another JSON type, past its bounds, not
one of its values; unknown keys; a body that is not JSON), and the values the document allows
that a rule refuses (weak passwords, deceiving names, private webhook URLs, options the rules
refuse together, tables that cannot be made). Every code the answers carry must be in the
document's enum, and every code of the enum must have been answered but the few listed below,
each with the reason it cannot be reached by a request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from tests.api.document import DOCUMENT, SCHEMAS, conforms
from tests.factories import PlayerFactory
from tests.games.conftest import Client

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

ENUM = set(SCHEMAS["FieldErrorCode"]["enum"])

#: Codes of the enum no request reaches, and why they are listed all the same.
UNREACHED = {
    # The engine's own default codes, for an action or rules it reads from its store, not from a
    # request (a request's are checked by the API's serializers first); listed because the
    # errors that carry them are the ones the API wraps.
    "invalid_action": "the engine reading a stored action",
    "invalid_rules": "the engine reading stored rules",
    # Django's handler400, for a request it cannot read at all (a header it refuses): the
    # test client always sends one it reads.
    "bad_request": "a request Django cannot read",
    # Over 1,000 digits: the document's bounds refuse far fewer first (DRF checks the length
    # before the value).
    "max_string_length": "an integer of more than 1,000 digits",
    # DRF reads a list's type after StrictSerializer, which calls a non-list `invalid_type` first.
    "not_a_list": "a list field given another type (StrictSerializer answers first)",
    # The engine's, for a preset the API's serializers already refused (`invalid_choice`).
    "unknown_preset": "a preset the serializers refuse first",
    "surrogate_characters_not_allowed": "a lone surrogate, which no UTF-8 body holds",
}


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]] | {
            k: v for k, v in schema.items() if k != "$ref"
        }
    return schema


def _alternatives(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schema, and each schema of its allOf/oneOf/anyOf, resolved."""
    schema = _resolve(schema)
    yield schema
    for key in ("allOf", "oneOf", "anyOf"):
        for inner in schema.get(key, []):
            yield from _alternatives(inner)


def _types(schema: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for alternative in _alternatives(schema):
        kind = alternative.get("type")
        found |= set(kind) if isinstance(kind, list) else {kind} if kind else set()
        if "enum" in alternative:
            found |= {type(value).__name__ for value in alternative["enum"]}
    return found


_OTHER_TYPE = {"integer": "7", "number": "7", "boolean": 1, "string": 7, "array": {}, "object": []}


def _refused(schema: dict[str, Any]) -> Iterator[Any]:
    """Values of a property that its schema refuses."""
    types = _types(schema)
    if "null" not in types and "NoneType" not in types:
        yield None
    for kind in types & set(_OTHER_TYPE):
        yield _OTHER_TYPE[kind]
    for alternative in _alternatives(schema):
        if "enum" in alternative:
            yield "not_a_listed_value"
        if "maximum" in alternative:
            yield alternative["maximum"] + 1
        if "minimum" in alternative:
            yield alternative["minimum"] - 1
        if "maxLength" in alternative:
            yield "x" * (alternative["maxLength"] + 1)
        if alternative.get("minLength", 0) >= 1:
            yield "x" * (alternative["minLength"] - 1)
        if alternative.get("minItems", 0) >= 1:
            yield []
        if alternative.get("type") == "string" and "enum" not in alternative:
            yield "nul\x00"
            yield "lone \ud800"  # escaped in the JSON text: no UTF-8 holds it
        if "maxItems" in alternative:
            yield [None] * (alternative["maxItems"] + 1)
        if alternative.get("type") == "array":
            yield [None]
        if "properties" in alternative:
            yield {"not_a_field": 1}


def _bodies(schema: dict[str, Any]) -> Iterator[Any]:
    yield []
    yield {}
    yield {"not_a_field": 1}
    for alternative in _alternatives(schema):
        for name, inner in alternative.get("properties", {}).items():
            for value in _refused(inner):
                yield {name: value}


def _queries(parameters: list[dict[str, Any]]) -> Iterator[str]:
    yield "not_a_parameter=1"
    for parameter in parameters:
        if parameter.get("in") != "query":
            continue
        name = parameter["name"]
        for value in ("", "x", "-1", "1.5", str(10**19), "nul\x00"):
            yield f"{name}={value}"


class World:
    def __init__(self) -> None:
        self.me = Client(PlayerFactory.create())
        self.rival = Client(PlayerFactory.create())
        created = self.me.post("/api/games", {"preset": "valenciano"})
        self.game = created.json()["id"]
        assert self.rival.post(f"/api/games/{self.game}/join").status_code == 200
        challenge = {"preset": "valenciano", "opponents": [self.me.player.pk], "rated": False}
        self.challenge = self.rival.post("/api/challenges", challenge).json()["id"]
        self.codes: set[str] = set()

    def path(self, template: str, operation: dict[str, Any]) -> str:
        ids = {
            "game_id": self.game,
            "player_id": self.rival.player.pk,
            "challenge_id": self.challenge,
        }
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "path":
                schema = _resolve(parameter["schema"])
                given = ids.get(parameter["name"], (schema.get("enum") or ["0"])[0])
                template = template.replace("{" + parameter["name"] + "}", str(given))
        return template

    def send(self, method: str, path: str, body: Any = None, raw: str | None = None) -> None:
        headers = {"Idempotency-Key": "k"} if path.endswith("/actions") else {}
        if raw is not None:
            response = self.me.http.generic(
                method.upper(), path, raw, content_type="application/json", headers=headers
            )
        elif method == "get" or method == "delete":
            response = getattr(self.me.http, method)(path, headers=headers)
        else:  # JSON with every non-ASCII character escaped, as any client may write it
            response = self.me.http.generic(
                method.upper(), path, json.dumps(body), "application/json", headers=headers
            )
        self.collect(response)

    def collect(self, response: Any) -> None:
        assert response.status_code < 500, (response.status_code, response.content[:300])
        if response.get("Content-Type") != "application/problem+json":
            return
        problem = json.loads(response.content)
        conforms(problem, "Problem")  # among others, each entry's code is in the enum
        self.codes |= {error["code"] for error in problem.get("errors", [])}


_SKIPPED = {"auth_logout", "auth_logout_all", "players_me_delete"}


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation["operationId"] not in _SKIPPED:
                yield path, method, operation


def test_every_field_code_answered_is_in_the_enum_and_every_one_is_answered() -> None:
    world = World()
    for template, method, operation in _operations():
        path = world.path(template, operation)
        for query in _queries(operation.get("parameters", [])):
            world.send(method, f"{path}?{query}")
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            world.send(method, path, raw="{not json")
            for body in _bodies(content["application/json"]["schema"]):
                world.send(method, path, body)
    _refused_by_rules(world)
    assert world.codes <= ENUM, world.codes - ENUM
    assert ENUM - world.codes == set(UNREACHED), ENUM - world.codes


def _refused_by_rules(world: World) -> None:
    """Values the document allows that a rule refuses: a 422 naming the field with its code."""
    me, send = world.me, world.send
    for password in ("short1!", "password123", "81726354901", "pepito-the-player"):
        body = {"username": "pepito-the-player", "password": password}
        world.collect(me.http.post("/api/auth/register", body, format="json"))
    for name in ("Bot strong 1", "Pep\u202e"):
        send("patch", "/api/players/me", {"display_name": name})
    # The sweep above spent this endpoint's login throttle (10 a minute): whether this request is
    # answered or throttled would depend on how fast the machine sent them. Start its count anew.
    cache.clear()
    wrong = {"current_password": "not-mine-1!", "new_password": "N3w-pass!x"}
    send("post", "/api/auth/password", wrong)
    send("post", "/api/webhooks/subscriptions", {"url": "http://127.0.0.1/hook", "kinds": []})
    send("post", "/api/webhooks/subscriptions", {"url": "ftp://example.com/", "kinds": []})
    send("post", "/api/webhooks/subscriptions", {"url": "http://nowhere.invalid/", "kinds": []})
    devices = "/api/players/me/devices"
    send("post", devices, {"kind": "apns", "token": "zz", "topic": "not a bundle id"})
    keys = {"p256dh": "AAAA", "auth": "AAAA"}
    send(
        "post",
        devices,
        {"kind": "webpush", "subscription": {"endpoint": "https://x.io/1", "keys": keys}},
    )
    send("post", devices, {"kind": "fcm", "token": "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZ"})
    send("patch", "/api/players/me/notifications", {"time_zone": "Mars/Olympus"})
    send("patch", "/api/players/me/notifications", {"quiet_from": "22:00"})
    for options in (
        {"buenas_from": 20, "target": 12},
        {"flor": True, "deck": "valencian22"},
        {"pica_pica": True},
        {"no_such_option": 1},
        {"target": "twelve"},
    ):
        send("post", "/api/games", {"preset": "valenciano", "options": options})
    send("post", "/api/games", {"preset": "valenciano", "bots": [{"seat": 3, "level": "basic"}]})
    other = world.rival.post("/api/games", {"preset": "valenciano"}).json()["id"]
    send("post", f"/api/games/{other}/join", {"seat": 3})
    for action in ({"type": "fold"}, {"type": "play", "card": "7X"}, {"type": "play"}):
        send("post", f"/api/games/{world.game}/actions", {**action, "expected_version": 2})
    send("post", f"/api/games/{world.game}/actions", {"type": "truco", "card": "7O"})
    seek = {"preset": "valenciano", "players": 2, "rated": True}
    send("post", "/api/seeks", {**seek, "bot_after": 5})
    send("post", "/api/seeks", {**seek, "rating_min": 1600, "rating_max": 1400})
    send("post", "/api/seeks", {**seek, "partner_id": world.rival.player.pk})
    send("post", "/api/seeks", {**seek, "players": 4, "partner_id": 10**6})
    send("post", "/api/players/me/blocks", {"blocked_id": 10**6})
    challenge = {"preset": "valenciano", "rated": False}
    rival = world.rival.player.pk
    send("post", "/api/challenges", {**challenge, "opponents": [rival, 10**6]})
    send("post", "/api/challenges", {**challenge, "players": 4, "opponents": [rival, rival]})
    send("post", "/api/challenges", {**challenge, "opponents": [rival], "partner_id": rival})
    send("post", "/api/challenges", {**challenge, "opponents": [10**6]})
