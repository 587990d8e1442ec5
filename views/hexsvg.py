"""Hex boards drawn: the hexhex boards of R-H1 and Green Meadow (R-H4), as
SVG and as monospace diagrams, for any show's picture.

Cells are pointy-top hexagons, so the rows of R-H1 read across as in the
seeds: row ``A`` on top, cells numbered from 1 on the left, each row half a
cell in from its longer neighbour.  Axial ``(q, r)`` from
:mod:`engine.hexboard` maps to the picture as ``x = sqrt(3)·R·(q + r/2)``,
``y = 1.5·R·r``, which gives Green Meadow's parallelogram (each row half a
cell right of the row above) and the hexhex board alike.

A board's geometry - centres, outlines, labels, the SVG of each empty cell
and of each stone - is built once per board and reused, so drawing a
position is mostly joining prepared strings (bench/bench_render.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

from engine.hexboard import HexBoard, green_meadow, hexhex, iter_bits
from engine.show import BoardShape, Glyph, Picture
from views.glyphs import S, glyph_svg, stone_svg
from views.kit import num
from views.layout import CellPos, Label, Layout, labels_svg
from views.svgkit import MARGIN

R = 22.0  # hexagon circumradius (SVG user units)
SQ3 = math.sqrt(3.0)


@dataclass(frozen=True, eq=False)
class HexGeometry:
    """One board's picture geometry, every cell of it (black ones included)."""

    board: HexBoard
    names: tuple[str, ...]  # every cell, reading order
    centre: dict[str, tuple[float, float]]
    labels: tuple[Label, ...]
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    width: float
    height: float
    # prepared SVG
    open_tag: dict[str, str] = field(repr=False)
    hex_svg: dict[str, str] = field(repr=False)
    off_svg: dict[str, str] = field(repr=False)
    outline: dict[str, str] = field(repr=False)  # polygon points
    inset: dict[str, str] = field(repr=False)  # a smaller outline: eaten bugs' dashed trace
    labels_svg: str = field(repr=False)
    _pieces: dict[tuple[Glyph, bool], dict[str, str]] = field(default_factory=dict, repr=False)

    def piece(self, glyph: Glyph, name: str, coords: bool) -> str:
        """The glyph on ``name`` (with, for a stone and ``coords``, the cell's name on it)."""
        table = self._pieces.setdefault((glyph, coords), {})
        got = table.get(name)
        if got is None:
            x, y = self.centre[name]
            if glyph.kind == "stone":
                got = stone_svg(glyph.style, glyph.mark, x, y, R, name if coords else None)
            else:
                got = glyph_svg(glyph, x, y, 2 * R / S)
            table[name] = got
        return got


def _outline(x: float, y: float, r: float) -> str:
    pts = []
    for k in range(6):
        a = math.radians(60 * k - 90)  # pointy top
        pts.append(f"{num(x + r * math.cos(a))},{num(y + r * math.sin(a))}")
    return " ".join(pts)


@cache
def hex_geometry(kind: str, side: int) -> HexGeometry:
    """The picture geometry of a hexhex board of ``side`` or of Green Meadow,
    at its natural size (the picture scales it: :func:`views.fit`)."""
    board = hex_board(kind, side)
    raw: dict[str, tuple[float, float]] = {}
    names: list[str] = []
    labels: list[tuple[str, float, float]] = []
    rows: list[str] = []
    for r, row in enumerate(board.rows):
        for b in row:
            q, _ = board.axial(b)
            name = board.name(b)
            names.append(name)
            raw[name] = (SQ3 * R * (q + r / 2), 1.5 * R * r)
        first = raw[board.name(row[0])]
        label = chr(65 + r) if kind == "hexhex" else str(r + 1)
        rows.append(label)
        labels.append((label, first[0] - SQ3 * R * 0.9, first[1]))
    columns: list[str] = []
    if kind == "green-meadow":  # diagonal letters above row 1, on each diagonal's line (R-H4)
        for q in range(len(board.rows[0])):
            letter = chr(65 + q)
            columns.append(letter)
            labels.append((letter, SQ3 * R * (q - 0.45), -1.35 * R))
    xs = [x for x, _ in raw.values()]
    ys = [y for _, y in raw.values()]
    min_x = min(min(xs) - SQ3 * R / 2, *(x - 8 for _, x, _ in labels))
    max_x = max(xs) + SQ3 * R / 2
    min_y = min(min(ys) - R, *(y - 10 for _, _, y in labels))
    max_y = max(ys) + R
    width = max_x - min_x + 2 * MARGIN
    dx = MARGIN - min_x
    dy = MARGIN - min_y
    centre = {n: (round(x + dx, 2), round(y + dy, 2)) for n, (x, y) in raw.items()}
    placed = tuple(Label(t, round(x + dx, 2), round(y + dy, 2)) for t, x, y in labels)
    outline = {n: _outline(x, y, R) for n, (x, y) in centre.items()}
    inset = {n: _outline(x, y, R * 0.8) for n, (x, y) in centre.items()}
    return HexGeometry(
        board=board,
        names=tuple(names),
        centre=centre,
        labels=placed,
        rows=tuple(rows),
        columns=tuple(columns),
        width=round(width, 2),
        height=round(max_y - min_y + 2 * MARGIN, 2),
        open_tag={n: f'<g class="cell" data-cell="{n}">' for n in names},
        hex_svg={n: f'<polygon class="hex" points="{outline[n]}"/>' for n in names},
        off_svg={n: f'<polygon class="off" points="{outline[n]}"/>' for n in names},
        outline=outline,
        inset=inset,
        labels_svg=labels_svg(placed, frozenset()),
    )


