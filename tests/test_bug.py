"""Bug rules in the engine (seed 002; RULES R-B1 to R-B8, boards R-H1 to R-H4).

Positions are drawn as on the board: ``X`` player 0 (Red), ``O`` player 1
(Blue), ``.`` empty, ``#`` off the board.  A side-3 board is (R-H1)::

        A1 A2 A3
      B1 B2 B3 B4
    C1 C2 C3 C4 C5
      D1 D2 D3 D4
        E1 E2 E3

and side 4 has rows A-G of 4, 5, 6, 7, 6, 5, 4 cells.  Two cells touch when
they are side by side in a row, or one row apart and one column apart in the
picture (R-H2).  The seed's worked example is tested move for move over HTTP
in ``test_bug_api.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import BadOptions, BadState, IllegalMove, InvalidMove
from engine.games.bug.rules import Bug, BugState
from engine.hexboard import green_meadow, hexhex, iter_bits

GAME = Bug()


def setup(diagram: str, side: int = 3, to_move: int = 0, eaters: str = "active") -> BugState:
    board = hexhex(side)
    cells, blocked = board.parse_diagram(diagram, {"X": 0, "O": 1})
    position = {board.name(b): v for b, v in cells.items()}
    options = {"size": side, "position": position, "blocked": board.names(blocked), "to_move": to_move, "eaters": eaters}
    return GAME.new(options)


def picture(state: BugState) -> list[list[str]]:
    marks = {b: "X" for b in iter_bits(state.stones[0])} | {b: "O" for b in iter_bits(state.stones[1])}
    return rows(state.board.render(marks, blocked=state.blocked))


def rows(diagram: str) -> list[list[str]]:
    return [line.split() for line in diagram.strip("\n").splitlines() if line.strip()]


def play(state: BugState, move: str) -> tuple[BugState, list[dict[str, Any]]]:
    verdict = GAME.play(state, move)
    assert verdict.legal, verdict.error
    return verdict.state, verdict.events


def refused(state: BugState, move: str) -> IllegalMove:
    verdict = GAME.play(state, move)
    assert not verdict.legal, f"{move} was accepted"
    assert isinstance(verdict.error, IllegalMove)
    assert verdict.state is state
    return verdict.error


def moves_from(state: BugState, grow: str) -> set[str]:
    return {m for m in GAME.legal_moves(state).moves if m.split()[0] == grow}


def eats(events: list[dict[str, Any]]) -> list[tuple[list[str], list[list[str]], str]]:
    return [(e["eater"], e["eaten"], e["bonus"]) for e in events if e["type"] == "eat"]


# -- R-B2: the opening ----------------------------------------------------------


def test_genius_defaults_and_first_turn_places_one_piece_anywhere() -> None:
    state = GAME.new({})
    dumped = GAME.dump(state)
    assert dumped["options"] == {"variant": "genius", "size": 3, "eaters": "active"}  # R-B2 defaults
    assert (dumped["phase"], dumped["to_move"], dumped["ply"], dumped["status"]) == ("grow", 0, 0, "ongoing")
    assert dumped["board"] == {} and dumped["blocked"] == [] and dumped["scores"] == [0, 0]
    assert GAME.legal_moves(state).moves == [hexhex(3).name(b) for b in hexhex(3).cells]  # all 19 cells
    state, events = play(state, "c3")
    assert GAME.dump(state)["board"] == {"C3": 0}
    assert events == [{"type": "grow", "player": 0, "cell": "C3", "spawn": True, "bug": ["C3"]}]


@pytest.mark.parametrize("side", [2, 3, 5, 7])
def test_genius_accepts_sides_two_to_seven(side: int) -> None:
    state = GAME.new({"size": side})
    assert len(GAME.legal_moves(state).moves) == 3 * side * (side - 1) + 1  # R-H1 cell count


@pytest.mark.parametrize("bad", [1, 8, "3", True, None])
def test_other_sides_are_refused(bad: Any) -> None:
    with pytest.raises(BadOptions) as e:
        GAME.new({"size": bad})
    assert e.value.field == "options.size"


def test_player_one_can_eat_the_first_piece_at_once() -> None:
    # R-B4 holds from the first grow: a single next to a single is congruent.
    state, _ = play(GAME.new({}), "C3")
    err = refused(state, "B2")
    assert (err.code, err.step) == ("must_eat", 1)
    assert moves_from(state, "B2") == {f"B2 {c}" for c in ("A1", "A2", "B1", "B3", "C2", "C3")}
    state, events = play(state, "B2 C3")
    assert GAME.dump(state)["board"] == {"B2": 1, "C3": 1}
    assert eats(events) == [(["B2"], [["C3"]], "C3")]  # the bonus may go on the vacated cell


def test_green_meadow_opens_with_each_player_blackening_a_cell() -> None:
    state = GAME.new({"variant": "green-meadow"})
    dumped = GAME.dump(state)
    assert dumped["options"] == {"variant": "green-meadow", "eaters": "active"}
    assert (dumped["phase"], dumped["to_move"], dumped["blocked"]) == ("blacken", 0, [])
    assert len(GAME.legal_moves(state).moves) == 36  # R-H4: 42 cells less the 6 black corners
    assert refused(state, "A1").code == "blocked"  # a corner cell is black already
    err = refused(state, "C3 C4")
    assert (err.code, err.step) == ("too_many_cells", 1)

    state, events = play(state, "d4")
    assert events == [{"type": "blacken", "player": 0, "cell": "D4"}]
    dumped = GAME.dump(state)
    assert (dumped["phase"], dumped["to_move"], dumped["blocked"], dumped["ply"]) == ("blacken", 1, ["D4"], 1)
    assert refused(state, "D4").code == "blocked"

    state, _ = play(state, "C3")
    dumped = GAME.dump(state)
    assert (dumped["phase"], dumped["to_move"], dumped["blocked"], dumped["ply"]) == ("grow", 0, ["C3", "D4"], 2)
    assert dumped["board"] == {}
    assert len(GAME.legal_moves(state).moves) == 34
    assert refused(state, "D4").code == "blocked"  # blackened cells leave the board for good
    state, events = play(state, "C4")
    assert events[0]["type"] == "grow" and GAME.dump(state)["board"] == {"C4": 0}


def test_green_meadow_adjacency_in_play() -> None:
    # R-H4: (q, r) touches (q+-1, r), (q, r+-1), (q+1, r-1), (q-1, r+1).  Blue's
    # single next to Red's single is eaten exactly when it is one of those six.
    board = green_meadow()
    base = {"variant": "green-meadow", "position": {"D4": 0}, "to_move": 1}
    touching = {"C4", "E4", "D3", "D5", "E3", "C5"}
    for b in board.cells:
        name = board.name(b)
        if name == "D4":
            continue
        state = GAME.new(base)
        verdict = GAME.play(state, name)
        must_eat = not verdict.legal and verdict.error is not None and verdict.error.code == "must_eat"
        assert must_eat == (name in touching), name


# -- R-B3: grow -------------------------------------------------------------------

SEED = """
  X O X
 . O . X
