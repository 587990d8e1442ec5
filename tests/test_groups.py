"""Connected groups as bit sets (engine/groups.py), checked on drawn boards
and against a plain breadth-first search over the R-H2 neighbour lists."""

from __future__ import annotations

from gamekit import bfs_sizes
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.groups import group_of, group_sizes, groups, largest_group
from engine.hexboard import HexBoard, hexhex


def stones_of(board: HexBoard, picture: str) -> int:
    marks, _ = board.parse_diagram(picture, {"X": 1})
    return sum(1 << b for b in marks)


PICTURE = """
    X X . . X
   . X . . . X
  . . . X X . .
 X . . X . . . .
X . . . . . . . X
 . . . . . . . X
  X X . . . . X
   . . . . . X
    X . . X .
"""


def test_groups_of_a_drawn_board() -> None:
    # Top-left: A1 A2 B2 (3).  A5 and B6 touch (A5's lower neighbours are B5, B6): 2.
    # C4 C5 D4 (3).  D1 and E1 touch (D1 is above-right of E1): 2.  E9 F8 G7 H6 is a
    # diagonal chain along the lower-right edge (4; I5, below H6, is left empty).
    # G1 G2 (2).  I1 and I4 stand alone (I1 touches H1 H2, I4 touches H4 H5).
    board = hexhex(5)
    stones = stones_of(board, PICTURE)
    assert group_sizes(board, stones) == [4, 3, 3, 2, 2, 2, 1, 1]
    assert largest_group(board, stones) == 4
    chain = group_of(board, stones, board.parse_cell("H6"))
    assert board.names(chain) == ["E9", "F8", "G7", "H6"]
    assert sum(g.bit_count() for g in groups(board, stones)) == stones.bit_count()


def test_no_stones_no_groups() -> None:
    board = hexhex(3)
    assert groups(board, 0) == []
    assert largest_group(board, 0) == 0


def test_rows_do_not_wrap_into_each_other() -> None:
    # The last cell of a row and the first of the next are far apart on the
    # board even though their bits may be close: they must not join.
    board = hexhex(4)
    a, b = board.rows[0][-1], board.rows[1][0]
    assert group_sizes(board, (1 << a) | (1 << b)) == [1, 1]


@settings(max_examples=60, deadline=None)
@given(side=st.integers(min_value=2, max_value=7), data=st.data())
def test_groups_agree_with_breadth_first_search(side: int, data: st.DataObject) -> None:
    board = hexhex(side)
    chosen = data.draw(st.sets(st.sampled_from(board.cells)))
    stones = sum(1 << b for b in chosen)
    found = groups(board, stones)
    assert sorted((g.bit_count() for g in found), reverse=True) == bfs_sizes(board, stones)
    assert group_sizes(board, stones) == bfs_sizes(board, stones)
    assert largest_group(board, stones) == max(bfs_sizes(board, stones), default=0)
    union = 0
    for g in found:
        assert not union & g  # groups are disjoint
        union |= g
    assert union == stones
