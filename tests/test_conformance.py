"""`manage.py conformance`: the shared worked cases, and the runner's own contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_CASES = ROOT.parent / "shared" / "conformance"
#: The flor (RULES.md §5.3) and six-player (§9) cases, kept apart until they join the rest.
FLOR_SIX_CASES = ROOT.parent / "shared" / "conformance-flor-six"


def conformance(
    *paths: Path | str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """The command as a user runs it, in its own process."""
    return subprocess.run(
        [sys.executable, "manage.py", "conformance", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


@pytest.mark.skipif(not SHARED_CASES.is_dir(), reason="shared/conformance is not beside the repo")
def test_conformance_every_shared_case_passes_without_any_service():
    # An unreachable database and broker: the command must need neither.
    offline = {
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",
        "CELERY_BROKER_URL": "memory://",
    }
    folders = [folder for folder in (SHARED_CASES, FLOR_SIX_CASES) if folder.is_dir()]
    result = conformance(*folders, env=offline)
    last = result.stdout.strip().splitlines()[-1]
    passed = len(
        [
            case
            for folder in folders
            for file in folder.glob("*.json")
            for case in json.loads(file.read_text())
        ]
    )
    assert last == f"{passed} passed, 0 failed", result.stdout + result.stderr
    assert result.returncode == 0


@pytest.mark.skipif(not FLOR_SIX_CASES.is_dir(), reason="shared/conformance-flor-six is absent")
def test_conformance_flor_and_six_player_cases_are_run():
    result = conformance(FLOR_SIX_CASES)
    assert result.stdout.strip().splitlines()[-1] == "35 passed, 0 failed", result.stdout
    assert result.returncode == 0


def _write(tmp_path: Path, name: str, content: object) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


CASE = {
    "id": "own-01",
    "ruleset": "argentino_clasico",
    "players": 2,
    "hands": [["1E", "4C", "5C"], ["1B", "4O", "5O"]],
    "actions": [
        {"seat": 0, "type": "play", "card": "1E"},
        {"seat": 1, "type": "play", "card": "1B"},
    ],
    "expect": {"baza_results": [0], "turn": 0, "hand_over": False},
}


def test_conformance_a_failing_case_is_named_and_fails_the_run(tmp_path):
    wrong = {**CASE, "id": "own-02", "expect": {"turn": 1}}
    result = conformance(_write(tmp_path, "cases.json", [CASE, wrong]))
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[0].startswith(f"FAIL {tmp_path / 'cases.json'} own-02: turn: expected 1, got 0")
    assert result.returncode != 0


def test_conformance_an_illegal_action_accepted_is_a_failure(tmp_path):
    case = {**CASE, "actions": [{"seat": 1, "type": "play", "card": "1B", "illegal": False}]}
    result = conformance(_write(tmp_path, "cases.json", [case]))
    assert "was rejected: not_your_turn" in result.stdout
    assert result.returncode != 0


def test_conformance_bad_files_and_cases_are_counted_as_failed(tmp_path):
    _write(tmp_path, "broken.json", "[{not json")
    _write(
        tmp_path, "odd.json", [{"id": "odd-01", "ruleset": "argentino", "expect": {"colour": 1}}]
    )
    result = conformance(tmp_path)
    assert result.stdout.strip().splitlines()[-1] == "0 passed, 2 failed"
    assert "broken.json -: not a readable JSON file" in result.stdout
    assert "odd-01: bad case: unknown key(s) ['colour']" in result.stdout
    assert result.returncode != 0
