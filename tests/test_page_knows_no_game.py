"""The page (service/api/static/) knows no game: it learns each one from
``GET /v1/games`` (the games' hints, engine/hints.py) and the legal-moves
prefix calls, so no file of it names a game, by name or by title, and so it
has no branch for one (issue 19: its own copies of five games had drifted
from the engine).  Every file is read: the page, its style sheet, and each of
its modules, in any folder under static/ (issue 33: the script is modules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from test_page_modules import module_graph

from engine.registry import NOT_BUILT, ROOMS

STATIC = Path(__file__).resolve().parent.parent / "service" / "api" / "static"
WORDS = sorted({*ROOMS, *(r.game.title for r in ROOMS.values()), *NOT_BUILT})
FILES = sorted(p for p in STATIC.rglob("*") if p.is_file())


def games_named(text: str) -> set[str]:
    return {word for word in WORDS if re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)}


def test_the_page_has_files_to_look_at(client: FlaskClient) -> None:
    assert {p.name for p in FILES} >= {"index.html", "app.js", "app.css"}
    # Every module the page loads is among the files read here (one in a folder of its own too).
    read = {f"/static/{p.relative_to(STATIC).as_posix()}" for p in FILES}
    assert set(module_graph(client)) <= read


def test_a_game_named_anywhere_is_found() -> None:
    name, room = next(iter(ROOMS.items()))
    assert name in games_named(f"if (game === '{name}') {{ /* a branch of its own */ }}")
    assert room.game.title in games_named(f"// {room.game.title.upper()}'s rule, copied here")
    assert games_named("const step = hints().click.step;") == set()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(STATIC).as_posix())
def test_no_file_of_the_page_names_a_game(path: Path) -> None:
    found = games_named(path.read_text(encoding="utf-8"))
    assert found == set(), f"{path.name} names {sorted(found)}: read the game from GET /v1/games and its hints instead"
