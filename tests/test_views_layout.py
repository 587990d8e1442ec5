"""The picture's layout at its own width (issue 22: "PNGs at the default width
show a small board beside large text"): the board fills the picture's width
and most of it, and the panel's text is sized with the picture, not fixed -
for every game's new position and finished ones, and the golden cases."""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from PIL import Image, ImageOps
from viewcases import golden_cases, random_bug

import views
from engine import get_game
from engine.registry import ROOMS
from views import raster

Json = dict[str, Any]


def cases() -> dict[str, tuple[Json, dict[str, Any]]]:
    out: dict[str, tuple[Json, dict[str, Any]]] = {}
    for game in ROOMS:
        engine = get_game(game)
        out[f"{game}-new"] = (engine.dump(engine.new({})), {})
    for name, make in golden_cases().items():
        out[name] = make()
    _, events, after = random_bug(random.Random(1), {"size": 3})[-1]
    out["bug-finished"] = (after, {"events": events})
    return out


CASES = cases()


def board_box(svg: str) -> tuple[int, int]:
    """Width and height in pixels of what the picture draws above its panel (board and labels)."""
    bare = svg[: svg.index('<g class="panel"')] + "</svg>"  # the panel is the document's last part
    im = ImageOps.invert(Image.open(io.BytesIO(raster.render(bare))).convert("L"))
    box = im.point(lambda v: 255 if v > 40 else 0).getbbox()
    assert box is not None
    return box[2] - box[0], box[3] - box[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_board_dominates_a_png_at_its_own_width(name: str) -> None:
    state, kw = CASES[name]
    svg = views.svg(state, **kw)
    im = Image.open(io.BytesIO(views.png(state, **kw)))
    width, height = board_box(svg)
    assert width >= 0.75 * im.width, (name, width, im.width)  # a grid keeps a strip at its right for shift arrows
    assert width * height >= 0.4 * im.width * im.height, (name, width, height, im.size)


def text_px(svg: str) -> float:
    """The panel's text size in the picture's units: its CSS size times the panel's scale."""
    size = re.search(r"\.line,\.last-move\{[^}]*font-size:([\d.]+)px", svg)
    assert size is not None
    panel = re.search(r'<g class="panel"(?: transform="scale\(([\d.]+)\)")?>', svg)
    assert panel is not None
    return float(size.group(1)) * float(panel.group(1) or 1)


def test_the_panels_text_is_sized_with_the_picture() -> None:
    """The text's share of the picture's width is the same in every picture (within the room
    some games' longer lines are given): a large board's picture has larger text, a small
    board is drawn large rather than beside large text."""
    shares = {}
    for name, (state, kw) in CASES.items():
        svg = views.svg(state, **kw)
        width = float(re.findall(r'<svg[^>]* width="([\d.]+)"', svg)[0])
        shares[name] = text_px(svg) / width
    assert max(shares.values()) <= 1.25 * min(shares.values()), shares
    assert min(shares.values()) >= 1 / 40, shares  # 12 px and more in a 480 px picture


def test_geometry_places_cells_where_the_picture_draws_them() -> None:
    """views.geometry gives the places in the picture, the board's scale included."""
    state, kw = CASES["plur-finished-print"]
    svg = views.svg(state, **kw)
    geo = views.geometry("plur", state["options"])
    im = Image.open(io.BytesIO(views.png(state, **kw))).convert("L")
    width = float(re.findall(r'<svg[^>]* width="([\d.]+)"', svg)[0])
    assert geo["width"] == pytest.approx(width, abs=0.01)
    for cell in geo["cells"]:
        x, y = cell["x"] * im.width / width, cell["y"] * im.width / width
        value = state["board"][cell["name"]]
        centre = im.getpixel((int(x), int(y)))
        # a black stone's centre carries a white dot, a white stone's a white middle inside its ring
        ring = im.getpixel((int(x + geo["cell_size"] * 0.55), int(y)))
        assert isinstance(centre, int) and isinstance(ring, int)
        assert (centre > 200, ring < 100) == (True, value == 0), (cell["name"], centre, ring)
