"""Catchup rules (RULES R-C1 to R-C5) and every checkable statement of seeds
000, 001 and 004, on boards drawn as diagrams: ``X`` is player 0, ``O``
player 1, ``.`` empty, ``#`` blocked."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import BadOptions, EngineError
from engine.games.catchup.rules import Catchup, CatchupState, compare_groups, tie_break
from engine.hexboard import hexhex

GAME = Catchup()


def setup(diagram: str, size: int = 5, **options: Any) -> CatchupState:
    """A set-up position (API.md ``options.position``) from a picture."""
    board = hexhex(size)
    marks, blocked = board.parse_diagram(diagram, {"X": 0, "O": 1})
    opts: dict[str, Any] = {"size": size, "position": {board.name(b): v for b, v in marks.items()}, **options}
    if blocked:
        opts["blocked"] = board.names(blocked)
    return GAME.new(opts)


def play(state: CatchupState, move: str) -> CatchupState:
    verdict = GAME.play(state, move)
    assert verdict.legal, verdict.error and verdict.error.message
    return verdict.state


def refused(state: CatchupState, move: str | list[str]) -> EngineError:
    verdict = GAME.play(state, move)
    assert not verdict.legal
    assert verdict.state is state  # an illegal move changes nothing
    assert verdict.error is not None
    return verdict.error


def picture(state: CatchupState) -> str:
    marks = {b: "XO"[p] for p in (0, 1) for b in state.board.cells if state.stones[p] >> b & 1}
    return state.board.render(marks, blocked=state.blocked)


# -- R-C1 turn sizes -------------------------------------------------------


def test_first_turn_places_exactly_one_stone() -> None:
    # R-C1, seed 000: "On the first turn of the starting player, they play one piece"
    state = GAME.new({})
    assert (state.to_move, GAME.max_stones(state), state.scores) == (0, 1, (1, 1))
    err = refused(state, "E5 E6")
    assert err.code == "too_many_stones"
    assert "at most 1 stone" in err.message and "first turn" in err.message
    state = play(state, "e5")
    assert (state.to_move, GAME.max_stones(state), state.bonus) == (1, 2, False)


def test_later_turns_place_one_or_two_and_never_pass() -> None:
    state = play(GAME.new({}), "E5")
    assert refused(state, "A1 A2 A3").code == "too_many_stones"
    assert refused(state, "").code == "empty_move"
    assert refused(state, []).code == "empty_move"
    one = play(state, "A1")
    two = play(state, "A1 I5")
    assert one.to_move == two.to_move == 0
    assert one.stones[1].bit_count() == 1 and two.stones[1].bit_count() == 2


# A side-3 board with one empty cell, C3; nine stones each, so X (player 0) is to move.
ONE_EMPTY = """
  X X X
 O O O X
X X . O O
 O X X O
  O O X
