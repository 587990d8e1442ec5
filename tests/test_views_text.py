"""Text diagrams written out in full, the Markdown forum post, the clock in
words, and the geometry a front end draws from."""

from __future__ import annotations

import re
from typing import Any

import pytest
from viewcases import CRYSTAL, bug_green_meadow, bug_seed_example, catchup_worked_example, crystal_seed_example, too_finished

import views
from engine.registry import ROOMS
from views.kit import duration, seat_clock


def test_catchup_diagram_in_the_seeds_layout() -> None:
    # The position of tests/test_catchup.py after seed 000's worked example, with row letters.
    _, events, state = catchup_worked_example()[3]
    assert views.text(state, events=events) == (
        "Catchup (standard), side 5, ply 10\n"
        "A     X X . . O\n"
        "B    . X X X X .\n"
        "C   X . . . . . O\n"
        "D  . X . . . O O .\n"
        "E O . . . . O . . .\n"
        "F  . o . . . . O O\n"
        "G   . . . . . O o\n"
        "H    X X . . . o\n"
        "I     X X . . .\n"
        "X Red, O Blue; lower case: the last turn's stones\n"
        "Last move (Blue): F2 G7 H6\n"
        "Red: score 6, groups 6-4-2\n"
        "Blue: score 5, groups 5-4-1-1-1\n"
        "Tie-break if the game ended now (R-C4): Red ahead at the first group\n"
        "Red to move: 1 or 2 stones\n"
        '[State {"game":"catchup","version":1,"options":{"variant":"standard","size":5},"status":"ongoing","to_move":0,'
        '"ply":10,"winner":null,"end":null,"scores":[6,5],"bonus":false,"max_stones":2}]\n'
    )


def test_bug_diagram_with_coordinates() -> None:
    _, events, state = bug_seed_example()[0]
    assert views.text(state, events=events, coords=True) == (
        "Bug (genius), side 3, ply 14\n"
        "A      X   O  A3\n"
        "B    o   O   o  B4\n"
        "C  X  C2  C3  C4  C5\n"
        "D    X   O  D3  D4\n"
        "E      X   O   O\n"
        "X Red, O Blue; lower case: the last move's pieces\n"
        "Last move (Blue): B1 B3\n"
        "Marked: ★ bonus growth (B3); dashed: eaten (A3, B4, C4)\n"
        "Red: 4 pieces, bugs 3-1\n"
        "Blue: 7 pieces, bugs 4-3\n"
        "Red to move: grow (no bug beyond 4 pieces), then eat (R-B3, R-B4)\n"
        '[State {"game":"bug","version":1,"options":{"variant":"genius","size":3,"eaters":"active"},"status":"ongoing",'
        '"to_move":0,"ply":14,"winner":null,"end":null,"scores":[4,7],"largest":[3,4],"phase":"grow"}]\n'
    )


def test_green_meadow_diagram_with_diagonals() -> None:
    # R-H4: rows 1-6, each half a cell right of the one above; diagonal letters over their diagonals.
    _, events, state = bug_green_meadow()
    lines = views.text(state, events=events).splitlines()
    assert lines[1:8] == [
        "  A B C D E F G",
        "1  # # . . . . .",
        "2   # . . . O . .",
        "3    . . # . . . .",
        "4     . o o # . . .",
        "5      . . . . . . #",
        "6       . . . . . # #",
    ]
    assert lines[0] == "Bug (green-meadow), 2 cells blackened, ply 6"


def test_crystal_diagram() -> None:
    state = CRYSTAL.dump(crystal_seed_example())
    assert views.text(state, names=["Ann", "Bob"]) == (
        "Crystal Connector (no anomalies), ply 0\n"
        "   A B C D E F\n"
        "1  R R R R B G\n"
        "2  R Y Y R G B\n"
        "3  R B Y G G Y\n"
        "4  B G Y G B R\n"
        "5  Y B B G Y R\n"
        "6  G Y G B Y B\n"
        "R B G Y crystals\n"
        "Ann (red, green): total 0; red 7 \u00d7 green 5 = 35 a turn now\n"
        "Bob (blue, yellow): total 0; blue 2 \u00d7 yellow 4 = 8 a turn now\n"
        "Round 1, Ann shifts first; threshold 250 (R-X4)\n"
        "Ann to move: 3 shifts\n"
        '[State {"game":"crystal","version":1,"options":{"anomalies":[]},"status":"ongoing","to_move":0,"ply":0,"winner":null,'
        '"end":null,"scores":[0,0],"phase":"shift","colors":[["red","green"],["blue","yellow"]],"first":0,"threshold":250,'
        '"barred":[],"shifts_due":3,"turns":[0,0],"seed":null}]\n'
    )


