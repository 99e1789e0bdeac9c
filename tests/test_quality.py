"""The code is linted, formatted and (for the engine) strictly typed: run as ordinary tests."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m <args>` with this interpreter (the venv's tools) from the repo root."""
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_ruff_lint_and_format_are_clean() -> None:
    for args in (("ruff", "check", "."), ("ruff", "format", "--check", ".")):
        result = _run(*args)
        assert result.returncode == 0, f"{' '.join(args)}:\n{result.stdout}{result.stderr}"


def test_engine_passes_mypy_strict() -> None:
    if not (REPO / "games" / "engine" / "__init__.py").exists():
        pytest.skip("games/engine/__init__.py does not exist yet: the engine is written separately")
    result = _run("mypy", "--strict", "games/engine")
    assert result.returncode == 0, f"mypy --strict games/engine:\n{result.stdout}{result.stderr}"
