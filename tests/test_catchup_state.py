"""Catchup states as JSON: set-up positions through ``new`` (API.md
``options.position``, ``blocked``, ``to_move``, ``bonus``) and a client's state
checked field by field by ``load`` - every impossible state is a BadState
naming the field, never trusted."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.errors import BadOptions, BadState
from engine.games.catchup.rules import Catchup, CatchupState, counts_feasible

GAME = Catchup()


def played(*moves: str, **options: Any) -> dict[str, Any]:
    state = GAME.new(options)
    for move in moves:
        verdict = GAME.play(state, move)
        assert verdict.legal, verdict.error
        state = verdict.state
    return GAME.dump(state)


# Red E5; Blue D4 D5 (2); Red E4 E6 (3, leading 3-2); Blue to move with the bonus.
ONGOING = ("E5", "D4 D5", "E4 E6")


def test_a_dumped_state_has_the_api_fields() -> None:
    data = played(*ONGOING)
    assert data == {
        "game": "catchup",
        "version": 1,
        "options": {"variant": "standard", "size": 5},
        "status": "ongoing",
        "to_move": 1,
        "ply": 3,
        "winner": None,
        "end": None,
        "scores": [3, 2],
        "board": {"D4": 1, "D5": 1, "E4": 0, "E5": 0, "E6": 0},
        "blocked": [],
        "bonus": True,
        "max_stones": 3,
    }


@pytest.mark.parametrize("end", ["resign", "flag", "full", None])
def test_states_round_trip_exactly(end: str | None) -> None:
    state = GAME.load(played(*ONGOING))
    if end == "resign":
        state, _ = GAME.resign(state, 0)
    elif end == "flag":
        state, _ = GAME.timeout(state)
    elif end == "full":
        state = alternating_full_board()
    data = GAME.dump(state)
    again = json.loads(json.dumps(data))
    assert GAME.load(again) == state
    assert GAME.dump(GAME.load(again)) == data
    assert data["end"] == end


def alternating_full_board() -> CatchupState:
    """Side 3 filled in reading order, players alternating: 10 stones against 9."""
    cells = GAME.legal_moves(GAME.new({"size": 3})).moves
    return GAME.new({"size": 3, "position": {c: i % 2 for i, c in enumerate(cells)}})


# -- load: one broken field at a time -------------------------------------


def broken(change: Callable[[dict[str, Any]], None], base: tuple[str, ...] = ONGOING) -> str:
    data = copy.deepcopy(played(*base))
    change(data)
    with pytest.raises(BadState) as err:
        GAME.load(data)
    return err.value.field


def setter(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[key] = value

    return change


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("game", "bug", "state.game"),
        ("version", 2, "state.version"),
        ("options", {"variant": "standard", "size": 11}, "state.options.size"),
        ("options", {"variant": "go", "size": 5}, "state.options.variant"),
        ("options", {"variant": "standard", "size": 5, "komi": 6}, "state.options.komi"),
        ("ply", -1, "state.ply"),
        ("ply", "3", "state.ply"),
        ("status", "finished", "state.status"),
        ("to_move", None, "state.to_move"),
        ("to_move", True, "state.to_move"),
        ("winner", 0, "state.winner"),
        ("end", "full", "state.end"),  # the board is not full
        ("end", "checkmate", "state.end"),
        ("scores", [2, 2], "state.scores"),  # player 0's largest group is 3 (R-C2)
        ("scores", [3], "state.scores"),
        ("bonus", "yes", "state.bonus"),
        ("max_stones", 2, "state.max_stones"),
        ("blocked", ["Z9"], "state.blocked.0"),
        ("board", [], "state.board"),
        ("colour", "red", "state.colour"),
    ],
)
def test_a_wrong_field_is_named(key: str, value: Any, field: str) -> None:
    assert broken(setter(key, value)) == field


@pytest.mark.parametrize(
    ("key", "value"),
    [("version", 1.0), ("to_move", 1.0), ("scores", [3.0, 2]), ("max_stones", 3.0), ("to_move", True)],
)
def test_numbers_are_json_integers(key: str, value: Any) -> None:
    # Equal to the right value but not a JSON integer: refused, so that a state
    # round-trips to the same JSON text (and 1.0 never reaches a tuple index).
    assert broken(setter(key, value)) == f"state.{key}"


def test_a_winner_is_a_json_integer() -> None:
    resigned = GAME.dump(GAME.resign(GAME.load(played(*ONGOING)), 0)[0])
    with pytest.raises(BadState) as err:
        GAME.load({**resigned, "winner": 1.0})
    assert err.value.field == "state.winner"
    full = GAME.dump(alternating_full_board())
    with pytest.raises(BadState) as err:
        GAME.load({**full, "winner": float(full["winner"])})
    assert err.value.field == "state.winner"


def test_a_missing_field_is_named() -> None:
    assert broken(lambda d: d.pop("max_stones")) == "state.max_stones"
    assert broken(lambda d: d.pop("end")) == "state.end"


def test_unknown_cell_on_the_board() -> None:
    assert broken(lambda d: d["board"].update({"Z9": 0})) == "state.board.Z9"
    assert broken(lambda d: d["board"].update({"A6": 0})) == "state.board.A6"  # row A has 5 cells


def test_a_cell_holds_player_0_or_1() -> None:
    assert broken(lambda d: d["board"].update({"A1": 2})) == "state.board.A1"
    # JSON integers only: 1.0 and true are not players (a state must round-trip exactly)
    assert broken(lambda d: d["board"].update({"A1": 1.0})) == "state.board.A1"
    assert broken(lambda d: d["board"].update({"A1": True})) == "state.board.A1"


def test_a_stone_on_a_blocked_cell() -> None:
    def change(d: dict[str, Any]) -> None:
        d["blocked"] = ["E5"]

    assert broken(change) == "state.board.E5"


def test_a_to_move_that_contradicts_the_stone_counts() -> None:
    # R-C1: player 0 opens with one stone, so with 1 stone each player 0 is to move
    assert broken(setter("to_move", 1), ("E5", "A1")) == "state.to_move"
    # 4 stones of player 1 against 1 of player 0 fits no sequence of turns at all
    assert broken(lambda d: d["board"].update({"I1": 1, "I2": 1, "I3": 1}), ("E5", "A1")) == "state.board"


def test_count_messages_say_stone_for_one() -> None:
    with pytest.raises(BadOptions) as err:
        GAME.new({"position": {"E5": 0, "A1": 1}, "to_move": 1})
    assert err.value.field == "options.to_move"
    assert "with 1 stone of player 0 and 1 of player 1" in err.value.message
    with pytest.raises(BadOptions) as err:
        GAME.new({"position": {"E5": 0, "A1": 1, "A2": 1, "A3": 1, "A4": 1}})
    assert err.value.field == "options.position"
    assert "No game reaches 1 stone of player 0 and 4 of player 1" in err.value.message
    with pytest.raises(BadOptions) as err:
        GAME.new({"position": {"A1": 1, "A2": 1}})
    assert "No game reaches 0 stones of player 0 and 2 of player 1" in err.value.message


def test_count_messages_give_the_variant_s_turn_sizes() -> None:  # R-C1, R-C3 bolanos: no 3-stone turns
    position = {"E5": 0, "A1": 1, "A2": 1, "A3": 1, "A4": 1, "A5": 1}  # player 1's 5 stones after 1 of player 0
    with pytest.raises(BadOptions) as err:
        GAME.new({"variant": "bolanos", "position": position})
    assert err.value.message.endswith("turns alternate, 1 or 2 stones each (R-C1, R-C3 bolanos).")
    assert "1 to 3" not in err.value.message
    with pytest.raises(BadOptions) as err:
        GAME.new({"variant": "standard", "position": position})
    assert err.value.message.endswith("turns alternate, 1 to 3 stones each (R-C1).")


def test_a_bonus_nobody_earned() -> None:
    # after E5 / A1 A2 (player 1 leads 1-2) player 0 may place 3; player 1 may not
    assert GAME.load(played("E5", "A1 A2")).bonus
    assert broken(setter("bonus", False), ("E5", "A1 A2")) == "state.max_stones"
    assert broken(lambda d: d.update(bonus=True, max_stones=3), ("E5", "A1 A2", "A5")) == "state.bonus"  # 1-2: nobody led
    assert broken(lambda d: d.update(bonus=True, max_stones=3), ("E5",)) == "state.bonus"  # 1 stone never leads


def test_a_finished_state_must_be_consistent() -> None:
    resigned = GAME.dump(GAME.resign(GAME.load(played(*ONGOING)), 1)[0])
    assert resigned["winner"] == 0

    def load(data: dict[str, Any]) -> str:
        with pytest.raises(BadState) as err:
            GAME.load(data)
        return err.value.field

    assert load({**resigned, "winner": None}) == "state.winner"
    assert load({**resigned, "to_move": 1}) == "state.to_move"
    assert load({**resigned, "status": "ongoing"}) == "state.status"
    assert load({**resigned, "bonus": True}) == "state.bonus"
    assert load({**resigned, "max_stones": 3}) == "state.max_stones"


def test_a_flag_falls_on_the_player_to_move() -> None:
    # With one stone each, player 0 is to move (R-C1), so only player 0 can have
    # flagged and only player 1 can have won by it.
    flagged = GAME.dump(GAME.timeout(GAME.load(played("E5", "A1")))[0])
    assert (flagged["end"], flagged["winner"]) == ("flag", 1)
    assert GAME.load(flagged).winner == 1
    with pytest.raises(BadState) as err:
        GAME.load({**flagged, "winner": 0})
    assert err.value.field == "state.board"
    assert GAME.load({**flagged, "winner": 0, "end": "resign"}).winner == 0  # a seat may resign at any time


def test_a_full_board_must_say_so() -> None:
    full = GAME.dump(alternating_full_board())
    assert (full["end"], full["status"], full["to_move"]) == ("full", "finished", None)
    with pytest.raises(BadState) as err:
        GAME.load({**full, "end": "resign"})
    assert err.value.field == "state.end"
    with pytest.raises(BadState) as err:
        GAME.load({**full, "winner": 1 - full["winner"]})
    assert err.value.field == "state.winner"


def test_a_state_spells_cells_and_variant_as_dumped() -> None:
    # Options may say e5, blocked cells in any order, or a variant's alias; a
    # state is what the server gave out, so it reads back only in that exact
    # form (dump(load(x)) == x).
    assert broken(lambda d: d["board"].update({"e4": d["board"].pop("E4")})) == "state.board.e4"
    assert broken(setter("blocked", ["a1"]), base=()) == "state.blocked.0"
    assert broken(setter("blocked", ["B1", "A1"]), base=()) == "state.blocked.1"  # reading order: A1 before B1
    assert broken(setter("options", {"variant": "genius", "size": 5})) == "state.options.variant"  # an alias
    assert broken(setter("options", {"variant": "Standard", "size": 5})) == "state.options.variant"
    assert broken(setter("options", {"variant": "standard"})) == "state.options.size"
    assert broken(setter("options", {"size": 5})) == "state.options.variant"
    GAME.load({**played(), "blocked": ["A1", "B1"]})  # in reading order: fine


# -- set-up positions through new ------------------------------------------


def test_set_up_position_with_blocked_cells_to_move_and_bonus() -> None:
    state = GAME.new({"position": {"E5": 0, "E6": 0, "d4": 1}, "blocked": ["A1", "i5"], "to_move": 1, "bonus": True})
    data = GAME.dump(state)
    assert data["board"] == {"D4": 1, "E5": 0, "E6": 0}
    assert data["blocked"] == ["A1", "I5"]
    # the ply of the shortest game to the position: player 0's turns E5, E6 and player 1's D4
    assert (data["to_move"], data["bonus"], data["max_stones"], data["scores"], data["ply"]) == (1, True, 3, [2, 1], 3)
    assert GAME.load(data) == state
    assert GAME.play(state, "A1").error.code == "blocked"  # type: ignore[union-attr]


def test_set_up_to_move_defaults_to_the_player_with_fewer_stones() -> None:
    assert GAME.new({"position": {"E5": 0}}).to_move == 1
    assert GAME.new({"position": {"E5": 0, "A1": 1}}).to_move == 0
    assert GAME.new({"position": {"E5": 0, "A1": 1, "A2": 1, "E6": 0, "E7": 0}}).to_move == 1


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"position": {"Z9": 0}}, "options.position.Z9"),
        ({"position": {"E5": 3}}, "options.position.E5"),
        ({"position": {"E5": 0}, "blocked": ["E5"]}, "options.position.E5"),
        ({"position": {"E5": 0, "e5": 1}}, "options.position.e5"),
        ({"blocked": "E5"}, "options.blocked"),
        ({"blocked": ["E5", "E5"]}, "options.blocked.1"),
        ({"position": []}, "options.position"),
        ({"to_move": 1}, "options.to_move"),  # an empty board: player 0 opens
        ({"to_move": 2}, "options.to_move"),
        ({"position": {"E5": 0}, "to_move": 0}, "options.to_move"),
        ({"position": {"A1": 1, "A2": 1, "A3": 1, "A4": 1}}, "options.position"),
        ({"bonus": True}, "options.bonus"),  # the first turn places one stone
        ({"position": {"E5": 0, "E6": 0, "D4": 1, "A1": 1}, "bonus": True}, "options.bonus"),  # player 0 to move leads
        ({"variant": "bolanos", "position": {"E5": 0, "E6": 0, "D4": 1}, "to_move": 1, "bonus": True}, "options.bonus"),
        ({"bonus": "no"}, "options.bonus"),
        ({"colour": "red"}, "options.colour"),
    ],
)
def test_bad_set_up_options_are_named(options: dict[str, Any], field: str) -> None:
    with pytest.raises(BadOptions) as err:
        GAME.new(options)
    assert err.value.field == field


# -- stone counts (R-C1) -----------------------------------------------------


def reachable_counts(variant: str, turns: int) -> set[tuple[int, int, int]]:
    """Every (c0, c1, to_move) reached by enumerating turn sizes: player 0 opens
    with 1, player 1's first turn has no bonus (1-2), later turns 1-3 (bolanos 1-2)."""
    most = 2 if variant == "bolanos" else 3
    seen = {(0, 0, 0)}
    frontier = {(0, 0, 0, 0)}  # c0, c1, to_move, turns made
    for _ in range(turns):
        nxt = set()
        for c0, c1, p, t in frontier:
            top = 1 if t == 0 else 2 if t == 1 else most
            for k in range(1, top + 1):
                state = (c0 + k, c1, 1, t + 1) if p == 0 else (c0, c1 + k, 0, t + 1)
                nxt.add(state)
                seen.add(state[:3])
        frontier = nxt
    return seen


