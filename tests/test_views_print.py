"""The print palette on paper (issue 22): dark things on neighbouring cells -
black stones, blocked cells, Green Meadow's black corners, Bug's blackened
cells - stay apart, with a light gap on the line between their centres, at
the picture's own width and small."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from PIL import Image
from viewcases import CATCHUP, bug_green_meadow, golden_cases, position, product_finished, too_finished

import views
from views.svgkit import colours

Json = dict[str, Any]


def blocked_catchup() -> Json:
    """A side-3 board whose blocked cells touch (A3-B3-B4, E1-E2) beside player 0's stones (A1-A2, C2)."""
    board, blocked = position(
        """
          X X #
         . . # #
        . X . . .
         . O . .
          # # .
        """,
        3,
    )
    return CATCHUP.dump(CATCHUP.new({"size": 3, "position": board, "blocked": blocked, "to_move": 1}))


def cases() -> dict[str, tuple[Json, list[Json]]]:
    out: dict[str, tuple[Json, list[Json]]] = {"blocked-catchup": (blocked_catchup(), [])}
    for name, move in [("green-meadow", bug_green_meadow), ("product", product_finished), ("too", too_finished)]:
        _, events, after = move()
        out[name] = (after, events)
    state, kw = golden_cases()["plur-finished-print"]()
    out["plur"] = (state, kw["events"])
    return out


def dark_neighbours(state: Json) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Centres of neighbouring cells both dark in print: off cells (blocked, black) and player 0's stones."""
    geo = views.geometry(state["game"], {**state["options"], "blocked": state.get("blocked", [])})
    stones = {cell for cell, v in state["board"].items() if v == 0}
    dark = [(c["x"], c["y"]) for c in geo["off"]] + [(c["x"], c["y"]) for c in geo["cells"] if c["name"] in stones]
    near = math.sqrt(3) * geo["cell_size"] * 1.05  # pointy-top hexagons' centres are sqrt(3) R apart
    return [(a, b) for i, a in enumerate(dark) for b in dark[i + 1 :] if math.dist(a, b) < near]


def lightest_between(im: Image.Image, scale: float, a: tuple[float, float], b: tuple[float, float]) -> int:
    """The lightest grey level on the middle fifth of the segment from a to b (the cells' common edge)."""
    steps = 40
    best = 0
    for k in range(steps + 1):
        t = 0.4 + 0.2 * k / steps
        x, y = (a[0] + t * (b[0] - a[0])) * scale, (a[1] + t * (b[1] - a[1])) * scale
        grey = im.getpixel((int(x), int(y)))
        assert isinstance(grey, int)
        best = max(best, grey)
    return best


@pytest.mark.parametrize("width", [None, 260])
@pytest.mark.parametrize("name", sorted(cases()))
def test_neighbouring_dark_cells_stay_apart_in_print(name: str, width: int | None) -> None:
    state, events = cases()[name]
    pairs = dark_neighbours(state)
    assert pairs, "the case must have dark cells side by side"
    natural = float(views.svg(state, events=events, palette="print").split('width="', 1)[1].split('"', 1)[0])
    im = Image.open(io.BytesIO(views.png(state, events=events, palette="print", width=width))).convert("L")
    scale = im.width / natural
    for a, b in pairs:
        assert lightest_between(im, scale, a, b) >= 150, (name, width, a, b)


def test_print_outlines_dark_cells_in_a_light_colour() -> None:
    c = colours("print")
    assert c["off"] == "#000000" and c["off-line"] == "#ffffff"
    assert ".off{fill:#000000;stroke:#ffffff;" in views.svg(blocked_catchup(), palette="print")
