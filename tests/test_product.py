"""Product (RULES R-E4, R-E4a, R-E4b; seed 001), boards drawn as the rules' rows.

``X`` is a black stone (player 0's colour), ``O`` a white one (player 1's),
whoever placed it; ``.`` empty, ``#`` blocked.  Side 2 (R-H1: rows A-C of
2, 3, 2 cells; B2 in the middle touches every other cell, the other six make
a ring A1 A2 B3 C2 C1 B1) and side 3 (rows A-E of 3, 4, 5, 4, 3 cells).
"""

from __future__ import annotations

import random
from itertools import product as pairs

import pytest
from gamekit import bfs_sizes, random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BadOptions, BadState
from engine.games.product.rules import Product, ProductState, judge, top_two, turns
from engine.hexboard import hexhex

GAME = Product()
SYMBOLS = {"X": 0, "O": 1}
VARIANTS = ("produto", "bentley", "abstractplay")


def setup(diagram: str, **options: object) -> ProductState:
    board = hexhex(options.pop("size", 2))  # type: ignore[arg-type]
    marks, blocked = board.parse_diagram(diagram, SYMBOLS)
    opts = {"size": board.side, "position": {board.name(b): v for b, v in marks.items()}, **options}
    if blocked:
        opts["blocked"] = board.names(blocked)
    return GAME.new(opts)


def swap_colours(diagram: str) -> str:
    return diagram.translate(str.maketrans("XO", "OX"))


def code_of(state: ProductState, move: object) -> tuple[str, int | None, str | None]:
    verdict = GAME.play(state, move)  # type: ignore[arg-type]
    assert verdict.error is not None, move
    return verdict.error.code, verdict.error.step, verdict.error.rule


# -- R-E4: the product of the two largest groups --------------------------------------

# Black: A1 A3 B2 B3 (4: A1 and A3 both touch B2 B3) and D2 E2 E3 (3): 4 x 3 = 12.
# White: A2 alone (1: every neighbour is black) and the other eleven in one group: 11 x 1 = 11.
PRODUCTS_12_11 = """
  X O X
 O X X O
O O O O O
 O X O O
  O X X
"""


def test_a_score_is_the_product_of_the_two_largest_groups() -> None:
    # R-E4: "the product of the sizes of their colour's two largest groups"
    state = setup(PRODUCTS_12_11, size=3)
    assert [bfs_sizes(state.board, s) for s in state.stones] == [[4, 3], [11, 1]]  # counted independently
    assert GAME.dump(state)["scores"] == [12, 11]
    assert (state.end, state.winner, judge(state)) == ("full", 0, (0, "products"))


def test_the_larger_product_wins_in_every_variant_either_way() -> None:
    # R-E4: the products decide before any tie-break (R-E4a)
    for variant in VARIANTS:
        black = setup(PRODUCTS_12_11, size=3, variant=variant)
        white = setup(swap_colours(PRODUCTS_12_11), size=3, variant=variant)
        assert (black.winner, GAME.decided_by(black)["decided_by"]) == (0, "products"), variant
        assert (white.winner, GAME.decided_by(white)["decided_by"]) == (1, "products"), variant
        assert GAME.dump(white)["scores"] == [11, 12]


def test_only_the_two_largest_groups_count() -> None:
    assert top_two((0b1, 0b111, 0b11, 0b1111), 0) == (4, 3)  # sizes 1, 3, 2, 4
    assert top_two((0b11, 0b11, 0b1), 0) == (2, 2)  # equal groups count separately


def test_a_lone_group_scores_zero_by_default() -> None:
    # R-E4: "a colour with fewer than two groups counts the missing sizes as 0 (so one group scores 0)"
    assert top_two((), 0) == (0, 0) and top_two((0b111,), 0) == (3, 0)
    state = GAME.play(GAME.new({"size": 3}), "B C3").state
    assert GAME.dump(state)["scores"] == [0, 0]