X . . X .
 X O . .
  X O O
"""  # seed 002's example: Red A1; A3 B4 C4; C1 D1 E1.  Blue A2 B2; D2 E2 E3


def test_grow_errors_name_the_rule() -> None:
    state = setup(SEED, to_move=1)
    for move, code in [
        ("C2", "would_merge"),  # touches A2-B2 and D2-E2-E3
        ("C3", "would_merge"),
        ("D3", "too_large"),  # D2-E2-E3 would become 4, the largest bug is 3
        ("D4", "too_large"),
        ("A1", "occupied"),
        ("E3", "occupied"),
    ]:
        err = refused(state, move)
        assert (err.code, err.step) == (code, 0), move
    assert "larger than the largest bug" in refused(state, "D3").message
    assert "C2" in refused(state, "C2").message


def test_blocked_cells_cannot_be_grown_on() -> None:
    state = setup(
        """
          # . .
         . . . .
        . . . . .
         . . . .
          . . .
        """
    )
    err = refused(state, "A1")
    assert (err.code, err.step) == ("blocked", 0)
    assert GAME.dump(state)["blocked"] == ["A1"]
    assert "A1" not in GAME.legal_moves(state).moves


def test_the_size_cap_is_the_largest_bug_at_the_start_of_the_turn() -> None:
    # Red's domino may not grow to 3 while no bug is larger than 2...
    state = setup(
        """
          X X .
         . . . .
        . . . . .
         . . . .
          . O O
        """
    )
    assert refused(state, "A3").code == "too_large"
    assert refused(state, "B1").code == "too_large"
    # ...and may once Blue has a 3-bug (it does not touch Red, so no eat)
    state = setup(
        """
          X X .
         . . . .
        . . . . .
         . . . .
          O O O
        """
    )
    after, events = play(state, "A3")
    assert events[0]["bug"] == ["A1", "A2", "A3"] and len(events) == 1
    assert GAME.dump(after)["largest"] == [3, 3]


def test_spawn_is_never_capped() -> None:
    state = setup(
        """
          X . .
         . . . .
        . . . . .
         . . . .
          . . O
        """
    )
    grows = {m.split()[0] for m in GAME.legal_moves(state).moves}
    # the largest bug is 1, so Red's single may not grow (A2, B1, B2), but a new
    # single may go on any other empty cell
    assert grows == {"A3", "B3", "B4", "C1", "C2", "C3", "C4", "C5", "D1", "D2", "D3", "D4", "E1", "E2"}
    assert refused(state, "B1").code == "too_large"
    # a spawn next to Blue's single (D3, D4, E2) eats it (R-B4)
    assert refused(state, "D4").code == "must_eat"
    assert moves_from(state, "C1") == {"C1"}


# -- R-B4: eat ----------------------------------------------------------------------

THREE_CHAIN = """
   . . . .
  X . . . .
 O . O O O .
