"""Hex boards drawn: the hexhex boards of R-H1 (Catchup, Bug, Plur, Too) and
Green Meadow (R-H4), as SVG and as monospace diagrams, and
:class:`HexView`, the base of every hex game's view.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, ClassVar

from engine.groups import group_sizes
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, green_meadow, hexhex, iter_bits
from views.base import CellPos, GameView, Label, Layout, Marks
from views.kit import Json, num
from views.svgkit import MARGIN, MIN_WIDTH

R = 22.0  # hexagon circumradius (SVG user units)
SQ3 = math.sqrt(3.0)
STONE = 0.62 * R
DOT = 0.17 * R
RING = 0.46 * R


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
    _stones: dict[tuple[str, bool], dict[str, str]] = field(default_factory=dict, repr=False)

    def stone(self, cls: str, name: str, coords: bool, ring: bool) -> str:
        """The stone of class ``cls`` on ``name``, with its mark (a dot for the
        first side, a ring for the second) and, with ``coords``, the cell's name."""
        table = self._stones.setdefault((cls, coords), {})
        got = table.get(name)
        if got is None:
            x, y = self.centre[name]
            sx, sy = num(x), num(y)
            got = f'<circle class="stone {cls}" cx="{sx}" cy="{sy}" r="{num(STONE)}"/>'
            if ring:
                got += f'<circle class="{cls}-mark" cx="{sx}" cy="{sy}" r="{num(RING)}"/>'
            elif not coords:  # the dot would sit under the cell's name; the other side's ring still tells them apart
                got += f'<circle class="{cls}-mark" cx="{sx}" cy="{sy}" r="{num(DOT)}"/>'
            if coords:
                got += f'<text class="{cls}-coord" x="{sx}" y="{sy}">{name}</text>'
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
    """The picture geometry of a hexhex board of ``side`` or of Green Meadow."""
    board = green_meadow() if kind == "green-meadow" else hexhex(side)
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
    natural = max_x - min_x + 2 * MARGIN
    width = max(natural, MIN_WIDTH)
    dx = MARGIN - min_x + (width - natural) / 2
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
        labels_svg='<g class="labels">'
        + "".join(f'<text class="lbl" x="{num(lb.x)}" y="{num(lb.y)}">{lb.text}</text>' for lb in placed)
        + "</g>",
    )


@lru_cache(maxsize=512)
def hex_layout(game: str, kind: str, side: int, blocked: tuple[str, ...]) -> Layout:
    geo = hex_geometry(kind, side)
    board = geo.board
    off_bits = board.black
    for name in blocked:
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
        kind=kind,
        cells=tuple(cells),
        off=tuple(off),
        labels=geo.labels,
        rows=geo.rows,
        columns=geo.columns,
        width=geo.width,
        height=geo.height,
        cell_size=R,
        side=side if kind == "hexhex" else None,
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


