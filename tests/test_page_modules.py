"""The page's script is native ES modules, one concern each (issue 33: it was
one 1,648-line script of 92 functions sharing one mutable object).

index.html loads one entry module (``type="module"``, no build step) and
preloads the rest; every module the entry imports, however deep, is served
by the app as JavaScript (a browser refuses a module served as anything
else), is small, says what it is for in its first lines, and shares state
through its exports, never through globals or exported variables; every file
of the page is package data, so an installed service serves it too.
(tests/browser/test_page_store.py: the store's state, frozen for readers.)"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import pytest
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "service" / "api"
STATIC = PACKAGE / "static"
ENTRY = "/static/app.js"
JAVASCRIPT = {"text/javascript", "application/javascript"}
# The one script was 1,648 lines; the largest module, the store, has some 250.
MOST_LINES = 300

# Every way a module names another: `import ... from '...'`, `import '...'`, `export ... from '...'`, `import('...')`.
SPECIFIER = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*(['"])([^'"]+)\1""")

# A path -> (status, mimetype, text): how the browser would get it.
Fetch = Callable[[str], tuple[int, str, str]]


class Loads(HTMLParser):
    """The scripts and module preloads of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.preloads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script":
            self.scripts.append(a)
        if tag == "link" and a.get("rel") == "modulepreload":
            self.preloads.append(str(a.get("href")))


def specifiers(source: str) -> list[str]:
    return [m.group(2) for m in SPECIFIER.finditer(source)]


def resolve(base: str, specifier: str) -> str:
    """A specifier resolved against the importing module's path, as a browser does."""
    assert specifier.startswith(("./", "../")), f"{base} imports {specifier!r}: without a build step only relative paths resolve"
    parts: list[str] = []
    for part in (PurePosixPath(base).parent / specifier).parts[1:]:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


def walk(fetch: Fetch, entry: str = ENTRY) -> dict[str, str]:
    """Every module the entry imports, however deep: path -> source."""
    found: dict[str, str] = {}
    todo = [entry]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        status, mimetype, text = fetch(path)
        assert status == 200, f"{path} answers {status}"
        assert mimetype in JAVASCRIPT, f"{path} is served as {mimetype}: a browser refuses such a module"
        found[path] = text
        todo.extend(resolve(path, s) for s in specifiers(text))
    return found


def served(client: FlaskClient) -> Fetch:
    def fetch(path: str) -> tuple[int, str, str]:
        resp = client.get(path)
        return resp.status_code, resp.mimetype or "", resp.get_data(as_text=True)

    return fetch


def module_graph(client: FlaskClient) -> dict[str, str]:
    return walk(served(client))


def test_the_page_loads_one_entry_module_and_preloads_the_rest(client: FlaskClient) -> None:
    page = Loads()
    page.feed(client.get("/").get_data(as_text=True))
    assert page.scripts == [{"type": "module", "src": ENTRY}]  # no classic script, nothing inline (script-src 'self')
    graph = module_graph(client)
    # All fetched at once, not one level of imports after another: a new module goes in both lists.
    assert sorted(page.preloads) == sorted(set(graph) - {ENTRY}), "index.html's modulepreload links are not the entry's imports"


def test_every_module_is_imported_small_and_says_what_it_is_for(client: FlaskClient) -> None:
    graph = module_graph(client)
    files = {f"/static/{p.relative_to(STATIC).as_posix()}" for p in STATIC.rglob("*.js")}
    assert set(graph) == files, "a module the page never loads, or one it loads from elsewhere"
    assert len(graph) >= 10  # one concern a module, not one script
    for path, source in graph.items():
        lines = source.splitlines()
        assert len(lines) <= MOST_LINES, f"{path} has {len(lines)} lines: split it by concern"
        assert re.match(r"// \w.{30}", lines[0]), f"{path} does not say what it is for"
        assert not re.search(r"\bwindow\.\w+\s*=[^=]", source), f"{path} sets a global: share through exports"
        assert not re.search(r"^export\s+(let|var)\b", source, re.MULTILINE), f"{path} exports a variable: export operations"


def test_the_walk_finds_a_module_a_browser_would_refuse() -> None:
    files = {
        "/static/app.js": "import { a } from './a.js';\nimport './sub/b.js';",
        "/static/a.js": "export const a = 1;",
        "/static/sub/b.js": "import { a } from '../a.js';\nexport { a };",
    }

    def fetch(path: str) -> tuple[int, str, str]:
        return (200, "text/javascript", files[path]) if path in files else (404, "application/json", "")

    assert set(walk(fetch)) == set(files)
    files["/static/a.js"] = "import { c } from './c.js';"
    with pytest.raises(AssertionError, match=r"/static/c\.js answers 404"):
        walk(fetch)
    with pytest.raises(AssertionError, match="text/plain"):
        walk(lambda path: (200, "text/plain", ""))
    files["/static/a.js"] = "import { debounce } from 'lodash';"
    with pytest.raises(AssertionError, match="only relative paths"):
        walk(fetch)
    assert specifiers("export { c } from \"./c.js\";\nawait import('./e.js');") == ["./c.js", "./e.js"]


def test_every_file_of_the_page_is_package_data() -> None:
    """An installed service (a wheel, the image) carries only what pyproject.toml's package-data
    names: a module left out would be a 404 there, and the page would not start."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["service.api"]
    carried = {p for pattern in patterns for p in PACKAGE.glob(pattern)}
    page = {p for p in STATIC.rglob("*") if p.is_file()}
    assert {p.name for p in page} >= {"index.html", "app.css", "app.js", "store.js"}
    assert page - carried == set(), "files of the page that pyproject.toml's package-data leaves out"
