"""Too (RULES R-E2; seed 001), boards drawn as the rules' rows.

In Too the board holds colours, not owners: ``X`` is a black stone, ``O`` a
white one, whoever placed it; ``.`` empty.  Player 0 wins when black's
second-largest group beats white's; otherwise player 1 wins.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from gamekit import random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BadState
from engine.games.too.rules import Too, TooState, second
from engine.hexboard import hexhex

GAME = Too()
SYMBOLS = {"X": 0, "O": 1}


def setup(diagram: str, size: int = 3) -> TooState:
    board = hexhex(size)
    marks, _ = board.parse_diagram(diagram, SYMBOLS)
    return GAME.new({"size": size, "position": {board.name(b): v for b, v in marks.items()}})


def test_second_largest_counts_equal_groups_separately() -> None:
    # R-E2: "groups of equal size count separately (sizes 4, 4, 2 -> second-largest 4)".
    # Black: A1 A2 B1 B2 (4), B4 C4 C5 D4 (4: D4 touches C4 and C5), D1 D2 (2); no white stone.
    state = setup(
        """
  X X .
 X X . X
. . . X X
 X X . X
  . . .
""",
    )
    assert state.sizes(0) == [4, 4, 2]
    assert GAME.dump(state)["scores"] == [4, 0]  # a colour with no second group scores 0
    assert (state.to_move, state.ply) == (0, 10)  # ten stones: ten turns, player 0 next


def test_a_single_group_has_second_largest_zero() -> None:
    assert second(()) == 0 and second((0b111,)) == 0
    assert second((0b1, 0b11, 0b111)) == 2


def test_seed_remark_a_white_centre_makes_one_white_group() -> None:
    # Seed 001: on the 7-cell board a white stone on the central hex touches every
    # other cell, so all white stones form one group and white's second-largest is 0.
    # Here black has two groups (A1 B1, B3 C2): 2 > 0, player 0 wins.
    state = setup(
        """
 X O
X O X
 O X
""",
        size=2,
    )
    assert (state.end, state.winner) == ("full", 0)
    assert GAME.dump(state)["scores"] == [2, 0]


def test_player_one_wins_every_tie_of_second_groups() -> None:
    # R-E2: "otherwise player 1 wins (no draws)": black is one group (A1 A2 B1), white
    # one group around the centre, so both second-largest groups are 0.
    state = setup(
        """
 X X
X O O
 O O
""",
        size=2,
    )
    assert GAME.dump(state)["scores"] == [0, 0]
    assert (state.end, state.winner) == ("full", 1)


def test_on_the_seven_cell_board_player_0_wins_by_a_white_centre() -> None:
    """Seed 001: "Player 1 can win easily by placing a white stone on the central
    hex".  Checked by exhaustive search of every game on the side-2 board: the
    first player (player 0) wins with best play, and W B2 is a winning first move."""

    @cache
    def winner(black: int, white: int) -> int:
        """The winner with best play from this position (the mover maximises their own win)."""
        state = GAME._build(hexhex(2), (black, white), 0)
        if state.to_move is None:
            assert state.winner is not None
            return state.winner
        mover = state.to_move
        results = []
        for text in GAME.legal_moves(state).moves:
            after = GAME.play(state, text).state
            results.append(winner(*after.stones))
            if results[-1] == mover:
                return mover
        return 1 - mover

    assert winner(0, 0) == 0
    after_centre = GAME.play(GAME.new({"size": 2}), "W B2").state
    assert winner(*after_centre.stones) == 0
    first_moves = {text: winner(*GAME.play(GAME.new({"size": 2}), text).state.stones) for text in ("B B2", "W B2")}
    assert first_moves == {"B B2": 1, "W B2": 0}  # the colour matters: a black centre loses


def test_moves_name_a_colour_then_a_cell() -> None:
    state = GAME.new({})
    verdict = GAME.play(state, "w e5")
    assert verdict.legal and verdict.move == "W E5"  # R-E2: case-insensitive, written back as W E5
    assert verdict.events == [{"type": "place", "player": 0, "color": "white", "cells": ["E5"]}]
    state = verdict.state
    assert GAME.dump(state)["board"] == {"E5": 1} and state.to_move == 1
    verdict = GAME.play(state, ["B", "D4"])
    assert verdict.legal and verdict.events[0]["player"] == 1 and verdict.events[0]["color"] == "black"
    for text, code, step in [
        ("E5", "bad_notation", 0),
        ("X D4", "bad_notation", 0),
        ("B", "bad_notation", 0),
        ("B E5", "occupied", 0),
        ("B A1 W A2", "too_many_stones", 1),
        ("B Z9", "unknown_cell", 0),
    ]:
        refused = GAME.play(state, text)
        assert refused.error is not None and (refused.error.code, refused.error.step) == (code, step), text


def test_legal_moves_list_both_colours_on_every_empty_cell() -> None:
    state = GAME.play(GAME.new({"size": 2}), "B A1").state
    moves = GAME.legal_moves(state).moves
    assert moves[:4] == ["B A2", "W A2", "B B1", "W B1"]
    assert len(moves) == 2 * 6
    assert GAME.legal_moves(state, limit=3).truncated


def test_a_client_state_is_checked() -> None:
    state = GAME.play(GAME.play(GAME.new({"size": 3}), "B C3").state, "W A1").state
    data = GAME.dump(state)
    for change, field in [
        ({"ply": 3}, "state.ply"),
        ({"to_move": 1}, "state.to_move"),
        ({"scores": [1, 0]}, "state.scores"),
        ({"options": {"size": 3, "pie": False}}, "state.options.pie"),
        ({"end": "full", "status": "finished", "to_move": None}, "state.end"),
        ({"end": "flag", "status": "finished", "to_move": None, "winner": 0}, "state.winner"),  # player 0 was to move
    ]:
        with pytest.raises(BadState) as e:
            GAME.load({**data, **change})
        assert e.value.field == field, change
    flagged = {**data, "end": "flag", "status": "finished", "to_move": None, "winner": 1}
    assert GAME.load(flagged).end == "flag"


def test_random_games_end_full_with_no_draws() -> None:
    rnd = random.Random(4)
    for size in (2, 3, 4, 5):
        state = GAME.new({"size": size})
        while not GAME.is_over(state):
            verdict = GAME.play(state, rnd.choice(GAME.legal_moves(state).moves))
            assert verdict.legal
            state = verdict.state
            assert GAME.load(GAME.dump(state)) == state
        assert state.end == "full" and state.winner in (0, 1)
        b2, w2 = GAME.dump(state)["scores"]
        assert state.winner == (0 if b2 > w2 else 1)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(2, 4), plies=st.integers(0, 40))
def test_legal_moves_are_exactly_the_accepted_moves(seed: int, size: int, plies: int) -> None:
    """Both colours on every cell of the board, tried in a random position: a
    move is accepted exactly when the list names it (R-E2)."""
    rnd = random.Random(seed)
    _, state, _ = random_game(GAME, {"size": size}, plies, rnd)
    listed = set(GAME.legal_moves(state).moves)
    candidates = [f"{c} {name}" for name in state.board.names(state.board.mask) for c in "BW"]
    accepted = {m for m in candidates if GAME.play(state, m).legal}
    assert accepted == listed
