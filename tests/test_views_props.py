"""Property: in random positions of every game (random legal moves through the
engine; Plur and Too by hand, every empty cell being legal there), every
stone, bug piece and crystal is drawn exactly once, on its own ``data-cell``,
with the right class, and every playing cell has exactly one ``data-cell``
element; the text diagram shows every piece too."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from viewcases import (
    ALL_ANOMALIES,
    Move,
    random_bug,
    random_catchup,
    random_crystal,
    random_plur,
    random_product,
    random_too,
)

import views
from engine.games.crystal.show import PIECE_NAMES
from engine.games.product.rules import VARIANTS
from engine.registry import ROOMS

Walk = Callable[[random.Random, int], list[Move]]

WALKS: dict[str, Walk] = {
    "catchup": lambda rng, n: random_catchup(rng, "standard", rng.choice([3, 5, 7]), n),
    "catchup-bolanos": lambda rng, n: random_catchup(rng, "bolanos", 4, n),
    "bug": lambda rng, n: random_bug(rng, {"size": rng.choice([2, 3, 4])}, n),
    "bug-green-meadow": lambda rng, n: random_bug(rng, {"variant": "green-meadow"}, n),
    "bug-eaters-all": lambda rng, n: random_bug(rng, {"eaters": "all"}, n),
    "crystal": lambda rng, n: random_crystal(rng, [], n, seed=f"{rng.random()}"),
    "crystal-anomalies": lambda rng, n: random_crystal(rng, rng.sample(ALL_ANOMALIES, rng.randint(1, 7)), n, f"{rng.random()}"),
    "plur": lambda rng, n: random_plur(rng, rng.choice([2, 3, 4]), pie=rng.random() < 0.5, plies=n),
    "too": lambda rng, n: random_too(rng, rng.choice([2, 3, 4]), plies=n),
    "product": lambda rng, n: random_product(rng, {"size": rng.choice([2, 3, 4]), "variant": rng.choice(VARIANTS)}, n),
}


def classes(el: ET.Element) -> list[str]:
    return (el.get("class") or "").split()


def check_picture(state: dict[str, Any], events: list[dict[str, Any]], palette: str, coords: bool) -> None:
    svg = views.svg(state, events=events, palette=palette, coords=coords)
    root = ET.fromstring(svg)
    cells: dict[str, ET.Element] = {}
    for el in root.iter():
        name = el.get("data-cell")
        if name is not None:
            assert name not in cells, f"{name} drawn twice"
            cells[name] = el
    options = dict(state["options"])
    if state["game"] != "crystal":
        options["blocked"] = state.get("blocked", [])
    assert set(cells) == {c["name"] for c in views.geometry(state["game"], options)["cells"]}

    if state["game"] == "crystal":
        rows = state["board"]
        for name, el in cells.items():
            sym = rows[int(name[1]) - 1]["ABCDEF".index(name[0])]
            pieces = [classes(x) for x in el.iter() if {"crystal", "piece"} & set(classes(x))]
            assert len(pieces) == 1, (name, pieces)
            if sym.upper() in "RBGY":
                assert pieces[0][:2] == ["crystal", f"x{sym.upper()}"] and ("spiked" in pieces[0]) == sym.islower()
            else:
                assert pieces[0] == ["piece", PIECE_NAMES[sym]]
        return

    view = ROOMS[state["game"]].show
    board = state["board"]
    stones = [x for x in root.iter() if "stone" in classes(x)]
    assert len(stones) == len(board)
    for name, el in cells.items():
        drawn = [classes(x) for x in el.iter() if "stone" in classes(x)]
        if name in board:
            assert drawn == [["stone", view.styles[board[name]].name]], (name, drawn)
        else:
            assert drawn == [], name


def check_diagram(state: dict[str, Any]) -> None:
    text = views.text(state)
    if state["game"] == "crystal":
        assert all(" ".join(row) in text for row in state["board"])
        return
    view = ROOMS[state["game"]].show
    symbols = getattr(view, "symbols", ("X", "O"))
    geo = views.geometry(state["game"], {**state["options"], "blocked": state.get("blocked", [])})
    first = 2 if geo["kind"] == "green-meadow" else 1  # after the heading (and Green Meadow's diagonal letters)
    rows = text.splitlines()[first : first + len(geo["rows"])]
    grid = "".join(line[2:] for line in rows).upper()  # less the row labels; lower case marks the last move
    for value in (0, 1):
        assert grid.count(symbols[value]) == sum(1 for v in state["board"].values() if v == value)


@settings(max_examples=100, deadline=None)
@given(
    kind=st.sampled_from(sorted(WALKS)),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 80),
    palette=st.sampled_from(views.PALETTES),
    coords=st.booleans(),
)
def test_every_piece_is_drawn_once_on_its_cell(kind: str, seed: int, plies: int, palette: str, coords: bool) -> None:
    moves = WALKS[kind](random.Random(seed), plies)
    if not moves:
        return
    _, events, after = moves[-1]
    check_picture(after, events, palette, coords)
    check_diagram(after)
