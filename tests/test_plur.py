"""Plur (RULES R-E1, R-E1a; seed 001), boards drawn as the rules' rows.

Diagrams are side-3 hexhex boards (R-H1: rows A-E of 3, 4, 5, 4, 3 cells),
``X`` black (player 0), ``O`` white (player 1), ``.`` empty, ``#`` blocked.
"""

from __future__ import annotations

import random

import pytest
from gamekit import bfs_sizes, random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BadOptions, BadState
from engine.games.plur.rules import Plur, PlurState, feasible, ladder
from engine.hexboard import hexhex

GAME = Plur()
SYMBOLS = {"X": 0, "O": 1}


def setup(diagram: str, **options: object) -> PlurState:
    board = hexhex(options.pop("size", 3))  # type: ignore[arg-type]
    marks, blocked = board.parse_diagram(diagram, SYMBOLS)
    opts = {"size": board.side, "position": {board.name(b): v for b, v in marks.items()}, **options}
    if blocked:
        opts["blocked"] = board.names(blocked)
    return GAME.new(opts)


# -- R-E1: the ladder of 3, 5, 7, ... largest groups ----------------------------------

# O: A1 B1 B4 C1-C4 D1 (8, B4 touches C4); X: C5 D2-D4 E1 E2 (6); X: A2 A3 B2 B3 (4); O: E3 (1).
# The third and fourth largest (4 and 1) differ, so the three largest are clear:
# 8 (O), 6 (X), 4 (X): black owns two of them.
LADDER_3 = """
  O X X
 O X X O
O O O O X
 O X X X
  X X O
"""

# X: all ten black stones are one group (A3 B1-B3 C2 C4 D2-D4 E1); O: four pairs
# (A1 A2, B4 C5, C1 D1, E2 E3) and C3 alone.  Sizes 10, 2, 2, 2, 2, 1: the third and
# fourth tie (2, 2), so look at five: the fifth and sixth (2, 1) differ, and white
# owns four of the five largest.
LADDER_5 = """
  O O X
 X X X O
O X O X O
 O X X X
  X O O
"""

# O: A1 A2 B2 C2 D1-D3 E3 (8) and B4 (1); X: A3 B3 C3-C5 D4 (6), B1 C1 (2), E1 E2 (2).
# Sizes 8, 6, 2, 2, 1: the third and fourth tie, five is every group, so all count:
# black 3, white 2.
LADDER_ALL = """
  O O X
 X O X O
X O X X X
 O O O X
  X X O
"""

# X: A3 B4 C4 C5 D1 D3 D4 E1 E2 (9) and B2 (1); O: A1 A2 B1 B3 C1-C3 D2 (8) and E3 (1).
# Sizes 9, 8, 1, 1: the third and fourth tie, and with five past the four groups all
# count: two each, a draw (R-E1: only possible with an even number of groups).
LADDER_DRAW = """
  O O X
 O X O X
O O O X X
 X O X X
  X X O
"""


def test_ladder_resolves_at_three() -> None:
    state = setup(LADDER_3)
    assert (state.end, state.to_move) == ("full", None)
    assert [bfs_sizes(state.board, s) for s in state.stones] == [[6, 4], [8, 1]]  # an independent group count
    result = ladder(state.groups)
    assert (result["k"], result["all"], result["counts"]) == (3, False, [2, 1])
    assert result["largest"] == [[8, 1], [6, 0], [4, 0]]
    assert state.winner == 0


def test_ladder_resolves_at_five() -> None:
    state = setup(LADDER_5)
    assert state.sizes(0) == [10] and state.sizes(1) == [2, 2, 2, 2, 1]
    result = ladder(state.groups)
    assert (result["k"], result["all"], result["counts"]) == (5, False, [1, 4])
    assert state.winner == 1


