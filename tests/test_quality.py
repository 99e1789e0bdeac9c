"""The code is linted, formatted and type-checked: run as ordinary tests."""

import subprocess
import sys
from pathlib import Path

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


#: The pure-Python parts, typed strictly on their own: the referee, the bots, the Elo functions.
STRICT = ("games/engine", "games/bots", "players/ratings.py")


def test_project_passes_mypy() -> None:
    """The files pyproject.toml's [tool.mypy] names, with django-stubs and DRF's stubs."""
    result = _run("mypy")
    assert result.returncode == 0, f"mypy:\n{result.stdout}{result.stderr}"


def test_pure_modules_pass_mypy_strict() -> None:
    # Only these files: the overrides for the rest of the project go unused, and that is fine.
    result = _run("mypy", "--strict", "--no-warn-unused-configs", *STRICT)
    assert result.returncode == 0, (
        f"mypy --strict {' '.join(STRICT)}:\n{result.stdout}{result.stderr}"
    )
