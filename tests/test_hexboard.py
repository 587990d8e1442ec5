"""Board geometry and notation: RULES R-H1 (hexhex rows), R-H2 (adjacency),
R-H3 (notation) and R-H4 (the Green Meadow reconstruction)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidMove
from engine.hexboard import HexBoard, green_meadow, hexhex, iter_bits


def neighbour_names(board: HexBoard, name: str) -> set[str]:
    return set(board.names(board.neighbours[board.parse_cell(name)]))


# -- R-H1 ------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 11))
def test_hexhex_cell_and_row_counts(n: int) -> None:
    # R-H1: 2n-1 rows; row r holds n+r cells for r < n and 3n-2-r after, so
    # 3n(n-1)+1 cells in all (the centred hexagonal numbers: 7, 19, 37, 61...).
    board = hexhex(n)
    assert [len(row) for row in board.rows] == [n + r if r < n else 3 * n - 2 - r for r in range(2 * n - 1)]
    assert len(board.cells) == 3 * n * (n - 1) + 1
    assert board.mask.bit_count() == len(board.cells)


def test_side_5_has_rows_a_to_i_and_61_cells() -> None:
    # R-H1, seed 000: "a hex board with 5 hexes a side ... rows labeled A-I"
    board = hexhex(5)
    assert len(board.cells) == 61
    assert [board.name(row[0])[0] for row in board.rows] == list("ABCDEFGHI")
    assert board.name(board.rows[4][-1]) == "E9"  # the middle row is the longest


def test_side_3_centre_and_corners() -> None:
    # R-H1: side 3 has rows A-E, 19 cells, centre C3, bottom-right E3
    board = hexhex(3)
    assert len(board.cells) == 19
    assert [board.name(row[-1]) for row in board.rows] == ["A3", "B4", "C5", "D4", "E3"]
    assert board.name(board.rows[2][2]) == "C3"
    assert neighbour_names(board, "C3") == {"B2", "B3", "C2", "C4", "D2", "D3"}  # the centre touches six


@pytest.mark.parametrize("side", [1, 11])
def test_sides_outside_2_to_10_are_not_built(side: int) -> None:
    with pytest.raises(ValueError):
        hexhex(side)


# -- R-H2 ------------------------------------------------------------------


def test_adjacency_examples_of_r_h2() -> None:
    # R-H2, checked against seed 002: C2 and C3 each touch B2 and D2;
    # B1 touches A1, B2, C1, C2 (and nothing else: it is on the edge).
    board = hexhex(3)
    assert {"B2", "D2"} <= neighbour_names(board, "C2")
    assert {"B2", "D2"} <= neighbour_names(board, "C3")
    assert neighbour_names(board, "B1") == {"A1", "B2", "C1", "C2"}


def test_adjacency_toward_longer_and_shorter_rows() -> None:
    # R-H2: toward a longer row cell i touches i and i+1; toward a shorter row, i-1 and i.
    board = hexhex(5)
    assert neighbour_names(board, "B3") == {"A2", "A3", "B2", "B4", "C3", "C4"}  # above shorter, below longer
    assert neighbour_names(board, "E5") == {"D4", "D5", "E4", "E6", "F4", "F5"}  # middle row: both shorter
    assert neighbour_names(board, "G3") == {"F3", "F4", "G2", "G4", "H2", "H3"}  # above longer, below shorter
    assert neighbour_names(board, "F8") == {"E8", "E9", "F7", "G7"}  # right edge of the lower half


@pytest.mark.parametrize("n", range(2, 11))
def test_adjacency_is_symmetric_with_corners_and_edges_counted(n: int) -> None:
    board = hexhex(n)
    degrees = []
    for b in board.cells:
        nb = board.neighbours[b]
        assert not nb >> b & 1
        for c in iter_bits(nb):
            assert board.neighbours[c] >> b & 1
        degrees.append(nb.bit_count())
    # A hexhex board of side n has 9n^2 - 15n + 6 edges and 6 corners of degree 3.
    assert sum(degrees) // 2 == 9 * n * n - 15 * n + 6
    assert degrees.count(3) == 6
    assert max(degrees) == 6


# -- R-H3 ------------------------------------------------------------------


def test_notation_is_case_insensitive_and_output_upper_case() -> None:
    board = hexhex(5)
    assert board.parse_cell("d7") == board.parse_cell("D7")
    assert board.name(board.parse_cell("d7")) == "D7"


@pytest.mark.parametrize("text", ["D7 F8", "D7, F8", "d7,f8", "  D7 ,  f8  ", "D7\tF8", "D7,,F8"])
def test_a_move_lists_cells_with_spaces_and_or_commas(text: str) -> None:
    board = hexhex(5)
    cells = board.parse_cells(text)
    assert " ".join(board.name(b) for b in cells) == "D7 F8"


@pytest.mark.parametrize(
    ("text", "code", "step"),
    [
        ("J1", "unknown_cell", 0),  # side 5 has rows A-I
        ("A6", "unknown_cell", 0),  # row A of side 5 has 5 cells
        ("E0", "unknown_cell", 0),
        ("D7 7D", "bad_notation", 1),
        ("D7 F8 XX", "bad_notation", 2),
        ("", "empty_move", None),
        (" , ", "empty_move", None),
    ],
)
def test_bad_notation_names_the_step(text: str, code: str, step: int | None) -> None:
    with pytest.raises(InvalidMove) as err:
        hexhex(5).parse_cells(text)
    assert err.value.code == code
    assert err.value.step == step


def test_a_move_may_be_a_list_of_cell_names() -> None:
    board = hexhex(5)
    assert board.parse_move(["d7", " F8 "]) == board.parse_move("D7 F8") == (board.parse_cell("D7"), board.parse_cell("F8"))


@pytest.mark.parametrize(
    ("move", "code", "step"),
    [
        ([], "empty_move", None),
        (["D7", 7], "bad_notation", 1),  # a step that is not text
        (["D7", "F8", "J1"], "unknown_cell", 2),
        (["D7 F8"], "bad_notation", 0),  # one list item is one cell
    ],
)
def test_a_bad_list_move_names_the_step(move: list[object], code: str, step: int | None) -> None:
    with pytest.raises(InvalidMove) as err:
        hexhex(5).parse_move(move)  # type: ignore[arg-type]
    assert (err.value.code, err.value.step) == (code, step)


def test_unknown_cell_message_names_the_cell_in_upper_case() -> None:
    with pytest.raises(InvalidMove, match="J1 is not a cell"):
        hexhex(5).parse_cell("j1")


# -- R-H4 ------------------------------------------------------------------


def test_green_meadow_board() -> None:
    # R-H4: 7 diagonals A-G, rows 1-6; the sharp corners A1 B1 A2 F6 G5 G6 are
    # black, leaving 36 playing cells in rows of 5, 6, 7, 7, 6, 5.
    board = green_meadow()
    assert len(board.cells) == 36
    assert [sum(1 for b in row if board.mask >> b & 1) for row in board.rows] == [5, 6, 7, 7, 6, 5]
    black = {board.name(b) for b in iter_bits(board.black)}
    assert black == {"A1", "B1", "A2", "F6", "G5", "G6"}
    assert board.name(board.rows[3][2]) == "C4"  # diagonal letter + row number


def test_green_meadow_adjacency() -> None:
    # R-H4: (q, r) touches (q+-1, r), (q, r+-1), (q+1, r-1), (q-1, r+1)
    board = green_meadow()
    assert neighbour_names(board, "C4") == {"B4", "D4", "C3", "C5", "D3", "B5"}
    assert neighbour_names(board, "C1") == {"D1", "C2", "B2"}  # B1 is black, off the board


def test_render_and_parse_diagram_round_trip() -> None:
    board = hexhex(3)
    picture = """
      X . .
     . O . .
    . . # . .
     . . . X
      O . .
    """
    marks, blocked = board.parse_diagram(picture, {"X": 0, "O": 1})
    assert {board.name(b): v for b, v in marks.items()} == {"A1": 0, "B2": 1, "D4": 0, "E1": 1}
    assert board.names(blocked) == ["C3"]
    drawn = board.render({b: "XO"[v] for b, v in marks.items()}, blocked=blocked)
    assert drawn == "  X . .\n . O . .\n. . # . .\n . . . X\n  O . ."
    assert board.parse_diagram(drawn, {"X": 0, "O": 1}) == (marks, blocked)
