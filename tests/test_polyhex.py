"""Congruence of bugs (R-B1): canonical forms under the 12 symmetries of the hex grid.

The shapes here are built from axial coordinates by the test itself (growing
every polyhex cell by cell), and the counts they are checked against are the
published ones: fixed polyhexes (OEIS A001207) 1, 3, 11, 44, 186 and free
polyhexes (A000228) 1, 1, 3, 7, 22 for sizes 1 to 5.
"""

from __future__ import annotations

from itertools import permutations

import pytest

from engine.hexboard import green_meadow, hexhex
from engine.polyhex import SYMMETRIES, Cell, canonical, congruent, images, normalise, shape_id_of_cells, shape_table

DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))  # axial neighbours (R-H2, R-H4)


def fixed_polyhexes(n: int) -> set[tuple[Cell, ...]]:
    """Every polyhex of ``n`` cells up to translation, grown cell by cell."""
    shapes = {normalise([(0, 0)])}
    for _ in range(n - 1):
        bigger = set()
        for s in shapes:
            cells = set(s)
            for q, r in s:
                for dq, dr in DIRECTIONS:
                    c = (q + dq, r + dr)
                    if c not in cells:
                        bigger.add(normalise(cells | {c}))
        shapes = bigger
    return shapes


def test_symmetries_are_the_twelve_of_the_hex_grid() -> None:
    # Each maps neighbour directions onto neighbour directions (so keeps adjacency),
    # and the 12 are pairwise different.
    assert len(SYMMETRIES) == 12
    seen = set()
    for f in SYMMETRIES:
        assert {f(d) for d in DIRECTIONS} == set(DIRECTIONS)
        assert f((0, 0)) == (0, 0)
        seen.add(tuple(f(d) for d in DIRECTIONS))
    assert len(seen) == 12
    # a symmetry of the grid is fixed by where it sends two adjacent directions, and
    # there are 6 * 2 such choices: so these are all of them
    assert len({(f((1, 0)), f((0, 1))) for f in SYMMETRIES}) == 12


@pytest.mark.parametrize(("n", "fixed", "free"), [(1, 1, 1), (2, 3, 1), (3, 11, 3), (4, 44, 7), (5, 186, 22)])
def test_every_polyhex_is_congruent_to_its_twelve_images(n: int, fixed: int, free: int) -> None:
    shapes = fixed_polyhexes(n)
    assert len(shapes) == fixed  # the generator is right (A001207)
    for s in shapes:
        canon = canonical(s)
        for image in images(s):
            assert len(image) == n
            assert canonical(image) == canon
            assert shape_id_of_cells(image) == shape_id_of_cells(s)
    # and nothing else is congruent: exactly the free polyhexes remain (A000228)
    assert len({canonical(s) for s in shapes}) == free
    assert len({shape_id_of_cells(s) for s in shapes}) == free


def test_known_non_congruent_three_bugs() -> None:
    straight = [(0, 0), (1, 0), (2, 0)]
    bent = [(0, 0), (1, 0), (2, -1)]  # the seed's "bend 3-hex": 120 degrees at the middle cell
    triangle = [(0, 0), (1, 0), (0, 1)]  # three cells that all touch each other
    for a, b in [(straight, bent), (straight, triangle), (bent, triangle)]:
        assert not congruent(a, b)
        assert shape_id_of_cells(a) != shape_id_of_cells(b)
    # each is congruent to itself moved, turned and flipped
    assert congruent(straight, [(5, 5), (5, 6), (5, 7)])
    assert congruent(bent, [(3, 3), (3, 4), (2, 5)])
    assert congruent(triangle, [(4, 4), (5, 3), (5, 4)])


def test_mirror_images_are_congruent_though_no_rotation_maps_them() -> None:
    # A chiral tetrahex and its mirror image: R-B1 allows reflections.
    shape = [(0, 0), (1, 0), (2, 0), (2, 1)]
    mirror = [(r, q) for q, r in shape]

    def rotations(cells: list[Cell]) -> set[tuple[Cell, ...]]:
        out = set()
        for k in range(6):
            cs = cells
            for _ in range(k):
                cs = [(-r, q + r) for q, r in cs]
            out.add(normalise(cs))
        return out

    assert normalise(mirror) not in rotations(shape)
    assert congruent(shape, mirror)


def test_shape_ids_on_boards_ignore_where_the_bug_is() -> None:
    side4 = hexhex(4)
    table = shape_table(side4)
    bit = side4.parse_cell

    def bits(*names: str) -> int:
        return sum(1 << bit(n) for n in names)

    # the seed's two bent 3-bugs (R-B1), A3-B4-C4 and D2-E2-E3, are one shape...
    side3 = hexhex(3)
    t3 = shape_table(side3)
    assert (
        t3[sum(1 << side3.parse_cell(n) for n in ("A3", "B4", "C4"))]
        == t3[sum(1 << side3.parse_cell(n) for n in ("D2", "E2", "E3"))]
    )
    # ...the straight C1-D1-E1 another
    assert (
        t3[sum(1 << side3.parse_cell(n) for n in ("A3", "B4", "C4"))]
        != t3[sum(1 << side3.parse_cell(n) for n in ("C1", "D1", "E1"))]
    )
    # a straight line along each of the three axes of a side-4 board
    lines = [bits("D1", "D2", "D3"), bits("A1", "B1", "C1"), bits("A4", "B5", "C6")]
    assert len({table[b] for b in lines}) == 1
    # the same shape on the Green Meadow board (same axial system) has the same id
    gm = green_meadow()
    assert shape_table(gm)[sum(1 << gm.parse_cell(n) for n in ("C3", "D3", "E3"))] == table[lines[0]]


def test_all_orders_of_the_same_cells_give_one_form() -> None:
    cells = [(0, 0), (1, 0), (1, 1), (2, -1)]
    assert len({canonical(p) for p in permutations(cells)}) == 1
