"""Catchup adjudicated over HTTP: the stateless endpoints end to end.

The rules themselves are tested in the engine's tests; these check that the
service carries them faithfully: options and set-up positions reach the
engine, states round-trip through clients, illegal moves come back as
verdicts (200, ``legal: false``, a code and a sentence naming the step),
legal-moves and replay agree with play.  Boards are side 3 (R-H1)::

        A1 A2 A3
      B1 B2 B3 B4
    C1 C2 C3 C4 C5
      D1 D2 D3 D4
        E1 E2 E3
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import GameApi

from engine.hexboard import hexhex

SIDE3 = [hexhex(3).name(b) for b in hexhex(3).cells]

API = GameApi("catchup")
post, new, play = API.post, API.new, API.play


def test_games_listing_describes_catchup(client: FlaskClient) -> None:
    games = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    catchup = games["catchup"]
    assert set(catchup["variants"]) == {"standard", "mindsports", "bolanos"}  # R-C3
    assert catchup["options"]["size"]["default"] == 5  # R-C5
    assert (catchup["options"]["size"]["min"], catchup["options"]["size"]["max"]) == (3, 10)
    assert catchup["options"]["variant"]["default"] == "standard"


def test_new_with_default_options(client: FlaskClient) -> None:
    state = new(client)
    assert state["options"] == {"variant": "standard", "size": 5}
    assert (state["to_move"], state["ply"], state["status"], state["winner"], state["end"]) == (0, 0, "ongoing", None, None)
    assert state["scores"] == [1, 1]  # R-C2: both start at 1
    assert state["board"] == {} and state["max_stones"] == 1  # R-C1: the first turn places one stone
    moves = post(client, "legal-moves", {"state": state})
    assert moves["count"] == 61  # R-H1: side 5 has 61 cells


@pytest.mark.parametrize(("given", "normal"), [("genius", "standard"), ("LittleGolem", "standard"), ("ludii", "mindsports")])
def test_variant_aliases_are_normalised(client: FlaskClient, given: str, normal: str) -> None:
    assert new(client, variant=given, size=7)["options"] == {"variant": normal, "size": 7}


def test_new_sets_up_a_position(client: FlaskClient) -> None:
    """An umpire's diagram: player 0 at C3, player 1 at B2-B3, player 0 to move
    with the bonus (player 1 just reached 2, ahead of 1: R-C3 standard)."""
    state = new(client, size=3, position={"c3": 0, "B2": 1, "B3": 1}, blocked=["E3"], to_move=0, bonus=True)
    assert state["board"] == {"B2": 1, "B3": 1, "C3": 0}
    assert state["blocked"] == ["E3"]
    assert state["scores"] == [1, 2]
    assert (state["to_move"], state["bonus"], state["max_stones"]) == (0, True, 3)
    verdict = play(client, state, "C2 C4 D3")
    assert verdict["legal"] is True
    assert verdict["state"]["scores"] == [4, 2]  # C2-C3-C4-D3 is one group
    # The blocked cell is no cell to play.
    assert "E3" not in post(client, "legal-moves", {"state": verdict["state"]})["moves"]
    illegal = play(client, verdict["state"], "E3")
    assert illegal["legal"] is False and illegal["error"]["code"] == "blocked"


def test_a_legal_move_and_its_events(client: FlaskClient) -> None:
    state = new(client, size=3)
    verdict = play(client, state, "c3")
    assert verdict["legal"] is True
    assert verdict["move"] == "C3"  # R-H3: output is upper case
    after = verdict["state"]
    assert after["board"] == {"C3": 0}
    assert (after["to_move"], after["ply"], after["max_stones"]) == (1, 1, 2)
    assert verdict["events"][0] == {"type": "place", "player": 0, "cells": ["C3"]}
    # The structured form of a move is the same move.
    assert play(client, state, ["c3"])["state"] == after
    # And the new state, handed back, is accepted as it is.
    assert play(client, after, "B2, B3")["move"] == "B2 B3"


def assert_illegal(verdict: dict[str, Any], state: dict[str, Any], code: str, step: int | None, *words: str) -> None:
    """An illegal move: 200 with ``legal: false``, the code, one sentence naming
    the step, and the state unchanged."""
    assert verdict["legal"] is False
    assert verdict["state"] == state
    assert "move" not in verdict and verdict["events"] == []  # one verdict shape: an illegal move has no events
    error = verdict["error"]
    assert error["code"] == code
    assert error.get("step") == step
    message = error["message"]
    assert message.endswith(".") and message.count(". ") == 0, message  # one sentence
    for word in words:
        assert word in message, message


def test_illegal_moves_are_verdicts_with_a_code_and_a_sentence(client: FlaskClient) -> None:
    s0 = new(client, size=3)
    # R-C1: the first turn places exactly one stone; the second stone is the wrong step.
    assert_illegal(play(client, s0, "C3 C2"), s0, "too_many_stones", 1, "first turn")
    assert_illegal(play(client, s0, "F1"), s0, "unknown_cell", 0, "F1")
    assert_illegal(play(client, s0, "hello"), s0, "bad_notation", 0, "hello")
    s1 = play(client, s0, "C3")["state"]
    assert_illegal(play(client, s1, "A1 C3"), s1, "occupied", 1, "C3")
    assert_illegal(play(client, s1, "A1 a1"), s1, "duplicate_cell", 1, "A1")
    # R-C1: without the bonus a turn places at most 2.
    assert_illegal(play(client, s1, "A1 A2 A3"), s1, "too_many_stones", 2, "at most 2")


def test_play_on_a_finished_game(client: FlaskClient) -> None:
    """A full board is a finished game (R-C4); no move is legal on it."""
    cells = SIDE3
    position = {c: i % 2 for i, c in enumerate(cells)}  # 10 stones of player 0, 9 of player 1
    state = new(client, size=3, position=position)
    assert (state["status"], state["to_move"], state["end"]) == ("finished", None, "full")
    assert state["winner"] in (0, 1)
    assert_illegal(play(client, state, "A1"), state, "game_over", None, "over")
    assert post(client, "legal-moves", {"state": state})["moves"] == []


def test_legal_moves_lists_the_empty_cells(client: FlaskClient) -> None:
    state = play(client, new(client, size=3), "C3")["state"]
    moves = post(client, "legal-moves", {"state": state})
    assert moves["moves"] == [c for c in SIDE3 if c != "C3"]
    assert (moves["count"], moves["truncated"], moves["max_stones"], moves["bonus"]) == (18, False, 2, False)
    first = post(client, "legal-moves", {"state": state, "limit": 4})
    assert first["moves"] == moves["moves"][:4] and first["count"] == 4 and first["truncated"] is True
    # Every listed cell is a legal one-stone move, and no other cell is.
    for cell in SIDE3:
        assert play(client, state, cell)["legal"] is (cell in moves["moves"])


def test_complete_legal_moves_are_whole_turns(client: FlaskClient) -> None:
    """``complete: true``: every turn of 1 or 2 stones (R-C1), each set of cells
    once in reading order; 18 + 18 * 17 / 2 after the opening stone; the plain
    list says it is not complete, since a turn may place two of its cells."""
    state = play(client, new(client, size=3), "C3")["state"]
    assert post(client, "legal-moves", {"state": state})["complete"] is False
    every = post(client, "legal-moves", {"state": state, "complete": True, "limit": 1000})
    assert (every["count"], every["truncated"], every["complete"], every["max_stones"]) == (18 + 153, False, True, 2)
    assert every["moves"][:3] == ["A1", "A2", "A3"] and every["moves"][18:20] == ["A1 A2", "A1 A3"]
    assert all(play(client, state, m)["legal"] for m in every["moves"][::7])
    cut = post(client, "legal-moves", {"state": state, "complete": True, "limit": 20})
    assert cut["moves"] == every["moves"][:20] and cut["truncated"] is True
    default = post(client, "legal-moves", {"state": state, "complete": True})
    assert default["moves"] == every["moves"]  # under the 1000 a complete list holds without a limit
    steps = post(client, "legal-moves", {"state": state, "complete": True, "prefix": ["A1"]})
    assert steps["prefix"] == ["A1"] and steps["complete"] is True and "A2" in steps["steps"]  # a prefix asks for steps


def test_complete_legal_moves_without_a_limit_stop_at_1000(client: FlaskClient) -> None:
    # R-C3: with the bonus, 3 stones: far more than 1000 turns on a side-5 board
    state = new(client, size=5, position={"E5": 0, "D4": 1, "D5": 1}, bonus=True, to_move=0)
    listed = post(client, "legal-moves", {"state": state, "complete": True})
    assert (listed["count"], listed["truncated"], listed["max_stones"]) == (1000, True, 3)


GAME = ["C3", "B2 B3", "C2 C4 D3", "A1 A2"]


def test_replay_of_a_valid_record_equals_playing_it(client: FlaskClient) -> None:
    state = new(client, size=3)
    for move in GAME:
        verdict = play(client, state, move)
        assert verdict["legal"], verdict
        state = verdict["state"]
    result = post(client, "replay", {"options": {"size": 3}, "moves": GAME})
    # ... and its announcements are the last move's, as play gave them
    said = verdict["announcements"]
    assert said and result == {
        "valid": True,
        "plies": 4,
        "first_illegal": None,
        "state": state,
        "move": verdict["move"],
        "announcements": said,
    }


def test_replay_stops_at_the_first_illegal_move(client: FlaskClient) -> None:
    moves = [*GAME[:2], "A1 C3", "E1", "E2"]  # index 2 puts a stone on C3 again
    result = post(client, "replay", {"options": {"size": 3}, "moves": moves})
    assert result["valid"] is False and result["plies"] == 2
    assert result["first_illegal"]["index"] == 2
    assert result["first_illegal"]["error"]["code"] == "occupied"
    assert result["first_illegal"]["error"]["step"] == 1
    # The state is the position before the illegal move.
    assert result["state"] == post(client, "replay", {"options": {"size": 3}, "moves": GAME[:2]})["state"]


def test_replay_of_no_moves_is_the_new_state(client: FlaskClient) -> None:
    result = post(client, "replay", {"options": {"size": 4, "variant": "bolanos"}, "moves": []})
    state = new(client, size=4, variant="bolanos")
    assert result == {"valid": True, "plies": 0, "first_illegal": None, "state": state, "move": None, "announcements": []}


def test_a_whole_game_to_the_end_over_http(client: FlaskClient) -> None:
    """Fill a side-3 board one legal-moves answer at a time; the game ends when
    it is full (R-C4) with a winner, and the replay of the record agrees."""
    state = new(client, size=3)
    record = []
    while state["status"] == "ongoing":
        listing = post(client, "legal-moves", {"state": state})
        move = " ".join(listing["moves"][: listing["max_stones"]])
        verdict = play(client, state, move)
        assert verdict["legal"], verdict
        record.append(verdict["move"])
        state = verdict["state"]
    assert state["end"] == "full" and state["to_move"] is None and len(state["board"]) == 19
    assert state["winner"] in (0, 1)
    assert verdict["events"][-1]["type"] == "end"
    assert post(client, "replay", {"options": {"size": 3}, "moves": record})["state"] == state