@pytest.mark.parametrize("variant", ["standard", "bolanos"])
def test_counts_feasible_matches_an_enumeration_of_turns(variant: str) -> None:
    reached = reachable_counts(variant, 14)
    for c0 in range(12):
        for c1 in range(12):
            for p in (0, 1):
                assert counts_feasible(variant, c0, c1, p) == ((c0, c1, p) in reached), (c0, c1, p)


def test_options_take_whole_numbers_written_with_a_point() -> None:
    """JSON Schema (so the spec) counts 5.0 as the integer 5: options read it so; a state, read strictly, does not."""
    state = GAME.new({"size": 5.0, "position": {"E5": 0.0, "D4": 1.0}, "to_move": 0.0})
    data = GAME.dump(state)
    assert (data["options"]["size"], data["board"], data["to_move"]) == (5, {"D4": 1, "E5": 0}, 0)
    with pytest.raises(BadState) as e:
        GAME.load({**data, "ply": float(data["ply"])})
    assert e.value.field == "state.ply"


@pytest.mark.parametrize(
    ("board", "to_move", "plies"),
    [
        ({}, 0, (0, 0)),
        ({"E5": 0}, 1, (1, 1)),
        ({"E5": 0, "D4": 1, "D5": 1}, 0, (2, 2)),  # 1, then 2
        ({"E5": 0, "D4": 1, "D5": 1, "A1": 0, "A2": 0, "A3": 0}, 1, (3, 5)),  # 1+3 or 1+1+1+1 against 2 or 1+1
    ],
)
def test_ply_lies_between_the_fewest_turns_and_one_per_stone(board: dict[str, int], to_move: int, plies: tuple[int, int]) -> None:
    """R-C1: a ply is a turn; the stones bound it (ply_range), and a set-up position starts at the least."""
    from engine.games.catchup.rules import ply_range

    c0 = sum(1 for v in board.values() if v == 0)
    c1 = len(board) - c0
    assert ply_range("standard", c0, c1, to_move) == plies
    options: dict[str, Any] = {"position": board, "to_move": to_move}
    data = GAME.dump(GAME.new(options))
    assert data["ply"] == plies[0]
    lo, hi = plies
    for ply in range(0, hi + 4):
        changed = {**data, "ply": ply}
        if lo <= ply <= hi and ply % 2 == to_move:
            assert GAME.load(changed).ply == ply
        else:
            with pytest.raises(BadState) as e:
                GAME.load(changed)
            assert e.value.field == ("state.to_move" if ply % 2 != to_move else "state.ply")


