"""Bug adjudicated over HTTP: seed 002's worked example move for move, then
the stateless endpoints end to end (set-up positions, verdicts naming the
first wrong step, legal-moves, replay, state validation).

The seed's example, side 3 (R-H1), Red = player 0 (``X``), Blue = player 1
(``O``)::

          X O X          A1 A2 A3
         . O . X        B1 B2 B3 B4
        X . . X .      C1 C2 C3 C4 C5
         X O . .        D1 D2 D3 D4
          X O O          E1 E2 E3

Red: a single on A1, a bent 3-bug A3-B4-C4, a straight 3-bug C1-D1-E1.
Blue: a 2-bug A2-B2, a bent 3-bug D2-E2-E3.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import GameApi

RED = ["A1", "A3", "B4", "C4", "C1", "D1", "E1"]
BLUE = ["A2", "B2", "D2", "E2", "E3"]
SEED_POSITION = {c: 0 for c in RED} | {c: 1 for c in BLUE}

API = GameApi("bug")
post, new, play = API.post, API.new, API.play


def legal(client: FlaskClient, state: dict[str, Any]) -> list[str]:
    answer = post(client, "legal-moves", {"state": state})
    assert answer["count"] == len(answer["moves"]) and answer["truncated"] is False
    moves: list[str] = answer["moves"]
    return moves


def board(red: list[str], blue: list[str]) -> dict[str, int]:
    return {c: 0 for c in red} | {c: 1 for c in blue}


# -- seed 002, the worked example ------------------------------------------------


def test_seed_position_with_red_to_move_red_cannot_grow_and_wins(client: FlaskClient) -> None:
    # "The current largest bug has size 3, so Red cannot grow a bug to size 4 ...
    # playing on B1 would merge two bugs ... Since Red cannot grow, Red wins."
    state = new(client, position=SEED_POSITION, to_move=0)
    assert state["board"] == SEED_POSITION
    assert (state["status"], state["winner"], state["to_move"], state["end"]) == ("finished", 0, None, "stuck")
    assert state["scores"] == [7, 5] and state["largest"] == [3, 3]  # R-B7
    assert legal(client, state) == []
    verdict = play(client, state, "B1")
    assert verdict["legal"] is False and verdict["error"]["code"] == "game_over"


def test_seed_position_blue_has_exactly_four_complete_moves(client: FlaskClient) -> None:
    # "If it's Blue's turn, Blue has 3 legal moves: B1, B3, and C5", and B1 eats
    # Red's bent 3-bug with the bonus on B3 or the vacated A3.
    state = new(client, position=SEED_POSITION, to_move=1)
    assert (state["status"], state["to_move"], state["phase"]) == ("ongoing", 1, "grow")
    assert sorted(legal(client, state)) == ["B1 A3", "B1 B3", "B3", "C5"]


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ("C2", "would_merge"),  # "C2 and C3 would merge the two bugs"
        ("C3", "would_merge"),
        ("D3", "too_large"),  # "D3 and D4 would grow the 3-hex bug into size 4"
        ("D4", "too_large"),
        ("B1", "must_eat"),  # B1 must go on to eat Red's bent 3-bug
        ("B2", "occupied"),
    ],
)
def test_seed_position_blue_wrong_moves(client: FlaskClient, move: str, code: str) -> None:
    state = new(client, position=SEED_POSITION, to_move=1)
    verdict = play(client, state, move)
    assert verdict["legal"] is False
    assert verdict["error"]["code"] == code
    assert verdict["error"]["step"] == (1 if code == "must_eat" else 0)
    assert verdict["state"] == state


def test_seed_blue_b1_b3_eats_and_red_c2_must_continue_with_c3(client: FlaskClient) -> None:
    state = new(client, position=SEED_POSITION, to_move=1)
    verdict = play(client, state, "B1 B3")
    assert verdict["legal"] is True and verdict["move"] == "B1 B3"
    assert verdict["events"] == [
        {"type": "grow", "player": 1, "cell": "B1", "spawn": False, "bug": ["A2", "B1", "B2"]},
        {
            "type": "eat",
            "player": 1,
            "eater": ["A2", "B1", "B2"],
            "eaten": [["A3", "B4", "C4"]],
            "bonus": "B3",
            "bug": ["A2", "B1", "B2", "B3"],
        },
    ]
    state = verdict["state"]
    #       X O .
    #      O O O .
    #     X . . . .
    #      X O . .
    #       X O O
    assert state["board"] == board(["A1", "C1", "D1", "E1"], ["A2", "B1", "B2", "B3", "D2", "E2", "E3"])
    # the set-up position had the ply of the shortest game to it: one grow per piece (13)
    assert (state["to_move"], state["ply"], state["scores"], state["largest"]) == (0, 14, [4, 7], [3, 4])

    # "Red may now play on C2 ... there is only one choice, to C3"
    red_moves = legal(client, state)
    assert [m for m in red_moves if m.startswith("C2")] == ["C2 C3"]
    verdict = play(client, state, "C2")
    assert (verdict["legal"], verdict["error"]["code"], verdict["error"]["step"]) == (False, "must_eat", 1)
    for wrong in ("C2 B1", "C2 B2"):  # "the other two choices, B1 and B2, would merge two bugs together"
        verdict = play(client, state, wrong)
        assert (verdict["legal"], verdict["error"]["code"], verdict["error"]["step"]) == (False, "bad_bonus", 1)
    verdict = play(client, state, "C2 C3")
    assert verdict["legal"] is True
    assert [e["type"] for e in verdict["events"]] == ["grow", "eat"]
    assert verdict["events"][1]["eaten"] == [["A2", "B1", "B2", "B3"]]
    #       X . .
    #      . . . .
    #     X X X . .
    #      X O . .
    #       X O O
    assert verdict["state"]["board"] == board(["A1", "C1", "C2", "C3", "D1", "E1"], ["D2", "E2", "E3"])
    assert verdict["state"]["largest"] == [5, 3]


def test_seed_red_b4_then_blue_c5_eats_nothing(client: FlaskClient) -> None:
    state = play(client, new(client, position=SEED_POSITION, to_move=1), "B1 B3")["state"]
    verdict = play(client, state, "B4")  # "Red can create a new bug on B4"
    assert verdict["legal"] is True
    state = verdict["state"]
    assert state["board"]["B4"] == 0
    # "Blue will then have no way to grow the new bug on C5 ... Blue does not capture."
    assert "C5" in legal(client, state)
    assert not [m for m in legal(client, state) if m.startswith("C5 ")]
    verdict = play(client, state, "C5")
    assert verdict["legal"] is True
    assert verdict["events"][1] == {"type": "eat_refused", "player": 1, "eater": ["C5"], "spared": [["B4"]]}
    assert verdict["state"]["board"]["B4"] == 0 and verdict["state"]["board"]["C5"] == 1
    verdict = play(client, state, "C5 B4")
    assert (verdict["legal"], verdict["error"]["code"], verdict["error"]["step"]) == (False, "no_eat_due", 1)


def test_seed_replay(client: FlaskClient) -> None:
    answer = post(client, "replay", {"options": {"position": SEED_POSITION, "to_move": 1}, "moves": ["B1 B3", "C2 C3", "D3"]})
    assert (answer["valid"], answer["plies"], answer["first_illegal"]) == (True, 3, None)
    assert answer["state"]["board"] == board(["A1", "C1", "C2", "C3", "D1", "E1"], ["D2", "D3", "E2", "E3"])
    answer = post(client, "replay", {"options": {"position": SEED_POSITION, "to_move": 1}, "moves": ["B1 B3", "C2"]})
    assert (answer["valid"], answer["plies"]) == (False, 1)
    assert answer["first_illegal"]["index"] == 1 and answer["first_illegal"]["error"]["code"] == "must_eat"


# -- the rest of the API ------------------------------------------------------------


def test_games_listing_describes_bug(client: FlaskClient) -> None:
    games = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    bug = games["bug"]
    assert set(bug["variants"]) == {"genius", "green-meadow"}  # R-B2
    assert bug["options"]["size"]["default"] == 3 and (bug["options"]["size"]["min"], bug["options"]["size"]["max"]) == (2, 7)
    assert bug["options"]["eaters"]["default"] == "active"


def test_green_meadow_over_http(client: FlaskClient) -> None:
    state = new(client, variant="green-meadow")
    assert (state["phase"], state["to_move"], state["blocked"]) == ("blacken", 0, [])
    assert len(legal(client, state)) == 36
    state = play(client, state, "D4")["state"]
    state = play(client, state, "e2")["state"]
    assert (state["phase"], state["to_move"], state["blocked"]) == ("grow", 0, ["E2", "D4"])
    verdict = play(client, state, "G6")  # a black corner (R-H4)
    assert verdict["error"]["code"] == "blocked"


def test_a_bad_state_is_422_naming_the_field(client: FlaskClient) -> None:
    state = new(client, position=SEED_POSITION, to_move=1)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"board": {**state["board"], "F1": 0}}, "state.board.F1"),
        ({"to_move": 0, "ply": state["ply"] + 1}, "state.status"),  # Red to move cannot grow: the game would be over
        ({"scores": [7, 6]}, "state.scores"),
        ({"phase": "blacken"}, "state.phase"),
    ]
    for changes, field in cases:
        err = post(client, "play", {"state": {**state, **changes}, "move": "C5"}, status=422)["error"]
        assert err["code"] == "bad_state"
        assert err["details"]["field"] == field, changes


def test_bad_options_are_422(client: FlaskClient) -> None:
    for options, field in [({"size": 8}, "options.size"), ({"eaters": "none"}, "options.eaters")]:
        err = post(client, "new", {"options": options}, status=422)["error"]
        assert err["details"]["field"] == field


def test_legal_moves_limit(client: FlaskClient) -> None:
    state = new(client, position=SEED_POSITION, to_move=1)
    answer = post(client, "legal-moves", {"state": state, "limit": 2})
    assert answer == {"moves": ["B1 A3", "B1 B3"], "count": 2, "truncated": True, "complete": True}