@lru_cache(maxsize=512)
def hex_layout(game: str, shape: BoardShape) -> Layout:
    geo = hex_geometry(shape.kind, shape.side)
    board = geo.board
    off_bits = 0
    for name in shape.off:
        off_bits |= 1 << board.parse_cell(name)
    playing = board.all_mask & ~off_bits
    cells = []
    off = []
    for b in (b for row in board.rows for b in row):
        name = board.name(b)
        x, y = geo.centre[name]
        if playing >> b & 1:
            nbrs = tuple(board.name(n) for n in iter_bits(board.neighbours[b] & playing))
            cells.append(CellPos(name, x, y, nbrs))
        else:
            off.append(CellPos(name, x, y))
    return Layout(
        game=game,
        kind=shape.kind,
        cells=tuple(cells),
        off=tuple(off),
        labels=geo.labels,
        rows=geo.rows,
        columns=geo.columns,
        width=geo.width,
        height=geo.height,
        cell_size=R,
        side=shape.side if shape.kind == "hexhex" else None,
    )


def hex_diagram(
    board: HexBoard, symbols: Mapping[str, str], off: frozenset[str] | set[str], coords: bool, empty: str = "."
) -> list[str]:
    """The board as the seeds draw it: one text row per board row, each offset
    by half a cell from its neighbours, row labels on the left (and Green
    Meadow's diagonal letters above, each over its diagonal).  ``symbols``
    maps cells to one character; ``off`` cells show ``#``.  With ``coords``
    every empty cell shows its name instead of a dot."""
    width = 3 if coords else 1  # characters of a cell
    pitch = width + 1
    half = pitch // 2
    gm = board.kind == "green-meadow"
    n_rows = len(board.rows)
    label_w = max(len(str(n_rows)), 1)
    lines: list[str] = []
    if gm:
        letters = [chr(65 + q) for q in range(len(board.rows[0]))]
        chars = [" "] * (label_w + 1 + pitch * len(letters) + half)
        for q, letter in enumerate(letters):
            chars[label_w + 1 + q * pitch + (width - 1) // 2] = letter
        lines.append("".join(chars).rstrip())
    for r, row in enumerate(board.rows):
        indent = (r + 1) if gm else abs(board.side - 1 - r)
        label = str(r + 1) if gm else chr(65 + r)
        cells = []
        for b in row:
            name = board.name(b)
            if coords and name not in off and name not in symbols:
                cells.append(name.ljust(width))  # "A1 ", "J10": names start where the cell starts
                continue
            sym = "#" if name in off else symbols.get(name, empty)
            cells.append(sym.center(width))
        lines.append((label.ljust(label_w) + " " + " " * (indent * half) + " ".join(cells)).rstrip())
    return lines


def hex_board_svg(picture: Picture, coords: bool) -> list[str]:
    """The board's SVG elements at its natural size: labels, cells (off, marked or plain), pieces, badges."""
    shape = picture.board
    geo = hex_geometry(shape.kind, shape.side)
    off = frozenset(shape.off)
    kinds: dict[str, set[str]] = {}
    for mark in picture.last.marks:
        kinds.setdefault(mark.cell, set()).add(mark.kind)
    pieces = {p.cell: p.glyph for p in picture.pieces}
    barred = frozenset(picture.barred)
    out = [labels_svg(geo.labels, barred) if barred else geo.labels_svg, '<g class="board">']
    for name in geo.names:
        if name in off:
            out.append(geo.off_svg[name])
            continue
        out.append(geo.open_tag[name])
        marked = kinds.get(name, ())
        if "bonus" in marked:
            out.append(f'<polygon class="hex bonus" points="{geo.outline[name]}"/>')
        elif "last" in marked:
            out.append(f'<polygon class="hex last" points="{geo.outline[name]}"/>')
        else:
            out.append(geo.hex_svg[name])
        if "eaten" in marked:
            out.append(f'<polygon class="eaten" points="{geo.inset[name]}"/>')
        glyph = pieces.get(name)
        if glyph is None:
            if coords:
                x, y = geo.centre[name]
                out.append(f'<text class="coord" x="{num(x)}" y="{num(y)}">{name}</text>')
        else:
            out.append(geo.piece(glyph, name, coords))
        if "bonus" in marked:  # a badge on the piece's shoulder: a bonus growth
            x, y = geo.centre[name]
            bx, by = num(x + 0.5 * R), num(y - 0.5 * R)
            out.append(f'<circle class="badge" cx="{bx}" cy="{by}" r="{num(0.3 * R)}"/>')
            out.append(f'<text class="star" x="{bx}" y="{by}">★</text>')
        out.append("</g>")
    out.append("</g>")
    return out


def hex_picture_diagram(picture: Picture, coords: bool) -> list[str]:
    board = hex_board(picture.board.kind, picture.board.side)
    symbols = {p.cell: p.symbol for p in picture.pieces}
    return hex_diagram(board, symbols, frozenset(picture.board.off), coords)


def hex_board(kind: str, side: int) -> HexBoard:
    return green_meadow() if kind == "green-meadow" else hexhex(side)