def test_an_edited_to_move_cannot_let_a_player_move_twice() -> None:
    """The trial's hole: C3 then B2 B3, and player 1 edits to_move to move again.  The
    stone counts alone allowed it (1 against 2 fits either player to move); the ply's
    parity does not: turns alternate from player 0."""
    state = GAME.play(GAME.play(GAME.new({"size": 3}), "C3").state, "B2 B3").state
    data = GAME.dump(state)
    assert (data["ply"], data["to_move"]) == (2, 0)
    with pytest.raises(BadState) as e:
        GAME.load({**data, "to_move": 1, "bonus": False, "max_stones": 2})
    assert e.value.field == "state.to_move"
    # editing the ply along with it describes another game, one the stones rule out
    with pytest.raises(BadState) as e:
        GAME.load({**data, "to_move": 1, "ply": 3, "bonus": False, "max_stones": 2})
    assert e.value.field == "state.to_move"


def test_huge_and_impossible_plies_are_refused() -> None:
    one = GAME.dump(GAME.play(GAME.new({"size": 3}), "C3").state)
    for ply, field in ((57, "state.ply"), (10**30, "state.ply"), (-1, "state.ply"), (True, "state.ply")):
        with pytest.raises(BadState) as e:
            GAME.load({**one, "ply": ply})
        assert e.value.field == field, ply


def test_a_resignations_ply_whose_parity_no_game_reaches_is_named() -> None:
    """Found by tests/test_fuzz_states.py: 2 stones of player 0 and 4 of player 1 are reached only with
    player 0 next, but ply 5 has player 1 next; the check asserted (a 500) instead of naming state.ply (R-C1)."""
    state = {
        "game": "catchup", "version": 1, "options": {"variant": "standard", "size": 5}, "status": "finished",
        "to_move": None, "ply": 5, "winner": 0, "end": "resign", "scores": [1, 1],
        "board": {"C7": 0, "D1": 0, "D6": 1, "E1": 1, "G4": 1, "G7": 1}, "blocked": [], "bonus": False, "max_stones": 0,
    }  # fmt: skip
    with pytest.raises(BadState) as found:
        GAME.load(state)
    assert found.value.field == "state.ply" and "ply 5 has player 1 to move" in str(found.value)