def test_scores_are_reported_during_play() -> None:
    # R-E4: "Scores are reported during play the same way."
    state = GAME.new({"size": 3})
    for move in ("B A1", "B A3 W C3", "B E1 B E2"):
        state = GAME.play(state, move).state
    # black A1, A3, E1 E2: groups 2, 1, 1 -> 2 x 1; white C3 alone -> 1 x 0
    assert GAME.dump(state)["scores"] == [2, 0]


# -- R-E4b: lone_group ------------------------------------------------------------------

# Black: the ring of six, one group of 6; white: B2 alone.
LONE = """
 X X
X O X
 X X
"""


def test_a_lone_group_under_both_rules() -> None:
    # R-E4b zero: missing groups count 0, so both products are 0 and produto's tie-break
    # gives the game to white's owner, who has fewer stones (1 against 6).
    zero = setup(LONE)
    assert GAME.dump(zero)["scores"] == [0, 0]
    assert (zero.winner, GAME.decided_by(zero)["decided_by"]) == (1, "fewer_stones")
    # R-E4b size: "a colour's missing groups count as 1, so one group scores its size"
    size = setup(LONE, lone_group="size")
    assert GAME.dump(size)["scores"] == [6, 1]
    assert (size.winner, GAME.decided_by(size)["decided_by"]) == (0, "products")
    assert GAME.decided_by(size)["factors"] == [[6, 1], [1, 1]]


def test_with_lone_group_size_no_group_scores_one() -> None:
    # R-E4b: "... and none scores 1"
    state = GAME.new({"size": 3, "lone_group": "size"})
    assert GAME.dump(state)["scores"] == [1, 1]
    state = GAME.play(state, "W C3").state
    assert GAME.dump(state)["scores"] == [1, 1]  # white: 1 x 1; black: none, 1 x 1
    state = GAME.play(state, "W C4 B A1").state
    assert GAME.dump(state)["scores"] == [1, 2]  # white C3 C4 one group of 2: 2 x 1
    assert GAME.dump(GAME.new({"size": 3}))["scores"] == [0, 0]


# -- R-E4a: equal products -----------------------------------------------------------

# Black (9 stones): A1 A2 B3 B4 C2 C3 C4 D4 (8) and E1 (1): 8 x 1 = 8.
# White (10 stones): B1 B2 C1 D1 D2 D3 E2 E3 (8), A3 (1) and C5 (1): 8 x 1 = 8.
EQUAL_BLACK_FEWER = """
  X X O
 O O X X
O X X X O
 O O O X
  X O O
"""

# Side 2: black A1 A2 B2 is one group (3 stones, product 0); white B1 C1 C2 B3 one group
# (4 stones, product 0).
EQUAL_SMALL = """
 X X
O X O
 O O
"""


@pytest.mark.parametrize(
    ("variant", "black_fewer", "white_fewer"),
    [
        ("produto", (0, "fewer_stones"), (1, "fewer_stones")),  # fewer stones of their colour win
        ("bentley", (None, "draw"), (None, "draw")),  # equal scores are a draw
        ("abstractplay", (0, "first_player"), (0, "first_player")),  # a win for player 0
    ],
)
def test_equal_products_are_broken_by_the_variant(
    variant: str, black_fewer: tuple[int | None, str], white_fewer: tuple[int | None, str]
) -> None:
    # R-E4a, each variant's tie-break, with black and then white holding fewer stones
    for diagram, size in ((EQUAL_BLACK_FEWER, 3), (EQUAL_SMALL, 2)):
        state = setup(diagram, size=size, variant=variant)
        assert GAME.dump(state)["scores"][0] == GAME.dump(state)["scores"][1]
        assert state.stones[0].bit_count() < state.stones[1].bit_count()
        assert (state.winner, GAME.decided_by(state)["decided_by"]) == black_fewer, (variant, diagram)
        swapped = setup(swap_colours(diagram), size=size, variant=variant)
        assert (swapped.winner, GAME.decided_by(swapped)["decided_by"]) == white_fewer, (variant, diagram)
        data = GAME.dump(swapped)
        assert data["status"] == "finished" and data["winner"] == white_fewer[0]
        assert GAME.load(data) == swapped


