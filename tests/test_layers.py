"""The project's packages form a line of layers, and its modules no cycle.

The line (issue 33), each package importing only from those before it::

    engine  <-  views  <-  service.web  <-  service.api  <-  service.matches  <-  service.run, service.discord  <-  service

(``service`` itself is create_app, which wires them all together.)  So the
stateless API knows nothing of managed matches, managed matches nothing of
running the service, the plumbing nothing above it.  And no module imports,
directly or through others, a module that imports it back - counting imports
inside functions, which Python resolves late and so never complains of
(issue 14: health, matches and sweeper once imported each other that way).
The same holds for the engine, the views and the tournament harness.

Read from the source with ``ast``, nothing imported, so a wrong import fails
here even where the late imports would have worked."""

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


# The line of layers, lowest first: a module may import its own package and the packages of lower layers.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("engine",),
    ("views",),
    ("service.web",),
    ("service.api",),
    ("service.matches",),
    ("service.run", "service.discord"),  # neither imports the other: serving it, and the Discord channel (issue 36)
    ("service",),
)


def layer_of(module: str) -> tuple[int, str]:
    """The layer of ``module`` and its package (the longest package of the line that holds it)."""
    found = [(k, p) for k, packages in enumerate(LAYERS) for p in packages if module == p or module.startswith(p + ".")]
    return max(found, key=lambda kp: len(kp[1]))


def upward(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each module's imports of another package at its own layer or above."""
    out: dict[str, list[str]] = {}
    for module, deps in graph.items():
        level, package = layer_of(module)
        wrong = sorted(d for d in deps if layer_of(d)[1] != package and layer_of(d)[0] >= level)
        if wrong:
            out[module] = wrong
    return out


def project_graph() -> dict[str, set[str]]:
    found = {name: path for package in ("engine", "views", "service") for name, path in modules(package).items()}
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def test_the_packages_import_in_a_line_of_layers() -> None:
    graph = project_graph()
    assert {"service.api.pictures", "service.matches.pictures", "service.matches.db", "service.run.embedded"} <= set(graph)
    assert upward(graph) == {}


def test_an_import_up_the_line_is_found() -> None:
    """What the check catches: the stateless API reading the match store (as service/api/pictures.py
    once did), managed matches starting the embedded Redis (as service/matches/db.py once did) or
    importing the app factory; the same package, or a lower layer, is fine."""
    graph = {
        "service.api.pictures": {"service.matches.db", "service.api.renderer", "service.web.errors", "views"},
        "service.matches.db": {"service.run.embedded", "service.matches.store", "service.web.metrics"},
        "service.matches.sweeper": {"service"},
        "service.web.errors": {"engine.errors"},
        "engine.errors": set(),
    }
    assert upward(graph) == {
        "service.api.pictures": ["service.matches.db"],
        "service.matches.db": ["service.run.embedded"],
        "service.matches.sweeper": ["service"],
    }
    assert upward({"views.board": {"engine.hexboard"}, "engine.hexboard": {"views.board"}}) == {
        "engine.hexboard": ["views.board"]
    }


def test_the_store_is_below_the_views() -> None:
    """service/matches/db.py (the store, the hub) imports nothing of the views (routes, moves, events, health...)."""
    graph = graph_of("service")
    reach: set[str] = set()
    frontier = ["service.matches.db"]
    while frontier:
        for m in graph[frontier.pop()]:
            if m not in reach:
                reach.add(m)
                frontier.append(m)
    views = {"routes", "moves", "controls", "events", "health", "sweeper", "pictures", "webhooks", "changes"}
    assert {m for m in reach if m.rpartition(".")[2] in views} == set()
    for upper in ("service.matches.routes", "service.matches.events", "service.matches.health", "service.matches.sweeper"):
        assert "service.matches.db" in graph[upper]  # the store comes from db, not from a blueprint


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