"""


def test_a_turn_never_places_more_stones_than_empty_cells() -> None:
    # R-C1: "never more than the empty cells left" - here one cell is left, so
    # even two stones are too many; the message says why.
    state = setup(ONE_EMPTY, size=3)
    assert (state.to_move, GAME.max_stones(state)) == (0, 1)
    err = refused(state, "C3 A1")
    assert err.code == "too_many_stones" and "only 1 empty cell is left" in err.message


def test_illegal_move_codes_name_the_first_wrong_step() -> None:
    state = setup(
        """
            X . . . .
           . . . . . .
          . . . . . . .
         . . . . . . . .
        . . . . O # . . .
         . . . . . . . .
          . . . . . . .
           . . . . . .
            . . . . .
        """,
        to_move=0,
    )
    cases = [
        ("A2 A3 A4", "too_many_stones", 2, "no third stone is due"),
        ("A2 E5", "occupied", 1, "E5 is already occupied"),
        ("E6", "blocked", 0, "E6 is blocked"),
        ("C3 c3", "duplicate_cell", 1, "C3 is named twice"),
        ("A2 J1", "unknown_cell", 1, "J1 is not a cell"),
        ("A2 2A", "bad_notation", 1, "'2A' is not a cell"),
    ]
    for move, code, step, words in cases:
        err = refused(state, move)
        assert (err.code, getattr(err, "step", None)) == (code, step), move
        assert words in err.message, err.message


def test_play_after_the_end_is_game_over() -> None:
    state = setup(ONE_EMPTY, size=3)
    done = play(state, "C3")
    assert (done.end, done.to_move) == ("full", None)
    err = refused(done, "A1")
    assert err.code == "game_over"


# -- R-C2 score ------------------------------------------------------------


def test_score_is_the_largest_group_and_starts_at_one() -> None:
    # R-C2: both start at 1, with no stone on the board
    state = GAME.new({})
    assert state.scores == (1, 1)
    state = play(state, "E5")  # one stone: a group of 1, the score stays 1
    state = play(state, "A1 A2")  # player 1 makes a group of 2
    assert state.scores == (1, 2)
    state = play(state, "E4 I5")  # player 0: E4 joins E5 (2); I5 alone
    assert state.scores == (2, 2)


# -- R-C3 variants ---------------------------------------------------------

# Player 0 (X) has a group of 3 on row A and a lone stone on A5; player 1 (O)
# has a group of 5 along row I.  The score is 3-5 and X is to move.
THREE_FIVE = """
    X X X . X
   . . . . . .
  . . . . . . .
 . . . . . . . .
. . . . . . . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    O O O O O
"""


def test_standard_from_3_5_to_5_5_is_leading() -> None:
    # Seed 000: "from a score of 3-5, the first player makes a move that changes
    # the score to 5-5. Then the first player is leading" (R-C3 standard).
    state = setup(THREE_FIVE)
    assert (state.scores, state.to_move) == ((3, 5), 0)
    verdict = GAME.play(state, "B1 B2")  # A1 A2 A3 B1 B2: a group of 5
    assert verdict.legal
    state = verdict.state
    assert state.scores == (5, 5)
    assert state.bonus and GAME.max_stones(state) == 3
    assert {"type": "bonus", "player": 1, "max_stones": 3} in verdict.events
    # "only on their next turn": O uses the 3 stones without raising the score ...
    state = play(state, "E1 E3 E5")
    assert not state.bonus and GAME.max_stones(state) == 2
    # ... and X, not raising the score either, is no longer leading
    state = play(state, "G1")
    assert not state.bonus and GAME.max_stones(state) == 2


def test_standard_rising_but_staying_behind_is_not_leading() -> None:
    state = setup(THREE_FIVE)
    state = play(state, "B1")  # 3 -> 4, still behind 5
    assert state.scores == (4, 5) and not state.bonus


def test_mindsports_reaching_5_from_3_5_does_not_trigger() -> None:
    # R-C3 mindsports (seed 004): the new group must be larger than the largest
    # group of either colour at the start of the turn - 5 is not larger than 5.
    state = setup(THREE_FIVE, variant="mindsports")
    state = play(state, "B1 B2")
    assert state.scores == (5, 5)
    assert not state.bonus and GAME.max_stones(state) == 2


def test_mindsports_reaching_6_triggers() -> None:
    state = setup(THREE_FIVE, variant="ludii")
    state = play(state, "A4 B1")  # A4 joins A1-A3 and A5, B1 adds one: 6
    assert state.scores == (6, 5)
    assert state.bonus and GAME.max_stones(state) == 3


def test_mindsports_a_single_stone_never_triggers() -> None:
    # R-C3: the largest group at the start counts as at least 1
    state = play(GAME.new({"variant": "mindsports"}), "E5")
    assert not state.bonus
    state = play(state, "A1 I5")  # two singles for player 1
    assert not state.bonus


def test_bolanos_two_stones_only_if_the_largest_group_keeps_its_size() -> None:
    # R-C3 bolanos (seed 004 alternative rules)
    state = setup(THREE_FIVE, variant="bolanos")
    kept = play(state, "B1 B2")  # X reaches 5: the board's largest is still 5
    assert kept.scores == (5, 5) and not kept.bonus
    err = refused(state, "A4 B1")  # X would reach 6 > 5
    assert err.code == "largest_group_grew"
    assert "stays at 5" in err.message and "makes it 6" in err.message
    assert getattr(err, "step", None) == 1
    one = play(state, "A4")  # one stone is always allowed, whatever it makes
    assert one.scores == (5, 5) and one.to_move == 1  # A1-A5: 5, the largest stays 5


def test_bolanos_single_stone_growing_the_largest_group_is_allowed_and_gives_no_bonus() -> None:
    state = setup(THREE_FIVE, variant="bolanos")
    state = play(state, "B1 B2")  # 5-5
    state = play(state, "H1")  # O: H1 joins I1 (I1 touches H1 and H2): 6
    assert state.scores == (5, 6)
    assert not state.bonus and GAME.max_stones(state) == 2  # R-C3: bolanos never gives 3
    assert refused(state, "C1 C2 C3").code == "too_many_stones"


def test_the_variants_differ_on_the_same_move() -> None:
    # From 3-5, "B1 B2" reaches 5-5: standard gives the bonus, mindsports does
    # not, bolanos allows the two stones (largest still 5) without a bonus.
    outcomes = {v: play(setup(THREE_FIVE, variant=v), "B1 B2").bonus for v in ("standard", "mindsports", "bolanos")}
    assert outcomes == {"standard": True, "mindsports": False, "bolanos": False}


@pytest.mark.parametrize(
    ("alias", "variant"), [("genius", "standard"), ("littlegolem", "standard"), ("ludii", "mindsports"), ("Genius", "standard")]
)
def test_variant_aliases(alias: str, variant: str) -> None:
    state = GAME.new({"variant": alias})
    assert state.variant == variant
    assert GAME.dump(state)["options"]["variant"] == variant


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(BadOptions) as err:
        GAME.new({"variant": "plur"})
    assert err.value.field == "options.variant"


# -- seed 000's worked example ---------------------------------------------

# The picture of seed 000 is lost.  This side-5 position is built to agree
# with every sentence of the text: Red (X, player 0) has A1 A2 B2 on top and a
# 4-group H1 H2 I1 I2; Blue (O, player 1) has C7, D6-E6 and F7-G6 on the right
# and singles A5 and E1.  Red is to move and plays B4 B5 (a new 2-group, the
# score stays 4, so Red does not lead).  Then D7 joins C7 with D6-E6 (4, "the
# two groups on the right"), F8 extends F7-G6 to 3; Blue has 4-3-1-1, Red
# 4-3-2.  B3 joins A1 A2 B2 with B4 B5 (6, "the two groups on the top"), C1-D2
# make a pair.  G7 and H6 extend F7 G6 F8 to 5; F2 stands alone.
WORKED_EXAMPLE = """
    X X . . O
   . X . . . .
  . . . . . . O
 . . . . . O . .
O . . . . O . . .
 . . . . . . O .
  . . . . . O .
   X X . . . .
    X X . . .