class HexView(GameView):
    """A game played on a hex board; subclasses say what the stones are and
    what the scores mean."""

    default_size: ClassVar[int] = 5
    min_size: ClassVar[int] = MIN_SIDE
    max_size: ClassVar[int] = MAX_SIDE
    symbols: ClassVar[tuple[str, str]] = ("X", "O")  # the diagram's stones, by board value

    def board_kind(self, options: Mapping[str, Any]) -> tuple[str, int]:
        """("hexhex", side) or ("green-meadow", 6) for these options."""
        size = options.get("size", self.default_size)
        if isinstance(size, bool) or not isinstance(size, int) or not self.min_size <= size <= self.max_size:
            raise ValueError(f"A {self.title} board has a side from {self.min_size} to {self.max_size}, not {size!r}.")
        return "hexhex", size

    def board(self, options: Mapping[str, Any]) -> HexBoard:
        kind, side = self.board_kind(options)
        return hex_geometry(kind, side).board

    def layout(self, options: Mapping[str, Any], blocked: Sequence[str] = ()) -> Layout:
        kind, side = self.board_kind(options)
        board = hex_geometry(kind, side).board
        names: list[str] = []
        for cell in blocked:
            if not isinstance(cell, str) or not board.has(cell):
                raise ValueError(f"{cell!r} is not a cell of this {self.title} board, so it cannot be blocked.")
            names.append(board.name(board.parse_cell(cell)))
        return hex_layout(self.game, kind, side, tuple(sorted(set(names))))

    # -- what stands on a cell ---------------------------------------------------------

    def piece_class(self, value: Any) -> str:
        """The CSS class of a board value's stone (``p0``/``p1``; Too's colours ``c0``/``c1``)."""
        return self.pieces[int(value)][0]

    def off_cells(self, state: Mapping[str, Any], board: HexBoard) -> frozenset[str]:
        out = set(board.names(board.black))
        out.update(str(c) for c in state.get("blocked") or ())
        return frozenset(out)

    def board_svg(self, state: Mapping[str, Any], layout: Layout, marks: Marks, coords: bool) -> list[str]:
        kind, side = self.board_kind(state.get("options") or {})
        geo = hex_geometry(kind, side)
        stones: Mapping[str, Any] = state.get("board") or {}
        off = self.off_cells(state, geo.board)
        last, bonus, eaten = marks.last, marks.bonus, marks.eaten
        out = [geo.labels_svg, '<g class="board">']
        classes = [c for c, _ in self.pieces]
        for name in geo.names:
            if name in off:
                out.append(geo.off_svg[name])
                continue
            out.append(geo.open_tag[name])
            if name in bonus:
                out.append(f'<polygon class="hex bonus" points="{geo.outline[name]}"/>')
            elif name in last:
                out.append(f'<polygon class="hex last" points="{geo.outline[name]}"/>')
            else:
                out.append(geo.hex_svg[name])
            value = stones.get(name)
            if name in eaten:
                out.append(f'<polygon class="eaten" points="{geo.inset[name]}"/>')
            if value is None:
                if coords:
                    x, y = geo.centre[name]
                    out.append(f'<text class="coord" x="{num(x)}" y="{num(y)}">{name}</text>')
            else:
                cls = self.piece_class(value)
                out.append(geo.stone(cls, name, coords, cls == classes[1]))
            if name in bonus:  # a badge on the stone's shoulder: this piece is a bonus growth (R-B4)
                x, y = geo.centre[name]
                bx, by = num(x + 0.5 * R), num(y - 0.5 * R)
                out.append(f'<circle class="badge" cx="{bx}" cy="{by}" r="{num(0.3 * R)}"/>')
                out.append(f'<text class="star" x="{bx}" y="{by}">★</text>')
            out.append("</g>")
        out.append("</g>")
        return out

    def diagram(self, state: Mapping[str, Any], marks: Marks, coords: bool) -> list[str]:
        board = self.board(state.get("options") or {})
        symbols: dict[str, str] = {}
        moved = marks.last | marks.bonus
        for name, value in (state.get("board") or {}).items():
            sym = self.symbols[int(value)]
            symbols[name] = sym.lower() if name in moved else sym
        return hex_diagram(board, symbols, self.off_cells(state, board), coords)

    def board_sizes(self, state: Mapping[str, Any]) -> tuple[list[int], list[int]]:
        """Each board value's group sizes, largest first (owners, or Too's colours)."""
        board = self.board(state.get("options") or {})
        bits = [0, 0]
        for name, value in (state.get("board") or {}).items():
            bits[int(value)] |= 1 << board.parse_cell(name)
        return group_sizes(board, bits[0]), group_sizes(board, bits[1])

    def placed_marks(self, events: Sequence[Json]) -> Marks:
        """Marks of a move that places stones (``place`` events with ``cells``)."""
        for e in events:
            if e.get("type") == "place":
                cells = [str(c) for c in e.get("cells") or ()]
                return Marks(mover=e.get("player"), move=" ".join(cells), last=frozenset(cells))
        return Marks()

    def size_text(self, state: Mapping[str, Any]) -> str:
        kind, side = self.board_kind(state.get("options") or {})
        return "Green Meadow board" if kind == "green-meadow" else f"side {side}"

    def blocked_note(self, state: Mapping[str, Any]) -> str:
        blocked = state.get("blocked") or ()
        return f", {len(blocked)} blocked" if blocked else ""
