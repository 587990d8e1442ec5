"""Hex boards as data: cells, neighbour tables and notation (R-H1 to R-H4).

Coordinate systems, and where each is used::

    notation   "E5"      the rules' text; the only form at the edges (JSON, moves)
    axial      (q, r)    q grows to the right, r downward; the six neighbours
                         of (q, r) are (q+-1, r), (q, r+-1), (q+1, r-1), (q-1, r+1)
    bit        r*W + q   a cell's index inside the engine; a set of cells is an
                         int bit set, so a flood fill is a handful of shifts

A hexhex board of side n (R-H1) is the axial rhombus 0 <= q, r <= 2n-2 cut to
n-1 <= q+r <= 3n-3.  Row r (letter ``A`` + r) starts at q = max(0, n-1-r), so
its i-th cell (1-based) is q = q_min(r) + i - 1.  With that layout R-H2 holds
by construction: toward a longer row (below, r < n-1) cell i touches i and i+1,
toward a shorter one it touches i-1 and i.

The Green Meadow board (R-H4) is the axial parallelogram q = 0..6 (diagonals
``A``..``G``), r = 0..5 (rows ``1``..``6``), its two sharp corners
(``A1 B1 A2 F6 G5 G6``) black.

The bit stride W leaves at least one unused column to the right of every row,
so shifting a bit set by +-1, +-W, +-(W-1) never wraps one row onto the next;
masking with the board's cells removes whatever falls off the edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from engine.errors import InvalidMove

_CELL_RE = re.compile(r"^([A-Za-z])([0-9]{1,2})$")

MIN_SIDE = 2
MAX_SIDE = 10


@dataclass(frozen=True, eq=False)
class HexBoard:
    """One board geometry.  Immutable and shared: build it through the cached
    constructors :func:`hexhex` and :func:`green_meadow`."""

    kind: str  # "hexhex" or "green-meadow"
    side: int  # hexhex side; for green-meadow the number of rows (6)
    width: int  # bit stride W
    rows: tuple[tuple[int, ...], ...]  # bits of every cell, row by row, left to right
    black: int  # the variant's own black cells (off the board for good)
    all_mask: int = field(init=False)  # every cell of the geometry, black included
    mask: int = field(init=False)  # playing cells: all_mask minus black
    cells: tuple[int, ...] = field(init=False)  # playing cells in reading order
    neighbours: tuple[int, ...] = field(init=False)  # bit -> neighbour bit set (playing cells)
    labels: dict[int, str] = field(init=False, repr=False)  # bit -> notation, for hot loops; see name()
    index: dict[str, int] = field(init=False, repr=False)  # notation exactly as the engine writes it -> bit
    masks: dict[str, int] = field(init=False, repr=False)  # the same -> its one-cell bit set (1 << bit), for reading states
    _lookup: dict[str, int] = field(init=False, repr=False)  # index plus lower-case spellings ("d7")

    def __post_init__(self) -> None:
        all_mask = 0
        for row in self.rows:
            for b in row:
                all_mask |= 1 << b
        mask = all_mask & ~self.black
        names: dict[int, str] = {}
        for r, row in enumerate(self.rows):
            for i, b in enumerate(row):
                names[b] = self._format(r, i, b)
        size = max(names) + 1
        nbrs = [0] * size
        w = self.width
        for b in names:
            m = 1 << b
            nbrs[b] = ((m << 1) | (m >> 1) | (m << w) | (m >> w) | (m >> (w - 1)) | (m << (w - 1))) & mask
        object.__setattr__(self, "all_mask", all_mask)
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "cells", tuple(b for row in self.rows for b in row if (mask >> b) & 1))
        object.__setattr__(self, "neighbours", tuple(nbrs))
        object.__setattr__(self, "labels", names)
        object.__setattr__(self, "index", {v: k for k, v in names.items()})
        object.__setattr__(self, "masks", {v: 1 << k for k, v in names.items()})
        object.__setattr__(self, "_lookup", {**{v.lower(): k for k, v in names.items()}, **self.index})

    # -- notation (R-H3) ---------------------------------------------------

    def _format(self, r: int, i: int, b: int) -> str:
        if self.kind == "hexhex":
            return f"{chr(65 + r)}{i + 1}"
        q = b % self.width  # green meadow: diagonal letter + row number
        return f"{chr(65 + q)}{r + 1}"

    def name(self, bit: int) -> str:
        return self.labels[bit]

    def names(self, bits: int) -> list[str]:
        """Names of a bit set, in reading order."""
        return [self.labels[b] for b in iter_bits(bits)]

    def lookup(self, text: str) -> int | None:
        """The bit of a cell written as the engine writes it, or in lower case;
        None otherwise (the fast path of parsing; :meth:`parse_cell` says why)."""
        return self._lookup.get(text)

    def has(self, text: str) -> bool:
        return text.upper() in self.index

    def parse_cell(self, text: str, step: int | None = None) -> int:
        """``"d7"`` -> bit.  Raises InvalidMove for text that names no cell."""
        b = self._lookup.get(text)  # the common case, without a regex
        if b is not None:
            return b
        m = _CELL_RE.match(text)
        if not m:
            raise InvalidMove(f"'{text}' is not a cell: write a letter and a number, like C3.", step=step, rule="R-H3")
        key = text.upper()
        if key not in self.index:
            rule = "R-H4" if self.kind == "green-meadow" else "R-H1"
            raise InvalidMove(f"{key} is not a cell of this board.", code="unknown_cell", step=step, rule=rule)
        return self.index[key]

    def parse_cells(self, text: str) -> list[int]:
        """A move of several cells, separated by spaces and/or commas (R-H3)."""
        parts = text.replace(",", " ").split()  # R-H3: spaces and/or commas
        if not parts:
            raise InvalidMove("The move is empty: name at least one cell.", code="empty_move", rule="R-H3")
        lookup = self._lookup
        out = [lookup.get(p, -1) for p in parts]
        if -1 in out:  # say which step is wrong, and why
            return [self.parse_cell(p, step=i) for i, p in enumerate(parts)]
        return out

    def parse_move(self, text: str | Sequence[str]) -> tuple[int, ...]:
        """A move of cells, given as text (:meth:`parse_cells`) or as a list of
        cell names; an empty move or a step that names no cell raises InvalidMove."""
        if isinstance(text, str):
            return tuple(self.parse_cells(text))
        if not text:
            raise InvalidMove("The move is empty: name at least one cell.", code="empty_move", rule="R-H3")
        cells = []
        for i, t in enumerate(text):
            if not isinstance(t, str):
                raise InvalidMove(f"A move's steps are cell names, not {t!r}.", step=i, rule="R-H3")
            cells.append(self.parse_cell(t.strip(), step=i))
        return tuple(cells)

    # -- geometry ----------------------------------------------------------

    def dilate(self, bits: int) -> int:
        """``bits`` plus every playing cell touching one of them."""
        w = self.width
        return (bits | (bits << 1) | (bits >> 1) | (bits << w) | (bits >> w) | (bits >> (w - 1)) | (bits << (w - 1))) & self.mask

    def axial(self, bit: int) -> tuple[int, int]:
        return bit % self.width, bit // self.width

    def bit(self, q: int, r: int) -> int | None:
        """Bit of axial (q, r), or None when that is not a cell of the geometry."""
        if q < 0 or q >= self.width - 1 or r < 0 or r >= len(self.rows):
            return None
        b = r * self.width + q
        return b if b in self.labels else None

    def render(self, marks: Mapping[int, str], empty: str = ".", blocked: int = 0) -> str:
        """ASCII picture, one text row per board row, rows offset like the board.

        ``marks`` maps bits to one-character symbols; black and ``blocked``
        cells show as ``#``.  :func:`parse_diagram` reads the same picture."""
        lines = []
        indent = [self._indent(r) for r in range(len(self.rows))]
        base = min(indent)
        for r, row in enumerate(self.rows):
            syms = []
            for b in row:
                if (self.black | blocked) >> b & 1:
                    syms.append("#")
                else:
                    syms.append(marks.get(b, empty))
            lines.append(" " * (indent[r] - base) + " ".join(syms))
        return "\n".join(lines)

    def _indent(self, r: int) -> int:
        if self.kind == "hexhex":
            return abs(self.side - 1 - r)
        return r

    def parse_diagram(self, text: str, symbols: Mapping[str, int]) -> tuple[dict[int, int], int]:
        """Read a picture drawn like :meth:`render`.

        Returns ``({bit: value}, blocked)``: ``symbols`` maps characters to
        values (``{"X": 0, "O": 1}``), ``.`` is empty, ``#`` blocked (a black
        cell of the variant may be drawn ``#`` or ``.``).  Used by tests to
        write positions as diagrams."""
        lines = [ln.split() for ln in text.strip("\n").splitlines() if ln.strip()]
        if len(lines) != len(self.rows):
            raise ValueError(f"diagram has {len(lines)} rows, board has {len(self.rows)}")
        out: dict[int, int] = {}
        blocked = 0
        for r, (row, toks) in enumerate(zip(self.rows, lines, strict=True)):
            if len(toks) != len(row):
                raise ValueError(f"diagram row {r + 1} has {len(toks)} cells, board has {len(row)}")
            for b, t in zip(row, toks, strict=True):
                if t == ".":
                    continue
                if t == "#":
                    if not (self.black >> b) & 1:
                        blocked |= 1 << b
                    continue
                out[b] = symbols[t]
        return out, blocked