. . . . . . .
 # O . . . .
  X O . . .
   . . . .
"""  # side 4.  Blue: C1; E2-F2; C3-C4-C5.  Red guards B1 and F1; E1 is off the board.


def test_a_chain_of_three_eats_in_one_turn() -> None:
    # Red spawns on D1, next to Blue's single C1: eat.  The bonus cannot go on
    # C1 (touches Red's B1) nor E1 (off the board): it goes on D2.  The domino
    # D1-D2 touches Blue's domino E2-F2: eat; E2 touches Red's F1 and C2 touches
    # B1, so the bonus goes on D3.  The straight D1-D2-D3 touches Blue's
    # straight C3-C4-C5: eat; the last bonus may go on C3, D4 or E3.
    state = setup(THREE_CHAIN, side=4)
    assert moves_from(state, "D1") == {"D1 D2 D3 C3", "D1 D2 D3 D4", "D1 D2 D3 E3"}
    after, events = play(state, "D1 D2 D3 D4")
    assert eats(events) == [
        (["D1"], [["C1"]], "D2"),
        (["D1", "D2"], [["E2", "F2"]], "D3"),
        (["D1", "D2", "D3"], [["C3", "C4", "C5"]], "D4"),
    ]
    assert picture(after) == rows(
        """
           . . . .
          X . . . .
         . . . . . .
        X X X X . . .
         # . . . . .
          X . . . .
           . . . .
        """
    )
    assert GAME.dump(after)["scores"] == [6, 0] and GAME.dump(after)["largest"] == [4, 0]


def test_stopping_early_or_going_astray_names_the_step() -> None:
    state = setup(THREE_CHAIN, side=4)
    for move, code, step in [
        ("D1", "must_eat", 1),
        ("D1 D2", "must_eat", 2),
        ("D1 D2 D3", "must_eat", 3),
        ("D1 C1", "bad_bonus", 1),  # would merge with B1
        ("D1 E1", "bad_bonus", 1),  # off the board
        ("D1 D2 E2", "bad_bonus", 2),  # would merge with F1
        ("D1 D2 D3 D4 D5", "no_eat_due", 4),
        ("D1 D2 D3 A1", "bad_bonus", 3),  # does not touch the eating bug
    ]:
        err = refused(state, move)
        assert (err.code, err.step) == (code, step), move
    assert "merge" in refused(state, "D1 C1").message
    assert "C3, D4, E3" in refused(state, "D1 D2 D3 A1").message  # where the bonus may go
    assert "C3 C4 C5" in refused(state, "D1 D2 D3").message  # what must still be eaten


def test_a_chain_of_two_eats() -> None:
    # The same without Blue's 3-bug: after the domino is eaten nothing is left.
    state = setup(THREE_CHAIN.replace("O . O O O .", "O . . . . ."), side=4)
    assert moves_from(state, "D1") == {"D1 D2 D3"}
    after, events = play(state, "D1 D2 D3")
    assert [e[1] for e in eats(events)] == [[["C1"]], [["E2", "F2"]]]
    assert GAME.dump(after)["board"] == {"B1": 0, "F1": 0, "D1": 0, "D2": 0, "D3": 0}
    assert after.to_move == 1 and after.end is None  # Blue has no piece left but can spawn


def test_two_congruent_bugs_are_eaten_at_once_with_one_bonus() -> None:
    state = setup(
        """
          . . .
         . O . .
        . . . . .
         . . O .
          . . .
        """
    )
    # C3 touches both of Blue's singles: both go, and the bug grows by one.
    assert moves_from(state, "C3") == {f"C3 {c}" for c in ("B2", "B3", "C2", "C4", "D2", "D3")}
    after, events = play(state, "C3 D3")
    assert eats(events) == [(["C3"], [["B2"], ["D3"]], "D3")]
    assert GAME.dump(after)["board"] == {"C3": 0, "D3": 0}
    assert refused(state, "C3 D3 B2").code == "no_eat_due"


def test_an_eat_with_no_bonus_cell_does_not_happen() -> None:
    # A1 touches Blue's single A2, but after eating it the bonus could go only on
    # A2 (touches Red's A3-B4: a merge) or B1/B2 (off the board).
    state = setup(
        """
          . O X
         # # . X
        . . . . .
         . . . .
          . . .
        """
    )
    assert "A1" in GAME.legal_moves(state).moves
    assert moves_from(state, "A1") == {"A1"}
    after, events = play(state, "A1")
    assert events[1] == {"type": "eat_refused", "player": 0, "eater": ["A1"], "spared": [["A2"]]}
    assert GAME.dump(after)["board"] == {"A1": 0, "A2": 1, "A3": 0, "B4": 0}  # the opposing bug stays
    err = refused(state, "A1 A2")
    assert (err.code, err.step) == ("no_eat_due", 1)
    assert "does not happen" in err.message


# -- R-B8: eaters: all -------------------------------------------------------------

ALL = """
  X O #
 O . # .
