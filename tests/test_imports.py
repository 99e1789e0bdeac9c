"""The import graph of the project's own modules has no cycle, and no import hides inside a
function (STYLE.md: the direction of arrows), bar Django's ``AppConfig.ready``."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = (
    "games",
    "players",
    "notifications",
    "truc_api",
    "streams",
    "push",
    "lobby",
    "oauth",
    "routes",
    "play",
)

#: The apps from the ground up (STYLE.md: the direction of arrows): each may import the ones below
#: it, never one above. ``routes`` is the top: the URLs of the prefixes several apps answer.
#: ``play`` is apart: a page that talks to the rest over the public API only.
LAYERS = (
    "truc_api", "players", "games", "notifications", "streams", "push", "lobby", "oauth", "routes",
)  # fmt: skip


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imported(node: ast.AST, module: str, known: dict[str, Path]) -> list[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            # Relative to the module's package: a package's __init__ is its own.
            own = (
                module.split(".") if known[module].name == "__init__.py" else module.split(".")[:-1]
            )
            package = own[: len(own) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        # ``from package import module`` needs the module; ``from module import name``, the module.
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
            for alias in node.names
        ]
    resolved = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            resolved.append(name)
    return resolved


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    known = _modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    hidden = []
    for module, path in known.items():
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level, and inside ``if TYPE_CHECKING`` blocks
            for inner in ast.walk(node) if isinstance(node, ast.If) else [node]:
                graph[module].update(_imported(inner, module, known))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(function):
                if _imported(inner, module, known) and function.name != "ready":
                    hidden.append(f"{module}.{function.name}")
    return graph, hidden


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    graph, _ = _graph()
    assert _cycles(graph) == []


def test_no_import_hides_inside_a_function() -> None:
    _, hidden = _graph()
    assert hidden == []


def test_truc_api_imports_no_app() -> None:
    graph, _ = _graph()
    wrong = {
        (module, other)
        for module, others in graph.items()
        if module.startswith("truc_api")
        for other in others
        if not other.startswith("truc_api")
    }
    assert wrong == set()


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) for every import of a module in a higher layer, or in ``play``."""
    rank = {app: floor for floor, app in enumerate(LAYERS)}

    def app(module: str) -> str:
        return module.partition(".")[0]

    def floor(module: str) -> int:
        return rank.get(app(module), len(LAYERS))

    return {
        (module, other)
        for module, others in graph.items()
        for other in others
        if floor(other) > floor(module) or (app(other) == "play" != app(module))
    }


def test_no_app_imports_one_above_it() -> None:
    graph, _ = _graph()
    assert _upward(graph) == set()


def test_the_layer_check_sees_an_import_that_runs_back_up() -> None:
    assert _upward({"players.services": {"games.store"}, "games.store": {"players.models"}}) == {
        ("players.services", "games.store")
    }
