"""Every registered game has everything (issue 19): a half-added game fails
here, not for a user.

For each room of :data:`engine.registry.ROOMS`, with each sample of its
declared options (``gamekit.option_configs``): a picture of a new and of a
finished position in SVG, PNG and text, whose pieces stand on the board's
cells and use only glyphs, styles and marks a renderer knows; a sentence
for every event a random game to the end emits, and for the ends every game
shares (resign, flag, illegal, aborted); a show that names no other game,
and views that name none.
"""

from __future__ import annotations

import ast
import inspect
import random
import re
from pathlib import Path
from typing import Any

import pytest
from gamekit import config_id, option_configs, random_move, seeded

import views
from engine.errors import IllegalMove
from engine.registry import ROOMS
from engine.room import Room
from engine.show import CELL_MARKS, CRYSTAL_STYLES, GLYPHS, LINE_KINDS, NO_SENTENCE, STONE_MARKS, Show

ROOT = Path(__file__).resolve().parent.parent
Json = dict[str, Any]
Move = tuple[Json, list[Json], Json]  # before, events, after
NO_SENTENCE_HEAD = NO_SENTENCE.split("{", 1)[0]  # "(The umpire has no sentence for the event "

CONFIGS = option_configs()


def play_to_the_end(room: Room, options: Json, seed: int) -> list[Move]:
    """A random game from ``new(options)`` to its natural end, every move's (before, events, after)."""
    rnd = random.Random(seed)
    game = room.game
    state = game.new(seeded(game, options, rnd))
    out: list[Move] = []
    for _ in range(5000):
        if game.is_over(state):
            return out
        verdict = game.play(state, random_move(game, state, rnd))
        assert verdict.legal, verdict.error
        out.append((game.dump(state), list(verdict.events), game.dump(verdict.state)))
        state = verdict.state
    raise AssertionError(f"{room.name} {options}: no end after 5000 moves")


def common_ends(room: Room, state: Any) -> list[Move]:
    """The ends every game shares, from a game in play: a resignation, a flag, a forfeit, an abort,
    an umpire's adjudication (a win and a draw)."""
    game = room.game
    before = game.dump(state)
    mover = before["to_move"]
    ended = [
        game.resign(state, mover),
        game.timeout(state),
        game.forfeit(state, mover, IllegalMove("occupied", "A1 is already occupied.", step=0, rule="R-H3")),
        game.abort(state),
        game.adjudicate(state, mover, "a position any player would win"),
        game.adjudicate(state, None, "agreed"),
    ]
    return [(before, list(events), game.dump(after)) for after, events in ended]


def check_picture(room: Room, state: Json, events: list[Json]) -> None:
    """The picture as data uses only what a renderer knows, on the board's own cells."""
    show = room.show
    picture = show.picture(state, events, show.default_names)
    geometry = views.geometry(
        room.name, {**state.get("options", {}), **({"blocked": state["blocked"]} if "blocked" in state else {})}
    )
    cells = {c["name"] for c in geometry["cells"]}
    styles = {s.name for s in show.styles}
    for piece in picture.pieces:
        assert piece.cell in cells, piece
        assert piece.glyph.kind in GLYPHS, piece
        assert len(piece.symbol) == 1, piece
        if piece.glyph.kind == "stone":
            assert piece.glyph.style in styles and piece.glyph.mark in STONE_MARKS, piece
        elif piece.glyph.kind in ("gem", "swatch"):
            assert piece.glyph.style in CRYSTAL_STYLES, piece
    assert len({p.cell for p in picture.pieces}) == len(picture.pieces), "two pieces on one cell"
    assert all(m.kind in CELL_MARKS and m.cell in cells for m in picture.last.marks), picture.last
    assert all(line.kind in LINE_KINDS for line in (*picture.lines, *picture.notes))
    assert picture.lines[0].kind == "title" and picture.lines[-1].kind in ("turn", "result")
    assert picture.legend