O # . . .
 . . . .
  . . O
"""  # Red A1; Blue A2, B1-C1, E3.  Blue's A2 could not eat A1 (A1 and B2 touch
#     Blue's B1-C1, A3 and B3 are off the board), but Red's A1 can eat A2.


def test_only_the_active_bug_eats_by_default() -> None:
    state = setup(ALL)
    assert moves_from(state, "E2") == {"E2 D2", "E2 D3", "E2 E1", "E2 E3"}
    after, events = play(state, "E2 E1")
    assert eats(events) == [(["E2"], [["E3"]], "E1")]
    assert GAME.dump(after)["board"]["A2"] == 1  # A1 did not eat


def test_with_eaters_all_every_bug_that_can_eat_must() -> None:
    state = setup(ALL, eaters="all")
    err = refused(state, "E2 E1")
    assert (err.code, err.step) == ("must_eat", 2)
    assert "A1" in err.message
    err = refused(state, "E2 C4")
    assert (err.code, err.step) == ("bad_bonus", 1)
    # Every way through eats all three of Blue's bugs: three bonus cells.
    listed = moves_from(state, "E2")
    assert listed and all(len(m.split()) == 4 for m in listed)


def test_with_eaters_all_the_bonus_cell_names_the_eater_and_the_order_is_free() -> None:
    state = setup(ALL, eaters="all")
    final = rows(
        """
          X X #
         X . # .
        . # . . .
         . . . .
          X X .
        """
    )
    for move, expected in [
        ("E2 A2 E1 B1", [(["A1"], [["A2"]], "A2"), (["E2"], [["E3"]], "E1"), (["A1", "A2"], [["B1", "C1"]], "B1")]),
        ("E2 E1 A2 B1", [(["E2"], [["E3"]], "E1"), (["A1"], [["A2"]], "A2"), (["A1", "A2"], [["B1", "C1"]], "B1")]),
        ("E2 A2 B1 E1", [(["A1"], [["A2"]], "A2"), (["A1", "A2"], [["B1", "C1"]], "B1"), (["E2"], [["E3"]], "E1")]),
    ]:
        after, events = play(state, move)
        assert eats(events) == expected, move
        assert picture(after) == final, move


def test_with_eaters_all_bonus_cells_of_one_eater_may_bar_those_of_another() -> None:
    # A1 eats A2 with its bonus on B2, then B1-C1 with its bonus on C3; C3 touches
    # D2 and D3, so E2's bonus after eating E3 may no longer go there (R-B4 merge ban).
    state = setup(ALL, eaters="all")
    err = refused(state, "E2 B2 C3 D2")
    assert (err.code, err.step) == ("bad_bonus", 3)
    assert "merge" in err.message
    _, events = play(state, "E2 B2 C3 E1")
    assert eats(events) == [(["A1"], [["A2"]], "B2"), (["A1", "B2"], [["B1", "C1"]], "C3"), (["E2"], [["E3"]], "E1")]
    # and the other way round: E2's bonus on D2 bars C3 for A1's bug
    assert refused(state, "E2 D2 B2 C3").code == "bad_bonus"
    assert GAME.play(state, "E2 D2 B2 B1").legal


# -- R-B6, R-B7: end and scores ------------------------------------------------------


def test_the_player_who_cannot_grow_wins_at_once() -> None:
    # Two cells left on a side-2 board; after both are taken Red cannot grow.
    state = GAME.new({"size": 2, "blocked": ["A2", "B1", "B2", "B3", "C1"]})
    assert GAME.legal_moves(state).moves == ["A1", "C2"]
    state, _ = play(state, "A1")
    state, events = play(state, "C2")
    assert events[-1] == {"type": "end", "winner": 0, "end": "stuck"}
    dumped = GAME.dump(state)
    assert (dumped["status"], dumped["winner"], dumped["to_move"], dumped["end"]) == ("finished", 0, None, "stuck")
    assert GAME.legal_moves(state).moves == []
    assert refused(state, "A1").code == "game_over"


def test_a_set_up_position_where_the_mover_is_stuck_is_already_over() -> None:
    state = setup(SEED, to_move=0)  # seed 002: "If it's Red's turn, Red wins."
    assert (state.to_move, state.winner, state.end) == (None, 0, "stuck")


def test_scores_are_pieces_on_board_and_largest_bugs() -> None:
    dumped = GAME.dump(setup(SEED, to_move=1))
    assert dumped["scores"] == [7, 5]  # R-B7
    assert dumped["largest"] == [3, 3]


def test_resign_and_flag() -> None:
    state = setup(SEED, to_move=1)
    resigned, events = GAME.resign(state, 1)
    assert (resigned.winner, resigned.end, resigned.to_move) == (0, "resign", None)
    assert events[-1] == {"type": "end", "winner": 0, "end": "resign"}
    flagged, _ = GAME.timeout(state)
    assert (flagged.winner, flagged.end) == (0, "flag")  # R-T1: the player to move flagged and loses
    for done in (resigned, flagged):
        assert GAME.load(GAME.dump(done)) == done
        with pytest.raises(IllegalMove):
            GAME.resign(done, 0)


# -- notation (R-B5, R-H3) ------------------------------------------------------------


def test_notation_is_case_insensitive_with_spaces_or_commas() -> None:
    state = setup(SEED, to_move=1)
    for text in ("b1 b3", "B1,B3", "B1, b3", ["B1", "b3"]):
        verdict = GAME.play(state, text)
        assert verdict.legal and verdict.move == "B1 B3"


def test_unreadable_moves() -> None:
    state = GAME.new({})
    for text, code in [("Z9", "unknown_cell"), ("F1", "unknown_cell"), ("C", "bad_notation"), ("  ", "empty_move")]:
        verdict = GAME.play(state, text)
        assert not verdict.legal and isinstance(verdict.error, InvalidMove)
        assert verdict.error.code == code, text


# -- states: set-up options and validation ----------------------------------------------


def test_new_validates_options() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"variant": "chess"}, "options.variant"),
        ({"eaters": "some"}, "options.eaters"),
        ({"variant": "green-meadow", "size": 3}, "options.size"),
        ({"colour": "red"}, "options.colour"),
        ({"position": {"Z1": 0}}, "options.position.Z1"),
        ({"position": {"C3": 2}}, "options.position.C3"),
        ({"position": {"C3": 0}, "blocked": ["C3"]}, "options.position.C3"),
        ({"blocked": ["C3", "c3"]}, "options.blocked.1"),
        ({"variant": "green-meadow", "blocked": ["A1"]}, "options.blocked.0"),
        ({"variant": "green-meadow", "position": {"A1": 0}}, "options.position.A1"),  # a black corner cell (R-H4)
        ({"to_move": 2, "position": {"C3": 0}}, "options.to_move"),
        # player 0 cannot be to move when player 1, who moved last, has no piece
        ({"position": {"C3": 0}, "to_move": 0}, "options.to_move"),
        ({"to_move": 1}, "options.to_move"),
    ]
    for options, field in cases:
        with pytest.raises(BadOptions) as e:
            GAME.new(options)
        assert e.value.field == field, options


def test_to_move_defaults_from_the_counts() -> None:
    assert GAME.new({"position": {"C3": 0}}).to_move == 1
    assert GAME.new({"position": {"C3": 0, "A1": 1}}).to_move == 0


def test_states_round_trip() -> None:
    for state in [
        GAME.new({}),
        setup(SEED, to_move=1),
        setup(SEED, to_move=0),
        setup(ALL, eaters="all"),
        GAME.play(GAME.new({"variant": "green-meadow"}), "D4").state,
    ]:
        dumped = GAME.dump(state)
        assert GAME.load(dumped) == state
        assert GAME.dump(GAME.load(dumped)) == dumped


def _bad(dumped: dict[str, Any], field: str, **changes: Any) -> None:
    with pytest.raises(BadState) as e:
        GAME.load({**dumped, **changes})
    assert e.value.field == field, changes


def test_load_names_the_offending_field() -> None:
    ok = GAME.dump(setup(SEED, to_move=1))
    board = ok["board"]
    _bad(ok, "state.game", game="catchup")
    _bad(ok, "state.version", version=2)
    _bad(ok, "state.options.size", options={"variant": "genius", "size": 9, "eaters": "active"})
    _bad(ok, "state.options.eaters", options={"variant": "genius", "size": 3, "eaters": "x"})
    _bad(ok, "state.board.F9", board={**board, "F9": 0})
    _bad(ok, "state.board.C5", board={**board, "C5": 3})
    _bad(ok, "state.board.C5", blocked=["C5"], board={**board, "C5": 1})
    _bad(ok, "state.phase", phase="blacken")  # genius has no blacken phase
    _bad(ok, "state.phase", phase="eat")
    _bad(ok, "state.to_move", to_move=None)
    _bad(ok, "state.to_move", to_move=1, status="finished", end="flag", winner=0)  # to_move of a finished game
    _bad(ok, "state.status", status="finished")
    _bad(ok, "state.winner", winner=0)
    _bad(ok, "state.end", end="full")
    _bad(ok, "state.scores", scores=[5, 7])
    _bad(ok, "state.largest", largest=[3, 2])
    _bad(ok, "state.ply", ply=-1)
    _bad(ok, "state.to_move", to_move=1.0)  # JSON integers only: a state must round-trip exactly
    _bad(ok, "state.scores", scores=[7.0, 5])
    _bad(ok, "state.board.A1", board={**board, "A1": True})
    _bad(ok, "state.extra", extra=1)
    # a state spells everything as dumped, so that dump(load(x)) == x
    _bad(ok, "state.board.c4", board={**{k: v for k, v in board.items() if k != "C4"}, "c4": board["C4"]})
    _bad(ok, "state.options.eaters", options={"variant": "genius", "size": 3, "eaters": "Active"})
    _bad(ok, "state.options.variant", options={"variant": "GENIUS", "size": 3, "eaters": "active"})
    without = dict(ok)
    del without["largest"]
    with pytest.raises(BadState) as e:
        GAME.load(without)
    assert e.value.field == "state.largest"


def test_load_refuses_impossible_positions() -> None:
    ok = GAME.dump(setup(SEED, to_move=1))
    # Red to move in the seed's position cannot grow: the game would be over (R-B6)
    _bad(ok, "state.status", to_move=0, ply=ok["ply"] + 1)
    # ...and a finished 'stuck' game is won by the player who cannot grow
    _bad(ok, "state.winner", to_move=None, status="finished", winner=1, end="stuck")
    # a flag falls on the player to move, who cannot be stuck (the game would have ended)
    _bad(ok, "state.end", to_move=None, status="finished", winner=1, end="flag", ply=ok["ply"] + 1)
    # the player who moved last has a piece (a grow leaves one)
    only_red = {"C3": 0, "A1": 0}
    _bad(ok, "state.to_move", board=only_red, scores=[2, 0], largest=[1, 0], to_move=0, ply=ok["ply"] + 1)
    # with eaters: all, no bug of the last mover can still eat (R-B8): Red's A1 could eat A2
    all_ok = GAME.dump(setup(ALL, eaters="all"))
    _bad(all_ok, "state.to_move", to_move=1 - all_ok["to_move"], ply=all_ok["ply"] + 1)


def test_load_checks_the_blacken_phase() -> None:
    start = GAME.dump(GAME.new({"variant": "green-meadow"}))
    after_one = GAME.dump(GAME.play(GAME.new({"variant": "green-meadow"}), "D4").state)
    _bad(start, "state.board", board={"C3": 0}, scores=[1, 0], largest=[1, 0])
    _bad(start, "state.blocked", to_move=1)  # player 1 blackens only after player 0 did
    _bad(after_one, "state.ply", ply=0)
    _bad(after_one, "state.blocked.0", blocked=["A1"])  # a corner cell is the board's own black cell
    _bad(after_one, "state.blocked.0", blocked=["d4"])  # spelt as dumped
    two = GAME.dump(GAME.play(GAME.play(GAME.new({"variant": "green-meadow"}), "D4").state, "C2").state)
    _bad(two, "state.blocked.1", blocked=["D4", "C2"])  # in reading order, as dumped
    _bad(start, "state.options.size", options={"variant": "green-meadow", "eaters": "active", "size": 3})
    assert GAME.load(after_one) == GAME.play(GAME.new({"variant": "green-meadow"}), "D4").state
