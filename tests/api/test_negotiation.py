"""A request JSON cannot answer (`Accept: text/html`) or a body that is not JSON: each operation
answers as the document says it does, a 406 or a 415 problem, and declares no such answer it
never gives."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.api.document import DOCUMENT, SCHEMAS, conforms
from tests.factories import PlayerFactory
from tests.games.conftest import Client

pytestmark = pytest.mark.django_db


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in DOCUMENT["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict)
    ]


def _each(found: list[tuple[str, str, dict[str, Any]]]) -> list[Any]:
    """Operations as test cases, each named by its operationId."""
    return [pytest.param(*operation, id=operation[2]["operationId"]) for operation in found]


def _path(template: str, operation: dict[str, Any], me: Client) -> str:
    """The path with ids that resolve (a real game, a player; any other a well-formed one)."""
    game_id = str(me.post("/api/games", {"preset": "valenciano"}).json()["id"])
    for parameter in operation.get("parameters", []):
        if parameter["in"] != "path":
            continue
        schema = parameter["schema"]
        if "$ref" in schema:
            schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
        value = (
            game_id
            if parameter["name"] == "game_id"
            else schema["enum"][0]
            if "enum" in schema
            else me.player.pk
            if schema.get("type") == "integer"
            else str(uuid.uuid4())
        )
        template = template.replace("{" + parameter["name"] + "}", str(value))
    waits = any(parameter["name"] == "timeout" for parameter in operation.get("parameters", []))
    return template + ("?timeout=1" if waits else "")  # the long poll: not for long


@pytest.mark.parametrize(("template", "method", "operation"), _each(_operations()))
def test_an_operation_answers_a_406_and_415_as_declared(
    template: str, method: str, operation: dict[str, Any]
) -> None:
    me = Client(PlayerFactory.create())
    path = _path(template, operation, me)
    send = getattr(me.http, method)
    declared = operation["responses"]
    html = send(path, HTTP_ACCEPT="text/html")
    assert (html.status_code == 406) == ("406" in declared), (path, html.status_code)
    if "requestBody" in operation:
        # With every header the operation needs, so that only the body's type is at fault.
        text = send(path, "hello", content_type="text/plain", HTTP_IDEMPOTENCY_KEY="k")
        assert (text.status_code == 415) == ("415" in declared), (path, text.status_code)
    for answer in (html, *([text] if "requestBody" in operation else [])):
        if answer.status_code in (406, 415):
            conforms(answer.json(), "Problem", exactly=True)


def _numbered() -> list[tuple[str, str, dict[str, Any]]]:
    """The operations with a number in their path (`<int:...>` routes)."""
    return [
        found
        for found in _operations()
        if any(
            parameter["in"] == "path" and parameter["schema"].get("type") == "integer"
            for parameter in found[2].get("parameters", [])
        )
    ]


@pytest.mark.parametrize(("template", "method", "operation"), _each(_numbered()))
def test_a_path_number_that_is_not_one_is_a_declared_404(
    template: str, method: str, operation: dict[str, Any]
) -> None:
    """No route takes `/x` for a number: the 404 is the operation's, with its very body as an
    example."""
    me = Client(PlayerFactory.create())
    path = _path(template, operation, me)
    for parameter in operation["parameters"]:
        if parameter["in"] == "path" and parameter["schema"].get("type") == "integer":
            path = path.replace(f"/{me.player.pk}", "/x", 1)
    answer = getattr(me.http, method)(path)
    assert answer.status_code == 404, path
    examples = operation["responses"]["404"]["content"]["application/problem+json"]["examples"]
    assert answer.json() in [example["value"] for example in examples.values()]