def iter_bits(bits: int) -> Iterator[int]:
    """Indices of the set bits of ``bits``, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def bits_of(cells: Iterable[int]) -> int:
    out = 0
    for b in cells:
        out |= 1 << b
    return out


@cache
def hexhex(side: int) -> HexBoard:
    """The hexhex board of ``side`` (R-H1); built once per side."""
    if not MIN_SIDE <= side <= MAX_SIDE:
        raise ValueError(f"side must be {MIN_SIDE} to {MAX_SIDE}")
    n = side
    w = 2 * n  # q <= 2n-2, so column 2n-1 stays empty as padding
    rows = []
    for r in range(2 * n - 1):
        q_min = max(0, n - 1 - r)
        q_max = min(2 * n - 2, 3 * n - 3 - r)
        rows.append(tuple(r * w + q for q in range(q_min, q_max + 1)))
    return HexBoard("hexhex", n, w, tuple(rows), 0)


GREEN_MEADOW_BLACK = ("A1", "B1", "A2", "F6", "G5", "G6")


@cache
def green_meadow() -> HexBoard:
    """The R-H4 reconstruction of the Green Meadow board."""
    w = 8
    rows = tuple(tuple(r * w + q for q in range(7)) for r in range(6))
    black = 0
    for name in GREEN_MEADOW_BLACK:
        q, r = ord(name[0]) - 65, int(name[1:]) - 1
        black |= 1 << (r * w + q)
    return HexBoard("green-meadow", 6, w, rows, black)
