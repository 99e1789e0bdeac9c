"""The committed `openapi.yaml` passes Redocly's linter: its strict recommended rules, with the
exceptions of tests/api/ts/lint.redocly.yaml and .redocly.lint-ignore.yaml, each of which says why.

The linter is pinned in tests/api/ts/package.json (`npm ci`, as the TypeScript client test
installs it); skipped only where Node is not installed.
"""

from __future__ import annotations

import re

from tests.api.test_typescript_client import BIN, REPO, TS, _run, install, pytestmark

__all__ = ["pytestmark"]


def test_openapi_document_passes_the_linter() -> None:
    install()
    result = _run(
        BIN / "redocly", "lint", REPO / "openapi.yaml", "--config", TS / "lint.redocly.yaml"
    )
    output = result.stdout + result.stderr
    assert "Your API description is valid" in output, output
    assert not re.search(r"\b(warning|error)s?\b", output.split("validating", 1)[-1]), output


def test_every_exception_to_the_linter_says_why() -> None:
    for name in ("lint.redocly.yaml", ".redocly.lint-ignore.yaml"):
        lines = (TS / name).read_text().splitlines()
        for number, line in enumerate(lines):
            quiet = re.match(r"\s*([\w-]+): off\b", line) or re.match(r"\s*- '#/", line)
            if quiet:
                above = lines[number - 1].strip() if number else ""
                is_entry = above.startswith("- '#/")
                assert above.startswith("#") or is_entry, f"{name}: {line.strip()} says no why"