def test_the_equal_small_board_under_lone_group_size_is_decided_by_products() -> None:
    # R-E4b size: black's one group of 3 scores 3, white's one group of 4 scores 4
    state = setup(EQUAL_SMALL, lone_group="size")
    assert GAME.dump(state)["scores"] == [3, 4] and state.winner == 1


# B2 blocked leaves a ring of six cells: the colours alternate, three single stones
# each, so both products are 1 x 1 = 1 and both colours have 3 stones.
DRAW = """
 X O
O # X
 X O
"""


def test_equal_products_and_equal_counts_are_a_draw() -> None:
    # R-E4a produto: "equal counts too (only possible when blocked cells leave an even
    # number of cells) is a draw"
    state = setup(DRAW)
    assert [state.sizes(0), state.sizes(1)] == [[1, 1, 1], [1, 1, 1]]
    data = GAME.dump(state)
    assert (data["scores"], data["status"], data["winner"], data["end"]) == ([1, 1], "finished", None, "full")
    assert GAME.decided_by(state) == {
        "decided_by": "draw",
        "products": [1, 1],
        "factors": [[1, 1], [1, 1]],
        "groups": {"black": [1, 1, 1], "white": [1, 1, 1]},
        "stones": [3, 3],
    }
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result == "1/2-1/2"
    assert GAME.load(data) == state
    assert setup(DRAW, variant="abstractplay").winner == 0  # first player


def test_a_draw_played_to_its_end() -> None:
    # The same ring played turn by turn: 1 + 2 + 2 + 1 stones (R-E4a: one empty cell left, one stone)
    state = GAME.new({"size": 2, "blocked": ["B2"]})
    dues = []
    for move in ("B A1", "W A2 B B3", "W C2 B C1", "W B1"):
        dues.append(GAME.dump(state)["stones_due"])
        verdict = GAME.play(state, move)
        assert verdict.legal, verdict.error
        state = verdict.state
    assert dues == [1, 2, 2, 1]
    assert (state.end, state.winner, state.ply) == ("full", None, 4)
    end = verdict.events[-1]
    assert end == {"type": "end", "winner": None, "end": "full", **GAME.decided_by(state)}
    assert end["decided_by"] == "draw"


def test_the_last_turn_ends_the_game_and_the_end_names_what_decided() -> None:
    board = hexhex(3)
    marks, _ = board.parse_diagram(EQUAL_BLACK_FEWER, SYMBOLS)
    del marks[board.parse_cell("E1")], marks[board.parse_cell("E3")]  # black's lone stone and a white one, placed last
    state = GAME.new({"size": 3, "position": {board.name(b): v for b, v in marks.items()}})
    # 17 stones took 1 + 8 x 2 = 9 turns (R-E4a: one, then two a turn): player 1 is next
    assert (state.to_move, state.ply, state.stones_due) == (1, 9, 2)
    verdict = GAME.play(state, "w e3, b e1")
    assert verdict.legal and verdict.move == "B E1 W E3"
    assert verdict.events[:2] == [
        {"type": "place", "player": 1, "color": "black", "cells": ["E1"]},
        {"type": "place", "player": 1, "color": "white", "cells": ["E3"]},
    ]
    # black's product: 8 x 0 before E1 (one group), 8 x 1 after; white's group of 7 grows to 8
    assert verdict.events[2:4] == [
        {"type": "score", "player": 0, "from": 0, "to": 8, "factors": [8, 1]},
        {"type": "score", "player": 1, "from": 7, "to": 8, "factors": [8, 1]},
    ]
    end = verdict.events[-1]
    assert (end["type"], end["winner"], end["end"], end["decided_by"]) == ("end", 0, "full", "fewer_stones")
    assert end["products"] == [8, 8] and end["stones"] == [9, 10]
    assert end["groups"] == {"black": [8, 1], "white": [8, 1, 1]}
    assert (verdict.state.ply, GAME.legal_moves(verdict.state).moves) == (10, [])