"""


def test_seed_000_worked_example() -> None:
    red, blue = 0, 1
    state = setup(WORKED_EXAMPLE)
    assert (state.to_move, state.scores) == (red, (4, 2))

    # "on the previous turn, Red played B4 and B5, which did not cause Red to lead"
    state = play(state, "B4 B5")
    assert state.scores == (4, 2) and not state.bonus
    assert GAME.max_stones(state) == 2

    # "Blue plays on D7 (connecting the two groups on the right) and F8. Blue's
    # score rises to 4; this causes Blue to be leading, which allows Red to place
    # three stones" - tying counts as leading.
    verdict = GAME.play(state, "D7 F8")
    assert verdict.legal
    state = verdict.state
    assert {"type": "score", "player": blue, "from": 2, "to": 4} in verdict.events
    assert state.scores == (4, 4)
    assert state.bonus and GAME.max_stones(state) == 3
    # "had the game ended now, Blue's 4-3-1-1 would lose to Red's 4-3-2"
    assert GAME.group_sizes(state, blue) == [4, 3, 1, 1]
    assert GAME.group_sizes(state, red) == [4, 3, 2]
    assert compare_groups(GAME.group_sizes(state, red), GAME.group_sizes(state, blue)) == 1

    # "Red plays B3 (connecting the two groups on the top), C1, and D2. Red's
    # score rises to 6; this causes Red to be leading."
    state = play(state, "B3 C1 D2")
    assert state.scores == (6, 4)
    assert GAME.group_sizes(state, red) == [6, 4, 2]
    assert state.bonus and GAME.max_stones(state) == 3

    # "Blue plays F2, G7, H6. Blue's score rises to 5, but this does not overtake
    # Red, so Blue is not leading; Red may only play two spaces next turn."
    state = play(state, "F2, G7, H6")
    assert state.scores == (6, 5)
    assert not state.bonus and GAME.max_stones(state) == 2
    assert refused(state, "I3 I4 I5").code == "too_many_stones"
    assert picture(state) == "\n".join(
        [
            "    X X . . O",
            "   . X X X X .",
            "  X . . . . . O",
            " . X . . . O O .",
            "O . . . . O . . .",
            " . O . . . . O O",
            "  . . . . . O O",
            "   X X . . . O",
            "    X X . . .",
        ]
    )


# -- R-C4 end and winner ---------------------------------------------------

# Two full side-5 boards (61 cells) for seed 000's tie-break examples.
# X: groups of 11, 8, 8 and 3 (30 stones); O: 11, 8, 7, 4 and 1 (31 stones).
TIE_BREAK_1 = """
    X X X O X
   O O X O X O
  O O X O X O X
 X X X O X O X O
O O O O X O X O O
 X X X X O X O O
  O X O O X O O
   X O X O X X
    O X X O X
"""

# X: 11, 8, 8 and 3 (30 stones); O: 11, 8, 8, 3 and 1 (31 stones).
TIE_BREAK_2 = """
    X O O O X
   O X X X X X
  X O O O O O X
 O X X X X X O O
X X O O O O X X X
 O O X X O O O O
  O X O X X X X
   X O O O O O
    O O X X X
