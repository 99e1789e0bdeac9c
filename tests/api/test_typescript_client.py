"""A TypeScript client generated from the committed `openapi.yaml` plays a whole match and
reads both its streams.

openapi-typescript (pinned in tests/api/ts/package.json, installed with `npm ci` from the
lockfile) writes the types (tests/api/ts/generate.mjs); `tsc --strict` (tests/api/ts/tsconfig.json:
strict, no implicit any, exact optional properties) compiles tests/api/ts/src/match.ts, which has
no cast and no `any`; node then runs it against pytest-django's live server. Skipped only where
Node is not installed (CI installs it: .ci/run).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "tests" / "api" / "ts"
BIN = TS / "node_modules" / ".bin"
STAMP = TS / "node_modules" / ".installed-from-lock"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="Node.js and npm are not installed: the TypeScript client cannot be generated here",
)


def _run(*command: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=TS,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result


def install() -> None:
    """The tools of the lockfile, with `npm ci`: once per lockfile."""
    lock = (TS / "package-lock.json").read_text()
    if not STAMP.exists() or STAMP.read_text() != lock:
        _run("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
        STAMP.write_text(lock)


@pytest.fixture(scope="module")
def compiled() -> Path:
    """The tools, the types generated from the committed document, the compiled program."""
    install()
    generated = TS / "src" / "generated"
    generated.mkdir(exist_ok=True)
    # openapi-typescript through its Node API: a stream message's JSON `data` typed by its
    # `contentSchema` (tests/api/ts/generate.mjs says why and how).
    _run("node", TS / "generate.mjs", REPO / "openapi.yaml", generated / "schema.d.ts")
    _run(BIN / "tsc", "--strict", "-p", "tsconfig.json")
    return TS / "build" / "match.js"


def test_the_program_has_no_cast_and_no_any() -> None:
    source = (TS / "src" / "match.ts").read_text()
    code = "\n".join(line.split("//")[0] for line in source.splitlines())
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    assert not re.search(r"\bany\b", code), "an explicit any"
    assert not re.search(r"\)\s*as\s|\w\s+as\s+[\w{(\[]|<\w+>\s*\w", code), "a cast"
    assert "@ts-" not in code, "a suppressed error"


@pytest.mark.slow
def test_typescript_client_type_checks_and_plays_a_whole_match(
    compiled: Path, live_server: Any
) -> None:
    result = _run("node", compiled, TRUC_API_URL=live_server.url)
    assert "match over: side" in result.stdout, result.stdout + result.stderr