def check_renders(room: Room, state: Json, events: list[Json]) -> None:
    check_picture(room, state, events)
    svg = views.svg(state, events=events)
    assert svg.startswith("<svg") and f'class="umpire {room.name}"' in svg
    assert views.png(state, events=events, width=200).startswith(b"\x89PNG")
    text = views.text(state, events=events)
    assert text.splitlines()[0] == room.show.picture(state, events, room.show.default_names).title
    assert views.post(state, events=events).startswith("**")


def check_sentences(room: Room, moves: list[Move]) -> set[str]:
    """Every event has a sentence, alone and within its move; the types seen."""
    seen: set[str] = set()
    for before, events, after in moves:
        said = views.announcements(before, events, after)
        assert said and not any(NO_SENTENCE_HEAD in s for s in said), (events, said)
        for e in events:
            assert e["type"] in room.show.event_types, f"{room.name} has no sentence for {e['type']!r}"
            alone = views.announcements(before, [e], after)
            assert alone and not any(NO_SENTENCE_HEAD in s for s in alone), (e, alone)
            seen.add(e["type"])
    return seen


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[config_id(n, o) for n, o in CONFIGS])
def test_a_room_draws_new_and_finished_positions_and_says_every_event(name: str, options: Json) -> None:
    room = ROOMS[name]
    new = room.game.new(seeded(room.game, options, random.Random(0)))
    check_renders(room, room.game.dump(new), [])
    moves = play_to_the_end(room, options, seed=len(CONFIGS))
    assert moves, "a game with no moves"
    _, events, after = moves[-1]
    assert after["status"] == "finished" and after["end"] == room.show.natural_end
    check_renders(room, after, events)
    seen = check_sentences(room, moves)
    assert "end" in seen
    in_play = moves[len(moves) // 2][0]
    ends = common_ends(room, room.game.load(in_play))
    seen |= check_sentences(room, ends)
    for _, events, finished in ends:
        check_renders(room, finished, events)
    assert {"resign", "flag", "illegal", "adjudicate", "end"} <= seen


def test_every_room_has_a_show() -> None:
    for name, room in ROOMS.items():
        assert isinstance(room.show, Show), name
        assert room.show.title == room.game.title, name
        assert room.show.natural_end in room.game.natural_ends, name
        assert len(room.show.default_names) == 2 and all(room.show.default_names), name


def quoted(path: Path) -> set[str]:
    """Every string constant of a Python file (f-strings' literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


@pytest.mark.parametrize("name", sorted(ROOMS))
def test_a_show_never_names_another_game(name: str) -> None:
    """No string of the show's module is another game's name, or holds its title
    as a word ("Too" as a title, not "too" the English word), and it imports
    nothing from another game's folder."""
    source = Path(inspect.getfile(type(ROOMS[name].show)))
    tree = ast.parse(source.read_text(encoding="utf-8"))
    strings = quoted(source)
    for other, room in ROOMS.items():
        if other == name:
            continue
        title = re.compile(rf"\b{re.escape(room.game.title)}\b")
        assert other not in {s.lower() for s in strings}, f"{source.relative_to(ROOT)} quotes {other!r}"
        assert not any(title.search(s) for s in strings), f"{source.relative_to(ROOT)} names {room.game.title}"
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not {m for m in imported if m.startswith("engine.games.") and m.split(".")[2] != name}, imported


def test_views_name_no_game() -> None:
    files = sorted((ROOT / "views").rglob("*.py"))
    assert {p.stem for p in files}.isdisjoint(ROOMS), "a view module named after a game"
    for path in files:
        strings = {s.lower() for s in quoted(path)}
        assert not strings & set(ROOMS), f"{path.relative_to(ROOT)} quotes {sorted(strings & set(ROOMS))}"
        classes = {node.name.lower() for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)}
        assert not any(game in cls for cls in classes for game in ROOMS), (path, classes)
