"""The service's modules form layers: no module imports, directly or through
others, a module that imports it back - counting imports inside functions,
which Python resolves late and so never complains of (issue 14: health,
matches and sweeper once imported each other that way).  The same holds for
the engine, the views and the tournament harness.

Read from the source with ``ast``, nothing imported, so a cycle fails here
even where the late imports would have worked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "service", "views", "umpire")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports anywhere in its text (functions included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)  # a submodule, or a name from the module itself
    return {m for m in out if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def graph_of(package: str) -> dict[str, set[str]]:
    found = modules(package)
    # The package's own __init__ only wires its modules together (service's is the app factory);
    # importing one submodule runs it, but no submodule imports the package for a name of its own.
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_import_in_layers(package: str) -> None:
    graph = graph_of(package)
    assert len(graph) > 1
    assert cycles(graph) == []


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    graph = {
        "service.matches.routes": {"service.matches.sweeper"},
        "service.matches.sweeper": {"service.matches.health"},
        "service.matches.health": {"service.matches.routes"},
    }
    assert cycles({**graph, "service.matches.db": set()}) == [
        ["service.matches.health", "service.matches.routes", "service.matches.sweeper"]
    ]
    path = tmp_path / "health.py"
    path.write_text("def misconfiguration():\n    from service.matches.routes import bp\n    from . import store\n")
    known = {"service", "service.matches.routes", "service.matches.store", "service.matches.health"}
    assert imports("service.matches.health", path, known) == {"service.matches.routes", "service.matches.store"}


def test_the_service_layers_as_db_says() -> None:
    graph = graph_of("service")
    below_db = {
        "service.matches.hub",
        "service.matches.store",
        "service.matches.keys",
        "service.matches.lua",
        "service.matches.redisclient",
        "service.matches.errors",
        "service.matches.referee",
        "service.web.metrics",
        "service.web.requestlog",  # metrics are told of each answer by the request log
        "service.web.schemas",
        "service.run.embedded",
    }
    reach: set[str] = set()
    frontier = ["service.matches.db"]
    while frontier:
        for m in graph[frontier.pop()]:
            if m not in reach:
                reach.add(m)
                frontier.append(m)
    assert reach <= below_db  # db imports nothing of the blueprints (matches, events, health, sweeper)
    for upper in ("service.matches.routes", "service.matches.events", "service.matches.health", "service.matches.sweeper"):
        assert "service.matches.db" in graph[upper]  # the store comes from db, not from a blueprint


def test_the_plumbing_is_the_bottom_layer_of_the_service() -> None:
    """service.web (errors, schemas, signing, limits, logs, metrics) serves every request, so it
    imports nothing of the stateless API, of managed matches or of running the service."""
    graph = graph_of("service")
    upward = {
        m: sorted(d for d in deps if not d.startswith("service.web")) for m, deps in graph.items() if m.startswith("service.web")
    }
    assert len(upward) >= 5
    assert {m: d for m, d in upward.items() if d} == {}


WIRING = {"register_blueprint", "register_error_handler", "errorhandler", "add_command"}


def test_every_blueprint_and_error_handler_is_registered_in_create_app() -> None:
    """A reader finds all routes and every error's answer in service/__init__.py (issue 20): no
    other module registers a blueprint, an error handler or a command on the app."""
    found: dict[str, set[str]] = {}
    for name, path in modules("service").items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in WIRING:
                found.setdefault(name, set()).add(node.attr)
    assert "service" in found and {"register_blueprint", "register_error_handler"} <= found["service"]
    assert {m: w for m, w in found.items() if m != "service"} == {}
