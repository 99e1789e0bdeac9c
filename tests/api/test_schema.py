"""The committed OpenAPI schema: it generates cleanly, it is current, and it documents errors.

`openapi.yaml` at the repository root is what clients are generated from (see
test_generated_client.py); `make schema` regenerates it.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "openapi.yaml"
PROBLEM = "application/problem+json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as file:
        return yaml.safe_load(file)


SCHEMA = _load(COMMITTED)
OPERATIONS = {
    f"{method.upper()} {path}": operation
    for path, item in SCHEMA["paths"].items()
    for method, operation in item.items()
    if method in METHODS
}


# truc_api/health.py is outside what this suite may change; its probes document no error.
@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    """`manage.py spectacular --validate --fail-on-warn`, as `make schema` runs it (DEBUG off).

    A subprocess, not call_command: drf-spectacular reports each warning once per process, so a
    schema generated earlier in the same process could hide a warning from --fail-on-warn.
    """
    target = tmp_path_factory.mktemp("schema") / "openapi.yaml"
    command = [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn"]
    result = subprocess.run(
        [*command, "--file", str(target)],
        cwd=REPO,
        env={**os.environ, "DEBUG": "false"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result, target


def test_schema_generates_without_warnings_and_validates(generated: Any) -> None:
    result, target = generated
    assert result.returncode == 0, f"spectacular failed:\n{result.stdout}\n{result.stderr}"
    assert target.exists()


def test_committed_schema_is_current(generated: Any) -> None:
    result, target = generated
    assert result.returncode == 0, f"spectacular failed:\n{result.stdout}\n{result.stderr}"
    fresh = target.read_text(encoding="utf-8")
    committed = COMMITTED.read_text(encoding="utf-8")
    if fresh != committed:
        diff = difflib.unified_diff(
            committed.splitlines(), fresh.splitlines(), "openapi.yaml", "generated", lineterm=""
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(f"openapi.yaml is out of date: run `make schema` and commit it.\n{shown}")


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operation_has_an_id_and_a_tag(name: str) -> None:
    operation = OPERATIONS[name]
    assert operation.get("operationId"), f"{name}: no operationId"
    assert operation.get("tags"), f"{name}: no tag"


def test_operation_ids_are_unique() -> None:
    ids = [operation["operationId"] for operation in OPERATIONS.values()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operation_documents_a_problem_response(name: str) -> None:
    errors = [
        status
        for status, response in OPERATIONS[name]["responses"].items()
        if status[0] in "45" and PROBLEM in response.get("content", {})
    ]
    assert errors, f"{name}: no {PROBLEM} error response"


def _problem_responses() -> list[Any]:
    return [
        pytest.param(response, int(status), id=f"{name} {status}")
        for name, operation in sorted(OPERATIONS.items())
        for status, response in operation["responses"].items()
        if PROBLEM in response.get("content", {})
    ]


@pytest.mark.parametrize(("response", "status"), _problem_responses())
def test_problem_response_has_consistent_examples(response: dict[str, Any], status: int) -> None:
    content = response["content"][PROBLEM]
    assert content["schema"] == {"$ref": "#/components/schemas/Problem"}
    examples = content.get("examples")
    assert examples, "a problem response without examples"
    for name, example in examples.items():
        value = example["value"]
        assert value["status"] == status, name
        assert value["type"] == f"urn:truc-api:problem:{value['code']}", name
        assert value["title"] and value["detail"], name


def test_every_action_type_has_a_request_example() -> None:
    operation = next(op for op in OPERATIONS.values() if op["operationId"] == "games_act")
    body = operation["requestBody"]["content"]["application/json"]
    assert operation["requestBody"]["required"] is True
    assert body["schema"] == {"$ref": "#/components/schemas/ActionRequest"}
    action_types = SCHEMA["components"]["schemas"]["ActionType"]["enum"]

    examples = [example["value"] for example in body["examples"].values()]
    assert sorted({example["type"] for example in examples}) == sorted(action_types)
    for example in examples:
        assert isinstance(example["expected_version"], int)
        assert ("card" in example) == (example["type"] == "play"), example


def test_components_describe_themselves() -> None:
    """No request component borrows the docstring of the StrictSerializer it is built on."""
    borrowed = [
        name
        for name, component in SCHEMA["components"]["schemas"].items()
        if "Rejects keys that are not declared fields" in component.get("description", "")
    ]
    assert borrowed == []
