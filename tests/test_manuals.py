"""The README is a short front page and its links lead somewhere; the manuals
live in docs/ (issue 33), and what cites their design page names a section of it.

``make docs`` builds docs/ with ``mkdocs build --strict``, which fails on a
link between pages to a missing page or heading and on a page left out of
``mkdocs.yml``'s navigation.  The README is outside the site, so its links
are checked here, as GitHub resolves them: a file of the repository, and a
``#fragment`` naming a heading of it.  The commands of the pages are run in
tests/test_readme.py, the settings table in tests/test_settings.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DESIGN = DOCS / "DESIGN.md"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))  # a "# comment" in a code block is no heading
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def readme_links() -> list[str]:
    return [target for target in LINK.findall(README.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", target)]


def test_the_readme_is_a_front_page() -> None:
    """The two commands first, then what it is, a short tour and links: a few screens, no manual."""
    text = README.read_text(encoding="utf-8")
    assert text.startswith("# Umpire\n\n```sh\nmake run\nmake test\n```\n")
    assert len(text.splitlines()) <= 150
    assert re.findall(r"^## (.+)$", text, flags=re.M) == ["What it is", "A short tour", "Games", "Layout"]


@pytest.mark.parametrize("target", readme_links())
def test_every_link_of_the_readme_leads_somewhere(target: str) -> None:
    path, _, fragment = target.partition("#")
    file = (ROOT / path).resolve()
    assert file.is_file() and file.is_relative_to(ROOT), f"README links to {path}, which is not a file of the repository"
    if fragment:
        assert fragment in anchors(file), f"README links to #{fragment}, which is no heading of {path}"


def test_the_readme_links_every_manual() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in readme_links()}
    pages = {page.resolve() for page in DOCS.glob("*.md") if page.name != "index.md"}
    assert pages - linked == set(), "a page of docs/ the README does not lead to"


def citations() -> list[tuple[str, str]]:
    """Every mention of the design page in the project's files: (file, what follows it)."""
    found = []
    for folder in ("engine", "service", "views", "umpire", "tests", "bench", "container", "examples", "deploy", "clients"):
        for file in sorted((ROOT / folder).rglob("*")):
            if file.suffix not in (".py", ".lua", ".js", ".yaml", ".conf", ".sh", ".ts") or "node_modules" in file.parts:
                continue
            if file.resolve() == Path(__file__).resolve():
                continue  # this file names the page to find the others
            text = file.read_text(encoding="utf-8")
            for m in re.finditer(r"[\w./]*DESIGN\.md\s*(\"[^\"]*\")?", text):
                found.append((f"{file.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}", m.group(0)))
    return found


def test_what_cites_the_design_page_names_a_section_of_it() -> None:
    """The four citations of a DESIGN.md that did not exist (issue 33) now point into docs/DESIGN.md,
    each at a section that is there; a section renamed there must be renamed where it is cited."""
    headings = {m.group(1) for m in re.finditer(r"^#{2,4} (.+)$", DESIGN.read_text(encoding="utf-8"), flags=re.M)}
    found = citations()
    assert len(found) >= 4
    for where, cited in found:
        m = re.fullmatch(r"docs/DESIGN\.md\s+\"([^\"]+)\"", cited)
        assert m is not None, f"{where}: {cited!r} names no section of docs/DESIGN.md"
        assert m.group(1) in headings, f"{where}: docs/DESIGN.md has no section {m.group(1)!r}"