# -- R-E4a: how many stones a turn places ---------------------------------------------


def test_produto_places_one_stone_then_two() -> None:
    state = GAME.new({"size": 2})
    assert GAME.dump(state)["options"] == {"size": 2, "variant": "produto", "lone_group": "zero"}
    dues = []
    for move in ("W B2", "B A1 B A2", "W C1 B C2", "B B1 W B3"):
        dues.append(state.stones_due)
        verdict = GAME.play(state, move)
        assert verdict.legal, verdict.error
        state = verdict.state
    assert dues == [1, 2, 2, 2] and state.end == "full" and state.ply == 4


def test_bentley_places_one_stone_a_turn() -> None:
    state = GAME.new({"size": 2, "variant": "bentley"})
    state = GAME.play(state, "B A1").state
    assert state.stones_due == 1 and (state.to_move, state.ply) == (1, 1)
    assert code_of(state, "B A2 W B1") == ("too_many_stones", 1, "R-E4a")
    assert len(GAME.legal_moves(state).moves) == 2 * 6


def test_abstractplay_turns_are_as_in_produto() -> None:
    state = GAME.new({"size": 2, "variant": "abstractplay"})
    assert state.stones_due == 1
    state = GAME.play(state, "B B2").state
    assert state.stones_due == 2


def test_the_second_turn_lists_every_colour_pair_of_every_pair_of_cells() -> None:
    # R-E4: 60 empty cells on a side-5 board, C(60, 2) = 1770 pairs, 4 colourings each
    state = GAME.play(GAME.new({}), "B E5").state
    listed = GAME.legal_moves(state)
    assert len(listed.moves) == 7080 and len(set(listed.moves)) == 7080
    assert state.stones_due == 2
    assert listed.moves[:4] == ["B A1 B A2", "B A1 W A2", "B A2 W A1", "W A1 W A2"]
    first = GAME.legal_moves(state, limit=10)
    assert first.moves == listed.moves[:10] and first.truncated
    assert not GAME.legal_moves(state, limit=7080).truncated
    assert len(GAME.legal_moves(GAME.new({})).moves) == 2 * 61  # the first turn: one stone


# -- R-E4: moves -----------------------------------------------------------------------


def test_a_move_is_its_stones_in_any_order_written_back_in_one() -> None:
    state = GAME.play(GAME.new({}), "B E5").state
    for text in ("B D4 W E6", "W E6 B D4", "w e6, b d4", "b d4,w e6", ["W E6", "B D4"], ["w", "e6", "b", "d4"]):
        verdict = GAME.play(state, text)
        assert verdict.legal and verdict.move == "B D4 W E6", text
        assert verdict.events == [
            {"type": "place", "player": 1, "color": "black", "cells": ["D4"]},
            {"type": "place", "player": 1, "color": "white", "cells": ["E6"]},
        ]
    # one colour's stones in reading order
    assert GAME.play(state, "B E6 B D4").move == "B D4 B E6"
    assert GAME.play(state, "W I5 W A1").move == "W A1 W I5"
    # R-E4: "two stones on one cell are illegal" (AbstractPlay takes B H1 W H1 as a turn of one stone)
    assert code_of(state, "B H1 W H1") == ("duplicate_cell", 1, "R-E4")