"""


def test_seed_000_tie_break_third_group_decides() -> None:
    # "you have group sizes 11-8-8-3 and your opponent has 11-8-7-4-1. Then you
    # win as your third-largest group 8 is larger than the opponent's 7."
    state = setup(TIE_BREAK_1)
    assert GAME.group_sizes(state, 0) == [11, 8, 8, 3]
    assert GAME.group_sizes(state, 1) == [11, 8, 7, 4, 1]
    assert (state.end, state.to_move, state.winner) == ("full", None, 0)
    swapped = setup(TIE_BREAK_1.replace("X", "x").replace("O", "X").replace("x", "O"))
    assert swapped.winner == 1


def test_seed_000_tie_break_missing_group_counts_zero() -> None:
    # "Had your opponent have 11-8-8-3-1 instead, your opponent would have won
    # as their fifth-largest group 1 is larger than your 0."
    state = setup(TIE_BREAK_2)
    assert GAME.group_sizes(state, 0) == [11, 8, 8, 3]
    assert GAME.group_sizes(state, 1) == [11, 8, 8, 3, 1]
    assert state.winner == 1
    assert GAME.decided_by(state)["decided_at"] == 5  # R-C4: the fifth-largest group decides
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winner, outcome.end, outcome.result) == (1, "full", "0-1")


def test_the_last_stone_ends_the_game_with_the_tie_break() -> None:
    # R-C4: the game ends when the board is full.  Take X's E5 out of the first
    # tie-break board and let X put it back: with it, X's 11 is complete.
    board = hexhex(5)
    marks, _ = board.parse_diagram(TIE_BREAK_1, {"X": 0, "O": 1})
    del marks[board.parse_cell("E5")]
    state = GAME.new({"position": {board.name(b): v for b, v in marks.items()}})
    assert (state.to_move, GAME.max_stones(state)) == (0, 1)
    verdict = GAME.play(state, "E5")
    assert verdict.legal
    end = verdict.state
    assert (end.end, end.to_move, end.winner, end.bonus, GAME.max_stones(end)) == ("full", None, 0, False, 0)
    # R-C4, seed 000: "you win as your third-largest group 8 is larger than the opponent's 7"
    end_event = {"type": "end", "winner": 0, "end": "full", "groups": [[11, 8, 8, 3], [11, 8, 7, 4, 1]], "decided_at": 3}
    assert end_event in verdict.events
    assert GAME.outcome(end) is not None and GAME.outcome(end).result == "1-0"
    assert GAME.dump(end)["status"] == "finished"


def test_compare_groups_pads_with_zero() -> None:
    assert compare_groups([11, 8, 8, 3], [11, 8, 7, 4, 1]) == 1
    assert compare_groups([11, 8, 8, 3], [11, 8, 8, 3, 1]) == -1
    assert compare_groups([4, 3, 2], [4, 3, 1, 1]) == 1  # seed 000's remark
    assert compare_groups([5], [5]) == 0
    assert tie_break([11, 8, 8, 3], [11, 8, 7, 4, 1]) == (1, 3)
    assert tie_break([5], [5]) == (0, None)


def test_a_draw_is_reported_if_blocked_cells_allow_one() -> None:
    # R-C4: a hexhex board has an odd number of cells, but a set-up board with
    # one blocked cell has 18; equal group lists (9 against 9) are a draw.
    state = setup(
        """
          X X X
         X X X X
        X X # O O
         O O O O
          O O O
        """,
        size=3,
    )
    assert GAME.group_sizes(state, 0) == GAME.group_sizes(state, 1) == [9]
    assert (state.end, state.to_move, state.winner) == ("full", None, None)


# -- R-C5 board size -------------------------------------------------------


@pytest.mark.parametrize("size", range(3, 11))
def test_sides_3_to_10_are_accepted(size: int) -> None:
    state = GAME.new({"size": size})
    assert state.empty.bit_count() == 3 * size * (size - 1) + 1
    assert GAME.dump(state)["options"] == {"variant": "standard", "size": size}


def test_default_side_is_5() -> None:
    assert GAME.new({}).board.side == 5


@pytest.mark.parametrize("size", [2, 11, 0, "5", 5.5, True, None])
def test_other_sizes_are_refused_naming_options_size(size: object) -> None:
    with pytest.raises(BadOptions) as err:
        GAME.new({"size": size})
    assert err.value.field == "options.size"


# -- legal moves, resign, flag ---------------------------------------------


def test_legal_moves_list_the_empty_cells_and_the_allowance() -> None:
    state = setup(THREE_FIVE)
    lm = GAME.legal_moves(state)
    assert len(lm.moves) == 61 - 9 and "A4" in lm.moves and "A1" not in lm.moves
    assert lm.info == {"max_stones": 2, "bonus": False}
    few = GAME.legal_moves(state, limit=3)
    assert few.moves == ["A4", "B1", "B2"] and few.truncated


@pytest.mark.parametrize("player", [0, 1])
def test_resign_gives_the_opponent_the_win(player: int) -> None:
    state = play(GAME.new({}), "E5")
    done, events = GAME.resign(state, player)
    assert (done.end, done.winner, done.to_move, GAME.max_stones(done)) == ("resign", 1 - player, None, 0)
    assert events[-1] == {"type": "end", "winner": 1 - player, "end": "resign"}
    assert refused(done, "A1").code == "game_over"


def test_a_flag_loses_for_the_player_to_move() -> None:
    state = play(GAME.new({}), "E5")  # player 1 to move
    done, _ = GAME.timeout(state)
    assert (done.end, done.winner) == ("flag", 0)
    with pytest.raises(EngineError):
        GAME.timeout(done)
    with pytest.raises(EngineError):
        GAME.resign(done, 0)
