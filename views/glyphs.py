"""The glyphs every picture is drawn with (:data:`engine.show.GLYPHS`): a
stone with its dot or ring, a gem (a diamond with its letter, spiked or
not), a crystal colour's swatch, the anomaly pieces (bomb, chameleon, pylon,
rock) and plain text - on a board, or small before a panel line.

Sizes are given for a square cell of side :data:`S`; ``scale`` draws a glyph
in a cell of ``S * scale``.  Every shape carries classes only: colours come
from :mod:`views.svgkit`'s one ``<style>`` block.
"""

from __future__ import annotations

import math
from functools import cache

from engine.show import Glyph
from views.kit import num, xml

S = 48.0  # the cell a glyph is drawn for (a grid square's side)
ROCK_SHAPE = ((-0.36, 0.2), (-0.3, -0.12), (-0.12, -0.3), (0.14, -0.28), (0.34, -0.08), (0.38, 0.18), (0.2, 0.32), (-0.2, 0.33))
ICON_SCALE = 0.36  # a piece before a panel line


def _diamond(x: float, y: float, h: float) -> str:
    return f"{num(x)},{num(y - h)} {num(x + h)},{num(y)} {num(x)},{num(y + h)} {num(x - h)},{num(y)}"


def _star(x: float, y: float, outer: float, inner: float, points: int) -> str:
    pts = []
    for k in range(2 * points):
        r = outer if k % 2 == 0 else inner
        a = math.pi * k / points - math.pi / 2
        pts.append(f"{num(x + r * math.cos(a))},{num(y + r * math.sin(a))}")
    return " ".join(pts)


def stone_svg(style: str, mark: str, x: float, y: float, r: float, coords: str | None = None) -> str:
    """A stone of radius ``r`` and class ``style``, with its mark: a ring, or a
    dot (left out under a cell's name, ``coords``: the ring still tells the
    sides apart)."""
    sx, sy = num(x), num(y)
    out = f'<circle class="stone {style}" cx="{sx}" cy="{sy}" r="{num(r * 0.62)}"/>'
    if mark == "ring":
        out += f'<circle class="{style}-mark" cx="{sx}" cy="{sy}" r="{num(r * 0.46)}"/>'
    elif mark == "dot" and coords is None:
        out += f'<circle class="{style}-mark" cx="{sx}" cy="{sy}" r="{num(r * 0.17)}"/>'
    if coords is not None:
        out += f'<text class="{style}-coord" x="{sx}" y="{sy}">{coords}</text>'
    return out


@cache
def glyph_svg(glyph: Glyph, x: float, y: float, scale: float = 1.0) -> str:
    """One glyph centred on (x, y): the first element carries ``crystal`` or
    ``piece`` and the kind, so each piece is found exactly once."""
    s = S * scale
    sx, sy = num(x), num(y)
    letter_px = "" if scale == 1.0 else f' style="font-size:{num(17 * scale)}px"'
    sym_px = "" if scale == 1.0 else f' style="font-size:{num(13 * scale)}px"'
    kind, text = glyph.kind, xml(glyph.text)
    if kind == "stone":
        return stone_svg(glyph.style, glyph.mark, x, y, s / 2)
    if kind == "swatch":
        return f'<polygon class="x{glyph.style}" points="{_diamond(x, y, 7.0 * scale / ICON_SCALE)}"/>'
    if kind == "gem":
        spiked = glyph.mark == "spikes"
        out = ""
        if spiked:
            out += f'<polygon class="spike" points="{_star(x, y, 0.5 * s, 0.3 * s, 12)}"/>'
        cls = f"crystal x{glyph.style}" + (" spiked" if spiked else "")
        out += f'<polygon class="{cls}" points="{_diamond(x, y, 0.4 * s)}"/>'
        return out + f'<text class="t{glyph.style}" x="{sx}" y="{sy}"{letter_px}>{text}</text>'
    if kind == "bomb":
        r = 0.27 * s
        cy = y + 0.06 * s
        fx, fy = x + r * 0.7, cy - r * 0.7
        return (
            f'<circle class="piece bomb" cx="{sx}" cy="{num(cy)}" r="{num(r)}"/>'
            f'<path class="fuse" d="M{num(fx)},{num(fy)} q{num(0.08 * s)},{num(-0.12 * s)} {num(0.16 * s)},{num(-0.1 * s)}"/>'
            f'<polygon class="spark" points="{_star(fx + 0.16 * s, fy - 0.1 * s, 0.09 * s, 0.04 * s, 5)}"/>'
            f'<text class="sym" x="{sx}" y="{num(cy)}"{sym_px}>{text}</text>'
        )
    if kind == "chameleon":
        r = 0.36 * s
        parts = ['<g class="piece chameleon">']
        for k, colour in enumerate("RBGY"):  # a quarter in each colour: it counts as every one
            a0, a1 = math.pi / 2 * k - math.pi / 2, math.pi / 2 * (k + 1) - math.pi / 2
            x1, y1 = x + r * math.cos(a0), y + r * math.sin(a0)
            x2, y2 = x + r * math.cos(a1), y + r * math.sin(a1)
            d = f"M{sx},{sy} L{num(x1)},{num(y1)} A{num(r)},{num(r)} 0 0 1 {num(x2)},{num(y2)} Z"
            parts.append(f'<path class="x{colour}" d="{d}"/>')
        parts.append(f'<circle class="tile" cx="{sx}" cy="{sy}" r="{num(0.17 * s)}"/>')
        parts.append(f'<text class="symd" x="{sx}" y="{sy}"{sym_px}>{text}</text></g>')
        return "".join(parts)
    if kind == "pylon":
        w, h, t = 0.2 * s, 0.38 * s, 0.06 * s
        pts = f"{num(x - w)},{num(y + h)} {num(x - t)},{num(y - h)} {num(x + t)},{num(y - h)} {num(x + w)},{num(y + h)}"
        bar_y = num(y - 0.12 * s)
        return (
            f'<polygon class="piece pylon" points="{pts}"/>'
            f'<line class="fuse" x1="{num(x - 0.17 * s)}" y1="{bar_y}" x2="{num(x + 0.17 * s)}" y2="{bar_y}"/>'
            f'<text class="sym" x="{sx}" y="{num(y + 0.12 * s)}"{sym_px}>{text}</text>'
        )
    if kind == "rock":
        pts = " ".join(f"{num(x + dx * s)},{num(y + dy * s)}" for dx, dy in ROCK_SHAPE)
        label = f'<text class="sym" x="{sx}" y="{num(y + 0.02 * s)}"{sym_px}>{text}</text>'
        return f'<polygon class="piece rock" points="{pts}"/>{label}'
    return f'<text class="symd" x="{sx}" y="{sy}">{text}</text>'


@cache
def icon_svg(glyph: Glyph, x: float, y: float) -> str:
    """A small glyph before a panel line: a stone with its mark, a crystal
    colour's swatch, or any other glyph drawn small."""
    if glyph.kind == "stone":
        sx, sy = num(x), num(y)
        r = 2.2 if glyph.mark == "dot" else 3.6
        cls = glyph.style
        return f'<circle class="{cls}" cx="{sx}" cy="{sy}" r="7"/><circle class="{cls}-mark" cx="{sx}" cy="{sy}" r="{num(r)}"/>'
    return glyph_svg(glyph, x, y, ICON_SCALE)