def test_illegal_moves_name_their_code_step_and_ruling() -> None:
    first = GAME.new({"size": 3, "blocked": ["C3"]})
    assert code_of(first, "B A1 W A2") == ("too_many_stones", 1, "R-E4a")  # the first turn: one stone
    state = GAME.play(first, "B A1").state
    for move, expected in [
        ("B A2", ("too_few_stones", None, "R-E4a")),  # a later turn places two
        ("B A2 W A3 B B1", ("too_many_stones", 2, "R-E4a")),
        ("B A2 W A2", ("duplicate_cell", 1, "R-E4")),  # one cell named twice: refused (AbstractPlay takes it)
        ("B A2 B A2", ("duplicate_cell", 1, "R-E4")),
        ("B A2 W A1", ("occupied", 1, "R-E4")),
        ("W A1 B A2", ("occupied", 0, "R-E4")),
        ("B A1", ("occupied", 0, "R-E4")),  # the first wrong step: the cell, before the count
        ("B A2 W A1 B A3", ("occupied", 1, "R-E4")),
        ("B C3 W A2", ("blocked", 0, "R-H4")),
        ("B A2 W Z9", ("unknown_cell", 1, "R-H1")),
        ("B A2 R A3", ("bad_notation", 1, "R-E4")),  # a colour other than B/W
        ("A2 A3", ("bad_notation", 0, "R-E4")),  # a cell with no colour
        ("B A2 W", ("bad_notation", 1, "R-E4")),  # a colour with no cell
        ("B A2 W 33", ("bad_notation", 1, "R-H3")),
        ("", ("empty_move", None, "R-E4")),
        ("pass", ("no_pass", None, "R-E4")),
    ]:
        assert code_of(state, move) == expected, move


def test_nothing_is_played_after_the_end() -> None:
    state = setup(DRAW)
    assert code_of(state, "B A1") == ("game_over", None, "R-E4")
    assert GAME.legal_moves(state).moves == [] and state.stones_due == 0


def test_next_steps_answer_a_prefix_in_any_order() -> None:
    state = GAME.play(GAME.new({"size": 2}), "B B2").state
    start = GAME.next_steps(state, [])
    assert (start.complete, len(start.steps)) == (False, 12) and start.steps[:2] == ["B A1", "W A1"]
    one = GAME.next_steps(state, ["w c2"])
    assert one.prefix == ["W C2"] and not one.complete and "B C2" not in one.steps and len(one.steps) == 10
    two = GAME.next_steps(state, ["W C2", "B A1"])
    assert (two.complete, two.steps, two.move) == (True, [], "B A1 W C2")
    for prefix, code, step in [
        (["B C2", "W C2"], "duplicate_cell", 1),
        (["B B2"], "occupied", 0),
        (["B A1", "B A2", "B B1"], "too_many_stones", 2),
        (["B A1 W A2"], "bad_notation", 0),
    ]:
        with pytest.raises(Exception) as e:
            GAME.next_steps(state, prefix)
        assert (getattr(e.value, "code", None), getattr(e.value, "step", None)) == (code, step), prefix


# -- set-up positions and client states ------------------------------------------------


def test_a_set_up_position_gets_the_ply_of_the_turns_it_took() -> None:
    # R-E4a produto: 1 stone, then 2 a turn: n stones took 1 + n // 2 turns; bentley n
    assert [turns("produto", n) for n in (0, 1, 3, 5)] == [0, 1, 2, 3]
    assert [turns("bentley", n) for n in (0, 1, 3, 5)] == [0, 1, 3, 5]
    three = {"A1": 0, "A2": 1, "C3": 0}
    state = GAME.new({"size": 3, "position": three})
    assert (state.to_move, state.ply, state.stones_due) == (0, 2, 2)
    # either player may be to move: any stone may be of either player's placing
    other = GAME.new({"size": 3, "position": three, "to_move": 1})
    assert (other.to_move, other.ply) == (1, 3)
    bentley = GAME.new({"size": 3, "position": three, "variant": "bentley"})
    assert (bentley.to_move, bentley.ply, bentley.stones_due) == (1, 3, 1)
    for s in (state, other, bentley):
        assert GAME.load(GAME.dump(s)) == s
        assert GAME.new(GAME.setup_options(s)) == s


def test_options_are_checked() -> None:
    for options, field in [
        ({"variant": "original"}, "options.variant"),
        ({"lone_group": "one"}, "options.lone_group"),
        ({"size": 11}, "options.size"),
        ({"size": 2, "position": {"B2": 2}}, "options.position.B2"),
        ({"size": 2, "blocked": ["Z1"]}, "options.blocked.0"),
        ({"pie": True}, "options.pie"),
    ]:
        with pytest.raises(BadOptions) as e:
            GAME.new(options)
        assert e.value.field == field, options


