"""The referee stays pure Python (STYLE.md: "games/engine/: pure Python, no Django, no clock, no
randomness"): every import in games/engine, at module level or in a function, is the engine's own
or one of the standard library's modules of pure computation below, and no code calls a built-in
that reads or writes outside the process.

The list allows; it does not forbid: a module not on it (Django, the ORM, ``os``, ``io``,
``pathlib``, ``socket``, ``subprocess``, ``logging``, ``time``, ``datetime``, ``random``,
``secrets``, ``uuid``, ``json`` ...) fails the test until someone adds it here with a reason. The
shell supplies what the engine must not reach for itself: the cards of a deal (an event), the
time (a deadline), the storage.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "games" / "engine"

#: Standard library modules that compute and nothing else: no clock, no randomness, no I/O.
PURE = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "collections.abc",
        "copy",
        "dataclasses",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "math",
        "operator",
        "re",
        "string",
        "types",
        "typing",
    }
)
#: Built-ins that read or write outside the process, or import by name behind the list's back.
IMPURE_BUILTINS = frozenset(
    {"open", "print", "input", "breakpoint", "__import__", "exec", "eval", "compile"}
)


def impurities(source: str) -> list[str]:
    """What ``source`` (a module of the engine) imports or calls that the engine may not."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name not in PURE]
        elif isinstance(node, ast.ImportFrom):
            own = node.level > 0 or (node.module or "").startswith("games.engine")
            if not own and node.module not in PURE:
                found.append(str(node.module))
        elif isinstance(node, ast.Name) and node.id in IMPURE_BUILTINS:
            found.append(f"{node.id}()")
    return found


def test_the_engine_imports_only_itself_and_pure_standard_modules() -> None:
    modules = sorted(ENGINE.rglob("*.py"))
    assert len(modules) > 10  # the engine's modules are where this test looks for them
    found = {
        str(path.relative_to(ENGINE)): wrong
        for path in modules
        if (wrong := impurities(path.read_text()))
    }
    assert found == {}


def test_the_purity_check_sees_django_a_clock_randomness_and_io() -> None:
    source = """
from dataclasses import dataclass
from . import events
from games.engine.state import State
import os.path
from django.db import models
import datetime

def deal():
    import random
    from time import monotonic
    return open("deck.txt")
"""
    assert impurities(source) == [
        "os.path",
        "django.db",
        "datetime",
        "random",
        "time",
        "open()",
    ]
