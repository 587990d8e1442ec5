"""The page (service/api/static/) knows no game: it learns each one from
``GET /v1/games`` (the games' hints, engine/hints.py) and the legal-moves
prefix calls, so no file of it names a game, by name or by title, and so it
has no branch for one (issue 19: its own copies of five games had drifted
from the engine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.registry import NOT_BUILT, ROOMS

STATIC = Path(__file__).resolve().parent.parent / "service" / "api" / "static"
WORDS = sorted({*ROOMS, *(r.game.title for r in ROOMS.values()), *NOT_BUILT})


def test_the_page_has_files_to_look_at() -> None:
    assert {p.name for p in STATIC.iterdir()} >= {"index.html", "app.js", "app.css"}


@pytest.mark.parametrize("path", sorted(STATIC.iterdir()), ids=lambda p: p.name)
def test_no_file_of_the_page_names_a_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = {word for word in WORDS if re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)}
    assert found == set(), f"{path.name} names {sorted(found)}: read the game from GET /v1/games and its hints instead"