def test_a_client_state_is_checked() -> None:
    state = GAME.play(GAME.play(GAME.new({"size": 3}), "B C3").state, "W A1 B E3").state
    data = GAME.dump(state)
    assert (data["to_move"], data["ply"], data["stones_due"], data["scores"]) == (0, 2, 2, [1, 0])
    for change, field in [
        ({"ply": 3}, "state.ply"),
        ({"to_move": 1}, "state.ply"),  # player 1 to move after two turns: ply would be 3
        ({"scores": [0, 0]}, "state.scores"),  # black C3 and E3: 1 x 1
        ({"stones_due": 1}, "state.stones_due"),
        ({"options": {"size": 3, "variant": "produto"}}, "state.options.lone_group"),
        ({"options": {"size": 3, "variant": "Produto", "lone_group": "zero"}}, "state.options.variant"),
        ({"end": "full", "status": "finished", "to_move": None}, "state.end"),
        ({"end": "flag", "status": "finished", "to_move": None, "winner": 0}, "state.ply"),  # player 0 was to move
        ({"board": {"A1": 1, "C3": 0, "E3": 0, "E4": 0}}, "state.board.E4"),
    ]:
        with pytest.raises(BadState) as e:
            GAME.load({**data, **change})
        assert e.value.field == field, change
    flagged = {**data, "end": "flag", "status": "finished", "to_move": None, "winner": 1, "stones_due": 0}
    assert GAME.load(flagged).end == "flag"
    full = GAME.dump(setup(DRAW))
    with pytest.raises(BadState) as e:
        GAME.load({**full, "winner": 0})
    assert e.value.field == "state.winner"


# -- properties ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lone_group", ["zero", "size"])
def test_random_games_end_full_and_round_trip(variant: str, lone_group: str) -> None:
    rnd = random.Random(f"{variant}-{lone_group}")
    for size in (2, 3, 4):
        options = {"size": size, "variant": variant, "lone_group": lone_group}
        state = GAME.new(options)
        moves = []
        while not GAME.is_over(state):
            listed = GAME.legal_moves(state).moves
            verdict = GAME.play(state, rnd.choice(listed))
            assert verdict.legal
            moves.append(verdict.move)
            state = verdict.state
            assert GAME.load(GAME.dump(state)) == state
        assert not state.empty and state.end == "full" and state.ply == len(moves)
        assert GAME.replay(options, moves).state == state  # replay equals play
        winner, decided = judge(state)
        assert state.winner == winner
        s0, s1 = GAME.dump(state)["scores"]
        assert (decided == "products") == (s0 != s1)
        if decided == "products":
            assert winner == (0 if s0 > s1 else 1)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(2, 3),
    variant=st.sampled_from(VARIANTS),
    plies=st.integers(0, 12),
    blocked=st.booleans(),
)
def test_legal_moves_are_exactly_the_accepted_moves(seed: int, size: int, variant: str, plies: int, blocked: bool) -> None:
    """Every stone and every ordered pair of stones (either colour, any cell of
    the board, the same cell twice included) tried in a random position: a move is
    accepted exactly when the list names it, and is written back as listed (R-E4)."""
    rnd = random.Random(seed)
    options: dict[str, object] = {"size": size, "variant": variant}
    if blocked:
        options["blocked"] = ["B2"]
    _, state, _ = random_game(GAME, options, plies, rnd)
    listed = set(GAME.legal_moves(state).moves)
    stones = [f"{c} {name}" for name in state.board.names(state.board.all_mask) for c in "BW"]
    candidates = stones + [f"{a} {b}" for a, b in pairs(stones, stones)]
    if size == 2:
        candidates += [f"{a} {b} {c}" for a, b, c in pairs(stones, stones, stones)]
    accepted = set()
    for m in candidates:
        verdict = GAME.play(state, m)
        if verdict.legal:
            assert verdict.move is not None
            accepted.add(verdict.move)
    assert accepted == listed