def test_too_diagram_of_a_finished_game() -> None:
    _, events, state = too_finished()
    assert views.text(state, events=events) == (
        "Too, side 3, ply 19\n"
        "A   W B B\n"
        "B  W W W B\n"
        "C B W W W W\n"
        "D  B B B W\n"
        "E   W W b\n"
        "B black stone, W white stone (either player places either); lower case: the last move\n"
        "Last move (Black): B E3\n"
        "black stones: groups 5-3; second-largest 3\n"
        "white stones: groups 9-2; second-largest 2\n"
        "Black wins: the board is full and black's second-largest group (3) is larger than white's (2) (R-E2).\n"
        '[State {"game":"too","version":1,"options":{"size":3},"status":"finished","to_move":null,"ply":19,"winner":0,'
        '"end":"full","scores":[3,2]}]\n'
    )


def test_side_ten_coordinates_keep_the_rows_in_line() -> None:
    state = views.text({"game": "catchup", "options": {"size": 10}, "board": {}, "status": "ongoing", "to_move": 0}, coords=True)
    lines = state.splitlines()[1:20]
    assert lines[0] == "A                    A1  A2  A3  A4  A5  A6  A7  A8  A9  A10"
    assert lines[9].startswith("J  J1  J2 ") and lines[9].endswith("J18 J19")
    assert lines[18] == "S                    S1  S2  S3  S4  S5  S6  S7  S8  S9  S10"


# -- the post ---------------------------------------------------------------------------------------

CLOCK: dict[str, Any] = {
    "turn_s": 60.0,
    "bank_s": 300.0,
    "step_s": 1.0,
    "on_flag": "loses",
    "seats": {"0": {"bank_s": 250.0, "deadline": "2026-11-22T12:05:57.000Z"}, "1": {"bank_s": 300.0}},
    "to_move": 0,
    "may_move": 0,
    "turn_started": "2026-11-22T12:00:00.000Z",
    "deadline": "2026-11-22T12:05:57.000Z",
    "proxy": False,
    "now": "2026-11-22T12:01:00.000Z",
}


def test_forum_post() -> None:
    before, events, after = catchup_worked_example()[1]
    post = views.post(after, events=events, before=before, png_url="https://example.org/b.png", clock=CLOCK)
    assert post == (
        "**Catchup (standard), ply 8: Blue plays D7 F8**\n"
        "\n"
        "- Blue places D7 and F8.\n"
        "- Blue's score rises from 2 to 4.\n"
        "- Blue is leading (4 against Red's 4), so Red may place up to three stones next turn (R-C3).\n"
        "\n"
        "![The board of Catchup (standard), side 5, ply 8, after Blue plays D7 F8. Red to move: up to 3 stones, since "
        "Blue led last turn (R-C3)](<https://example.org/b.png>)\n"
        "\n"
        "```text\n"
        "A     X X . . O\n"
        "B    . X . X X .\n"
        "C   . . . . . . O\n"
        "D  . . . . . O o .\n"
        "E O . . . . O . . .\n"
        "F  . . . . . . O o\n"
        "G   . . . . . O .\n"
        "H    X X . . . .\n"
        "I     X X . . .\n"
        "X Red, O Blue; lower case: the last turn's stones\n"
        '[State {"game":"catchup","version":1,"options":{"variant":"standard","size":5},"status":"ongoing","to_move":0,'
        '"ply":8,"winner":null,"end":null,"scores":[4,4],"bonus":true,"max_stones":3}]\n'
        "```\n"
        "\n"
        "Red: score 4, groups 4-3-2  \n"
        "Blue: score 4, groups 4-3-1-1  \n"
        "Tie-break if the game ended now (R-C4): Red ahead at the third group  \n"
        "**Red to move: up to 3 stones, since Blue led last turn (R-C3)**\n"
        "\n"
        "Clock:\n"
        "- Red: turn 0:47 left, bank 4:10\n"
        "- Blue: bank 5:00\n"
    )