def test_ladder_counts_all_groups_when_it_runs_out() -> None:
    state = setup(LADDER_ALL)
    result = ladder(state.groups)
    assert (result["k"], result["all"], result["counts"]) == (5, True, [3, 2])
    assert len(result["largest"]) == 5  # every group
    assert state.winner == 0


def test_equal_counts_of_all_groups_is_a_draw() -> None:
    state = setup(LADDER_DRAW)
    result = ladder(state.groups)
    assert (result["k"], result["all"], result["counts"]) == (5, True, [2, 2])
    assert (state.end, state.winner) == ("full", None)
    data = GAME.dump(state)
    assert (data["status"], data["winner"]) == ("finished", None)  # API: a finished draw
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result == "1/2-1/2"
    assert GAME.load(data) == state


def test_three_groups_are_never_a_draw() -> None:
    # R-E1: with an odd number of counted groups one player owns more
    for sizes in ([5, 4, 3], [3, 3, 3], [7, 1, 1, 1, 1]):
        groups = (tuple((1 << s) - 1 for s in sizes[::2]), tuple((1 << s) - 1 for s in sizes[1::2]))
        assert sum(ladder(groups)["counts"]) % 2 == 1


def test_the_last_stone_ends_the_game_with_the_ladder_in_the_end_event() -> None:
    board = hexhex(3)
    marks, _ = board.parse_diagram(LADDER_3, SYMBOLS)
    # 19 cells: black places stones 1, 3, ..., 19, so the last stone is black's; take E2 out
    del marks[board.parse_cell("E2")]
    state = GAME.new({"size": 3, "position": {board.name(b): v for b, v in marks.items()}})
    assert (state.to_move, state.ply) == (0, 18)
    verdict = GAME.play(state, "e2")
    assert verdict.legal and verdict.move == "E2"
    end = verdict.events[-1]
    assert end["type"] == "end" and end["winner"] == 0 and end["end"] == "full"
    assert end["ladder"]["k"] == 3 and end["ladder"]["counts"] == [2, 1]
    assert end["groups"] == [[6, 4], [8, 1]]
    assert GAME.legal_moves(verdict.state).moves == []


def test_scores_are_each_players_group_sizes_during_play() -> None:
    state = GAME.new({"size": 3})
    for move in ("C3", "A1", "C2", "A2", "E3"):
        state = GAME.play(state, move).state
    assert GAME.dump(state)["scores"] == [[2, 1], [2]]  # R-E1: largest first


# -- turns, board and the pie rule (R-E1, R-E1a) --------------------------------------


def test_one_stone_a_turn_on_an_empty_cell() -> None:
    state = GAME.new({})
    assert GAME.dump(state)["options"] == {"size": 5, "pie": False}
    state = GAME.play(state, "E5").state
    refused = GAME.play(state, "D4 D5")
    assert (refused.legal, refused.error.code, refused.error.step) == (False, "too_many_stones", 1)  # type: ignore[union-attr]
    refused = GAME.play(state, "E5")
    assert refused.error is not None and (refused.error.code, refused.error.step) == ("occupied", 0)
    assert not GAME.play(state, "Z9").legal
    assert not GAME.play(state, "swap").legal  # no pie rule in this game


def test_pie_swap_turns_the_first_stone_white_and_black_moves_again() -> None:
    state = GAME.new({"pie": True})
    assert "swap" not in GAME.legal_moves(state).moves  # nothing to swap yet
    state = GAME.play(state, "E5").state
    moves = GAME.legal_moves(state).moves
    assert moves[-1] == "swap" and len(moves) == 61 - 1 + 1  # every empty cell, and swap (API.md)
    verdict = GAME.play(state, "SWAP")
    assert verdict.legal and verdict.move == "swap"
    assert verdict.events == [{"type": "swap", "player": 1, "cell": "E5"}]
    after = GAME.dump(verdict.state)
    assert (after["board"], after["to_move"], after["ply"]) == ({"E5": 1}, 0, 2)
    assert "swap" not in GAME.legal_moves(verdict.state).moves  # once
    assert GAME.load(after) == verdict.state
    # player 0 moves again, with black; later the swap is gone for good
    state = GAME.play(verdict.state, "A1").state
    assert GAME.play(state, "swap").error.code == "no_swap"  # type: ignore[union-attr]


