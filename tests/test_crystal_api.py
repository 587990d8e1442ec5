"""Crystal Connector adjudicated over HTTP (API.md): a whole game from the draft
to the threshold with anomalies, the seed's example, verdicts and their
events, legal-moves, replay, and states checked field by field.

Every answer also passes the ``client`` fixture's openapi.yaml check.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import GameApi

SEED_EXAMPLE = ["RRRRBG", "RYYRGB", "RBYGGY", "BGYGBR", "YBBGYR", "GYGBYB"]  # see tests/test_crystal.py
COLORS = [["red", "green"], ["blue", "yellow"]]

API = GameApi("crystal")
post, new, play = API.post, API.new, API.play


def reverse(shift: str) -> str:
    file, direction, amount = shift.split()
    back = {"up": "down", "down": "up", "left": "right", "right": "left"}[direction]
    return f"{file} {back} {amount}"


def test_games_lists_crystal_with_its_anomalies(client: FlaskClient) -> None:
    games = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    assert games["crystal"]["title"] == "Crystal Connector"
    assert set(games["crystal"]["options"]["anomalies"]["choices"]) == {
        "bombs",
        "color-convertor",
        "chameleons",
        "pylons",
        "rocks",
        "shift-plus",
        "spikes",
    }


def test_seed_example_over_http(client: FlaskClient) -> None:  # R-X3
    state = new(client, grid=SEED_EXAMPLE, colors=COLORS, first=0)
    verdict = play(client, state, "A up 2, A up 2, A up 2")  # column A all the way round
    assert verdict["legal"] is True
    assert verdict["state"]["scores"] == [35, 8]
    scores = [e for e in verdict["events"] if e["type"] == "score"]
    assert scores == [
        {"type": "score", "player": 0, "largest": {"red": 7, "green": 5}, "points": 35, "total": 35},
        {"type": "score", "player": 1, "largest": {"blue": 2, "yellow": 4}, "points": 8, "total": 8},
    ]


def test_a_whole_game_from_draft_to_threshold(client: FlaskClient) -> None:  # R-X1..R-X5
    anomalies = ["rocks", "spikes", "shift-plus", "pylons"]
    state = new(client, seed="http game", anomalies=anomalies)
    assert (state["phase"], state["to_move"], state["threshold"], state["seed"]) == ("pick_order", 0, 300, "http game")
    for move, phase in (("first", "pick_one"), ("yellow", "pick_two"), ("red, blue", "move_order"), ("second", "shift")):
        assert post(client, "legal-moves", {"state": state})["count"] in (2, 3, 4)
        verdict = play(client, state, move)
        assert verdict["legal"] is True and verdict["state"]["phase"] == phase
        state = verdict["state"]
    assert state["colors"] == [["green", "yellow"], ["red", "blue"]]
    assert (state["first"], state["to_move"]) == (0, 0)
    record = ["first", "yellow", "blue red", "second"]
    turn = 0
    while state["status"] == "ongoing":
        listing = post(client, "legal-moves", {"state": state})
        assert listing["shifts_due"] == state["shifts_due"]
        assert not any(m.split()[0] in state["barred"] for m in listing["moves"])
        first = listing["moves"][(turn * 37) % listing["count"]]
        # first shift, then back and forth: every shift is legal on the grid it meets
        shifts = [first if i % 2 == 0 else reverse(first) for i in range(state["shifts_due"])]
        verdict = play(client, state, ", ".join(shifts))
        assert verdict["legal"] is True, verdict
        assert verdict["state"]["scores"][0] >= state["scores"][0] and verdict["state"]["scores"][1] >= state["scores"][1]
        record.append(verdict["move"])
        state = verdict["state"]
        turn += 1
        assert turn < 400
    assert (state["end"], state["to_move"]) == ("threshold", None)
    assert max(state["scores"]) >= 300 and state["winner"] == state["scores"].index(max(state["scores"]))
    assert post(client, "legal-moves", {"state": state})["moves"] == []
    replayed = post(client, "replay", {"options": {"seed": "http game", "anomalies": anomalies}, "moves": record})
    assert (replayed["valid"], replayed["plies"], replayed["first_illegal"]) == (True, len(record), None)
    assert replayed["state"] == state


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ("C up 2, 2 right 3", "wrong_shift_count"),
        ("C left 2, 2 right 3, A down 1", "bad_shift"),
        ("convert C4; C up 2, 2 right 3, A down 1", "no_convertor"),
        ("red", "wrong_phase"),
        (["C up 2", "2 right 3", "A down 1", "B up 1"], "wrong_shift_count"),
    ],
)
def test_illegal_moves_are_verdicts(client: FlaskClient, move: Any, code: str) -> None:
    state = new(client, grid=SEED_EXAMPLE, colors=COLORS, first=0)
    verdict = play(client, state, move)
    assert verdict["legal"] is False
    assert verdict["error"]["code"] == code
    assert verdict["state"] == state


def test_barred_file_over_http(client: FlaskClient) -> None:  # R-X2
    state = new(client, grid=SEED_EXAMPLE, colors=COLORS, first=0)
    state = play(client, state, "C up 2, 2 right 3, A down 1")["state"]
    assert state["barred"] == ["A", "C", "2"]
    verdict = play(client, state, "D up 1, 2 left 3, D down 1")
    assert verdict["error"] == {
        "code": "not_your_file",
        "message": "'2 left 3' moves row 2, which your opponent shifted on their last turn.",
        "step": 1,
        "rule": "R-X2",
    }


def test_conversion_over_http(client: FlaskClient) -> None:  # R-X5 color-convertor
    state = new(client, grid=SEED_EXAMPLE, colors=COLORS, first=0, anomalies=["color-convertor"])
    listing = post(client, "legal-moves", {"state": state})
    assert "convert F1" in listing["converts"] and "convert E1" not in listing["converts"]
    # Player 0 holds red and green: F1 (green) may turn red, E1 (blue) is not theirs.
    verdict = play(client, state, "convert f1; A up 2, A up 2, A up 2")
    assert verdict["move"] == "convert F1; A up 2, A up 2, A up 2"
    assert verdict["state"]["board"][0] == "RRRRBR"
    verdict = play(client, state, "convert E1; A up 2, A up 2, A up 2")
    assert verdict["error"]["code"] == "not_your_colour"


def test_replay_names_the_first_illegal_move(client: FlaskClient) -> None:
    options = {"grid": SEED_EXAMPLE, "colors": COLORS, "first": 1}
    moves = ["A up 2, A up 2, A up 2", "B up 1, B up 1, B up 1", "B up 1, A up 1, C up 1"]
    replayed = post(client, "replay", {"options": options, "moves": moves})
    assert (replayed["valid"], replayed["plies"]) == (False, 2)
    assert replayed["first_illegal"]["index"] == 2
    assert replayed["first_illegal"]["error"]["code"] == "not_your_file"
    assert replayed["state"]["ply"] == 2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"board": ["RRRRRR", *SEED_EXAMPLE[1:]]}, "state.board"),
        ({"scores": [-5, 0]}, "state.scores.0"),
        ({"phase": "pick_one"}, "state.colors"),
        ({"barred": ["Z"]}, "state.barred.0"),
    ],
)
def test_bad_state_is_422_naming_the_field(client: FlaskClient, change: dict[str, Any], field: str) -> None:
    state = new(client, grid=SEED_EXAMPLE, colors=COLORS, first=0)
    for what, body in (
        ("play", {"state": {**state, **change}, "move": "A up 1, A up 1, A up 1"}),
        ("legal-moves", {"state": {**state, **change}}),
    ):
        resp = client.post(f"/v1/games/crystal/{what}", json=body)
        assert resp.status_code == 422
        assert resp.get_json()["error"]["details"]["field"] == field


def test_bad_options_are_422(client: FlaskClient) -> None:
    resp = client.post("/v1/games/crystal/new", json={"options": {"anomalies": ["lava"]}})
    assert resp.status_code == 422
    assert resp.get_json()["error"]["details"]["field"] == "options.anomalies.0"


def test_a_replay_needs_the_deal_the_game_was_played_on(client: FlaskClient) -> None:  # R-X1
    """A state's ``options`` hold only the anomalies; the seed that dealt its grid is the state's ``seed``.
    Replayed from those options alone, the server dealt another grid and the moves (shifts are legal on any
    grid) replayed "valid" to another game; now that is 422 naming ``options.seed``, and with the seed the
    replay is the game."""
    state = new(client, anomalies=["spikes"])
    moves = []
    for move in ["first", "red", "blue green", "first", "A up 1, B up 1, C up 1", "D up 2, E up 2, F up 2"]:
        verdict = play(client, state, move)
        assert verdict["legal"], verdict
        state = verdict["state"]
        moves.append(verdict["move"])
    r = client.post("/v1/games/crystal/replay", json={"options": state["options"], "moves": moves})
    assert r.status_code == 422 and r.json["error"]["code"] == "bad_options"
    assert r.json["error"]["details"]["field"] == "options.seed" and "seed" in r.json["error"]["message"]
    again = post(client, "replay", {"options": {**state["options"], "seed": state["seed"]}, "moves": moves})
    assert again["valid"] and again["state"] == state