def test_post_escapes_markdown_in_names_and_takes_move_and_ply() -> None:
    before, events, after = catchup_worked_example()[1]
    post = views.post(after, events=events, before=before, names=["*Ann*", "[Bob](x)"], move="D7, F8", ply=40)
    assert post.startswith("**Catchup (standard), ply 40: \\[Bob\\](x) plays D7, F8**")
    assert "\\*Ann\\*: score 4" in post
    assert "![" not in post  # no picture without a URL


def test_post_of_a_finished_game_says_the_result() -> None:
    _, events, after = too_finished()
    post = views.post(after, events=events)
    assert post.rstrip().endswith(
        "**Black wins: the board is full and black's second-largest group (3) is larger than white's (2) (R-E2).**"
    )
    assert "- The board is full: the game is over (R-E2)." in post


# -- clocks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0:00"), (47.9, "0:47"), (250, "4:10"), (3725, "1:02:05"), (-3, "0:00")])
def test_durations(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def test_seat_clocks() -> None:
    assert seat_clock(CLOCK, 0) == "turn 0:47 left, bank 4:10"
    assert seat_clock(CLOCK, 1) == "bank 5:00"
    # past the turn allowance: the bank runs down
    late = {**CLOCK, "now": "2026-11-22T12:02:00.000Z"}
    assert seat_clock(late, 0) == "turn 0:00 left, bank 3:57"
    # the server's own figure, when the clock carries it, is preferred
    told = {**CLOCK, "seats": {"0": {"bank_s": 250.0, "remaining_s": 280.5}, "1": {"bank_s": 300.0}}}
    assert seat_clock(told, 0) == "turn 0:30 left, bank 4:10"
    proxy = {**CLOCK, "proxy": True}
    assert seat_clock(proxy, 0) == "out of time; the opponent may move for them for 4:57 more (R-X6)"
    assert seat_clock({"seats": {}}, 0) == "bank 0:00"


# -- geometry ------------------------------------------------------------------------------------------


def test_hexhex_geometry() -> None:
    geo = views.geometry("catchup", {"size": 5})
    assert (geo["game"], geo["kind"], geo["rows"], len(geo["cells"])) == ("catchup", "hexhex", list("ABCDEFGHI"), 61)
    by = {c["name"]: c for c in geo["cells"]}
    assert by["E5"]["neighbours"] == ["D4", "D5", "E4", "E6", "F4", "F5"]  # R-H2
    assert by["A1"]["neighbours"] == ["A2", "B1", "B2"]
    assert by["C2"]["y"] == by["C7"]["y"] < by["D1"]["y"]  # rows across
    assert by["B1"]["x"] < by["A1"]["x"] < by["B2"]["x"]  # half a cell apart
    blocked = views.geometry("catchup", {"size": 5, "blocked": ["e5"]})
    assert len(blocked["cells"]) == 60 and [c["name"] for c in blocked["off"]] == ["E5"]
    assert "E5" not in {n for c in blocked["cells"] for n in c["neighbours"]}


def test_geometry_matches_the_picture() -> None:
    _, events, state = catchup_worked_example()[1]
    svg = views.svg(state, events=events)
    geo = views.geometry("catchup", state["options"])
    for cell in geo["cells"][:5]:
        x, y = cell["x"], cell["y"]
        assert f'cx="{x:g}" cy="{y:g}"' in svg or f'data-cell="{cell["name"]}"' in svg
    # the board is drawn at its natural size, scaled to fill the picture (issue 22): geometry gives the places in the picture
    scaled = re.search(r'<g transform="scale\(([\d.]+)\)">', svg)
    k = float(scaled.group(1)) if scaled else 1.0
    a1 = next(c for c in geo["cells"] if c["name"] == "A1")
    drawn = re.search(r'<circle class="stone p0" cx="([\d.]+)" cy="([\d.]+)"', svg.split('data-cell="A1"', 1)[1])
    assert drawn is not None
    assert (float(drawn.group(1)) * k, float(drawn.group(2)) * k) == pytest.approx((a1["x"], a1["y"]), abs=0.02)
    assert f'width="{geo["width"]:g}"' in svg


def test_green_meadow_and_grid_geometry() -> None:
    gm = views.geometry("bug", {"variant": "green-meadow", "blocked": ["D4"]})
    assert gm["kind"] == "green-meadow" and gm["rows"] == list("123456") and gm["diagonals"] == list("ABCDEFG")
    assert len(gm["cells"]) == 35 and {c["name"] for c in gm["off"]} == {"A1", "B1", "A2", "F6", "G5", "G6", "D4"}
    by = {c["name"]: c for c in gm["cells"]}
    assert set(by["C4"]["neighbours"]) == {
        "B4",
        "C3",
        "C5",
        "B5",
        "D3",
    }  # R-H4 adjacency, D4 blocked
    grid = views.geometry("crystal", {})
    assert grid["kind"] == "grid" and grid["columns"] == list("ABCDEF") and len(grid["cells"]) == 36
    by = {c["name"]: c for c in grid["cells"]}
    assert by["A1"]["neighbours"] == ["B1", "A2"] and by["C3"]["neighbours"] == ["C2", "B3", "D3", "C4"]  # R-H5
    assert views.geometry("plur", {})["side"] == 5 and len(views.geometry("too", {"size": 2})["cells"]) == 7


def test_geometry_errors() -> None:
    with pytest.raises(ValueError, match="side from 3 to 10"):
        views.geometry("catchup", {"size": 2})
    with pytest.raises(ValueError, match="not a cell"):
        views.geometry("bug", {"blocked": ["Z9"]})
    with pytest.raises(ValueError, match="no view for the game"):
        views.geometry("go", {})


def test_every_game_has_its_default_names() -> None:
    assert {g: r.show.default_names for g, r in ROOMS.items()} == {
        "catchup": ("Red", "Blue"),
        "bug": ("Red", "Blue"),
        "crystal": ("Player 1", "Player 2"),
        "plur": ("Black", "White"),
        "too": ("Black", "White"),
        "product": ("Black", "White"),
    }


# -- R-E1: Plur's ladder said as the rules count it ------------------------------------------------

# Six single stones, three each: the third and fourth groups tie (1, 1), so
# the five largest would decide; the fifth and sixth tie too, so every group
# counts - six, not "7" - and three each is a draw (R-E1).
PLUR_SIX_SINGLES = """
  . . .
 . B . .
B . . . W
 . W . .
  . B W
"""

# Full: black 8-1-1, white 7-1-1.  The ladder steps 3 -> 5 -> 7 past the six
# groups, so every group counts: three each, a draw (R-E1).
PLUR_SIX_GROUPS_FULL = """
  W B B
 B B W W
W B B W B
 B W W W
  B W B
"""


def plur_board(diagram: str) -> dict[str, int]:
    from viewcases import position

    return position(diagram, 3)[0]


PLUR = ROOMS["plur"].game


def test_plur_post_mid_game_says_every_group_counts_and_a_draw() -> None:
    state = PLUR.new({"size": 3, "position": plur_board(PLUR_SIX_SINGLES)})
    post = views.post(PLUR.dump(state))
    assert "went on to 7" not in post  # six groups on the board: the count cannot go on to a seventh
    assert (
        "If the board were full now, it would be a draw (R-E1): of all 6 groups (1, 1, 1, 1, 1, 1) Black owns 3 and "
        "White 3; the fifth and sixth largest were the same size, so every group counts"
    ) in post


def test_plur_post_of_a_drawn_full_board_counts_six_groups() -> None:
    board = plur_board(PLUR_SIX_GROUPS_FULL)
    del board["B1"]  # black's last stone, put back by the move that fills the board
    before = PLUR.new({"size": 3, "position": board, "to_move": 0})
    verdict = PLUR.play(before, "B1")
    after = PLUR.dump(verdict.state)
    assert after["status"] == "finished" and after["winner"] is None
    post = views.post(after, events=verdict.events, before=PLUR.dump(before))
    assert "went on to 7" not in post
    why = (
        "of all 6 groups (8, 7, 1, 1, 1, 1) Black owns 3 and White 3; "
        "the fifth and sixth largest were the same size, so every group counts"
    )
    assert f"- It is a draw: {why}." in post
    assert f"**The board is full: a draw, {why} (R-E1).**" in post
