"""Canonical shapes of polyhexes (Bug's bugs) under the 12 symmetries of the hex grid (R-B1).

Two bugs are congruent when one maps onto the other by a rotation and/or a
reflection of the hex grid plus a translation.  Rather than trying placements,
every shape gets one *canonical form*, computed once and interned as a small
integer, so congruence is ``shape_id(a) == shape_id(b)``.

Coordinates are axial ``(q, r)`` as in :mod:`engine.hexboard` (both the hexhex
and the Green Meadow boards use them).  With cube coordinates ``(q, r, s)``,
``s = -q - r``:

* rotating by 60 degrees maps ``(q, r, s)`` to ``(-r, -s, -q)``, i.e. axial
  ``(q, r) -> (-r, q + r)``;
* swapping ``q`` and ``r`` is a reflection (it keeps the neighbour set
  ``(+-1, 0), (0, +-1), (1, -1), (-1, 1)``).

Six rotations, each with or without the reflection, give the 12 symmetries.
Any integer translation of axial coordinates is a translation of the grid, so
a shape is normalised by moving its least ``q`` and least ``r`` to 0.  The
canonical form is the smallest sorted cell tuple over the 12 normalised images.

Three caches, from fastest to slowest: board bit set -> id (per board, the hot
path of the engine), translation-normalised cells -> id, canonical form -> id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

from engine.hexboard import HexBoard, iter_bits

Cell = tuple[int, int]
Shape = tuple[Cell, ...]  # sorted, translated so that min q == min r == 0


def _rotate(c: Cell) -> Cell:
    q, r = c
    return -r, q + r


def _reflect(c: Cell) -> Cell:
    q, r = c
    return r, q


def _compose(*fs: Callable[[Cell], Cell]) -> Callable[[Cell], Cell]:
    def f(c: Cell) -> Cell:
        for g in fs:
            c = g(c)
        return c

    return f


def _symmetries() -> tuple[Callable[[Cell], Cell], ...]:
    out: list[Callable[[Cell], Cell]] = []
    for k in range(6):
        rot = _compose(*([_rotate] * k))
        out.append(rot)
        out.append(_compose(_reflect, rot))
    return tuple(out)


SYMMETRIES = _symmetries()  # the 12 symmetries of the hex grid that fix the origin


def normalise(cells: Iterable[Cell]) -> Shape:
    """Translate so that the least q and the least r are 0; sorted."""
    cs = list(cells)
    if not cs:
        return ()
    mq = min(q for q, _ in cs)
    mr = min(r for _, r in cs)
    return tuple(sorted((q - mq, r - mr) for q, r in cs))


def images(cells: Iterable[Cell]) -> list[Shape]:
    """The 12 images of a shape (normalised; some coincide for symmetric shapes)."""
    cs = list(cells)
    return [normalise(f(c) for c in cs) for f in SYMMETRIES]


def canonical(cells: Iterable[Cell]) -> Shape:
    """The one representative of the shape's congruence class (R-B1)."""
    return min(images(cells))


def congruent(a: Iterable[Cell], b: Iterable[Cell]) -> bool:
    return canonical(a) == canonical(b)


_CANON_IDS: dict[Shape, int] = {}
_NORMAL_IDS: dict[Shape, int] = {}


def shape_id_of_cells(cells: Iterable[Cell]) -> int:
    """Interned id of a shape's congruence class: equal ids <=> congruent."""
    norm = normalise(cells)
    sid = _NORMAL_IDS.get(norm)
    if sid is None:
        canon = canonical(norm)
        sid = _CANON_IDS.setdefault(canon, len(_CANON_IDS))
        _NORMAL_IDS[norm] = sid
    return sid


class ShapeTable:
    """Shape ids of bit sets on one board.  ``table[bits]`` is the fast path:
    a dict hit; a miss computes the id once and remembers it."""

    MAX_ENTRIES = 1 << 18  # a long-running server must not grow without bound

    def __init__(self, board: HexBoard) -> None:
        self.board = board
        self.ids: dict[int, int] = {}

    def __getitem__(self, bits: int) -> int:
        sid = self.ids.get(bits)
        if sid is None:
            sid = self._compute(bits)
        return sid

    def _compute(self, bits: int) -> int:
        if len(self.ids) >= self.MAX_ENTRIES:
            self.ids.clear()
        axial = self.board.axial
        sid = shape_id_of_cells(axial(b) for b in iter_bits(bits))
        self.ids[bits] = sid
        return sid


@cache
def shape_table(board: HexBoard) -> ShapeTable:
    """The shared shape table of a board (boards are cached singletons)."""
    return ShapeTable(board)