def test_no_swap_after_white_has_moved_or_by_black() -> None:
    state = GAME.new({"pie": True})
    assert GAME.play(state, "swap").error.code == "no_swap"  # type: ignore[union-attr]
    state = GAME.play(GAME.play(state, "E5").state, "A1").state
    assert GAME.play(state, "swap").error.code == "no_swap"  # type: ignore[union-attr]


def test_stone_counts_must_fit_alternate_turns() -> None:
    # R-E1: black has as many stones as white, or one more; after a swap, white one more (R-E1a)
    assert feasible(3, 3, 0, False) and feasible(4, 3, 1, False)
    assert not feasible(3, 4, 0, False) and feasible(3, 4, 0, True)
    assert feasible(2, 2, 1, True) and not feasible(2, 2, 1, False)
    with pytest.raises(BadOptions) as e:
        GAME.new({"size": 3, "position": {"A1": 1, "A2": 1}})
    assert e.value.field == "options.position"
    with pytest.raises(BadOptions):
        GAME.new({"size": 3, "position": {"A1": 0}, "to_move": 0})
    swapped = GAME.new({"size": 3, "pie": True, "position": {"A1": 1}})  # a swap happened
    assert (swapped.to_move, swapped.ply) == (0, 2)


def test_blocked_cells_are_off_the_board() -> None:
    state = setup(
        """
  # . .
 . . . .
. . # . .
 . . . .
  . . #
""",
    )
    assert len(GAME.legal_moves(state).moves) == 16
    assert GAME.play(state, "C3").error.code == "blocked"  # type: ignore[union-attr]


def test_a_client_state_is_checked() -> None:
    state = GAME.play(GAME.play(GAME.new({"size": 3}), "C3").state, "A1").state
    data = GAME.dump(state)
    for change, field in [
        ({"ply": 3}, "state.ply"),
        ({"to_move": 1}, "state.board"),
        ({"scores": [[1], [2]]}, "state.scores"),
        ({"board": {"C3": 0, "A1": 1, "B2": 0}}, "state.board"),
        ({"options": {"size": 3}}, "state.options.pie"),
        ({"end": "full", "status": "finished", "to_move": None}, "state.end"),
        ({"winner": 0}, "state.winner"),
    ]:
        with pytest.raises(BadState) as e:
            GAME.load({**data, **change})
        assert e.value.field == field, change


def test_random_games_end_full_and_round_trip() -> None:
    rnd = random.Random(9)
    for options in ({"size": 2}, {"size": 3, "pie": True}, {"size": 4}):
        state = GAME.new(options)
        plies = 0
        while not GAME.is_over(state):
            moves = GAME.legal_moves(state).moves
            verdict = GAME.play(state, rnd.choice(moves))
            assert verdict.legal
            state = verdict.state
            plies += 1
            assert GAME.load(GAME.dump(state)) == state
        assert not state.empty and state.end == "full" and state.ply == plies


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(2, 4), pie=st.booleans(), plies=st.integers(0, 40))
def test_legal_moves_are_exactly_the_accepted_moves(seed: int, size: int, pie: bool, plies: int) -> None:
    """Every cell of the board, and swap, tried in a random position: a move is
    accepted exactly when the list names it (R-E1, R-E1a)."""
    rnd = random.Random(seed)
    _, state, _ = random_game(GAME, {"size": size, "pie": pie}, plies, rnd)
    listed = set(GAME.legal_moves(state).moves)
    candidates = [*state.board.names(state.board.mask), "swap"]
    accepted = {m for m in candidates if GAME.play(state, m).legal}
    assert accepted == listed
