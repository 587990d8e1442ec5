"""Plur and Too over HTTP (API.md "Plur and Too"; RULES R-E1 to R-E3): the
contract details clients rely on, through the spec-checked client."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import GameApi, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.registry import GAMES

PLUR, TOO = GameApi("plur"), GameApi("too")


def test_games_are_listed_with_their_options(client: FlaskClient) -> None:
    listing = client.get("/v1/games").get_json()
    games = {g["name"]: g for g in listing["games"]}
    for name in ("plur", "too"):
        size = games[name]["options"]["size"]
        assert (size["default"], size["min"], size["max"]) == (5, 2, 10)
        assert {"size", "blocked", "position"} <= set(games[name]["options"])
        assert games[name]["default_preset"] == name and games[name]["flag_rule"] == "loses"
    assert games["plur"]["options"]["pie"]["default"] is False
    assert "pie" not in games["too"]["options"]
    # R-E3: where games are listed, Brink is said not to be built (Product is, R-E4)
    assert {g["name"] for g in listing["not_built"]} == {"brink"}
    err = client.post("/v1/games/brink/new", json={}).get_json()["error"]
    assert err["code"] == "unknown_game" and "R-E3" in err["message"]


def test_plur_legal_moves_are_every_empty_cell_and_swap_when_allowed(client: FlaskClient) -> None:
    state = PLUR.new(client, size=2, pie=True)
    assert PLUR.post(client, "legal-moves", {"state": state})["moves"] == ["A1", "A2", "B1", "B2", "B3", "C1", "C2"]
    state = PLUR.play(client, state, "b2")["state"]
    moves = PLUR.post(client, "legal-moves", {"state": state})
    assert moves["moves"] == ["A1", "A2", "B1", "B3", "C1", "C2", "swap"] and moves["count"] == 7
    verdict = PLUR.play(client, state, "swap")
    assert verdict["legal"] and verdict["state"]["board"] == {"B2": 1} and verdict["state"]["to_move"] == 0
    assert verdict["events"] == [{"type": "swap", "player": 1, "cell": "B2"}]


def test_a_plur_draw_over_http(client: FlaskClient) -> None:
    # Side 2 (R-H1: rows A-C of 2, 3, 2 cells).  Black A1 B1 C1 C2 is one group of 4,
    # white A2 B2 B3 one group of 3: two groups, so all count (R-E1), one each: a draw.
    board = {"A1": 0, "B1": 0, "C1": 0, "C2": 0, "A2": 1, "B2": 1, "B3": 1}
    state = PLUR.new(client, size=2, position=board)
    assert state["scores"] == [[4], [3]]
    assert (state["status"], state["winner"], state["end"]) == ("finished", None, "full")  # API: a finished draw


def test_too_moves_and_scores(client: FlaskClient) -> None:
    state = TOO.new(client, size=3)
    moves = TOO.post(client, "legal-moves", {"state": state, "limit": 4})
    assert moves["moves"] == ["B A1", "W A1", "B A2", "W A2"] and moves["truncated"] is True
    for text in ("b a1", "B A3", "w c3"):
        verdict = TOO.play(client, state, text)
        assert verdict["legal"], verdict
        state = verdict["state"]
    assert verdict["move"] == "W C3"
    assert state["scores"] == [1, 0]  # black A1 and A3 are two groups of 1; white has one group (R-E2)
    assert state["board"] == {"A1": 0, "A3": 0, "C3": 1}
    refused = TOO.play(client, state, "D4")
    assert refused["legal"] is False and refused["error"]["code"] == "bad_notation"


@pytest.mark.parametrize("name", ["plur", "too"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), size=st.integers(2, 4))
def test_replay_equals_play_over_http(client: FlaskClient, name: str, seed: int, size: int) -> None:
    game = GAMES[name]
    rnd = random.Random(seed)
    state = game.new({"size": size})
    data: dict[str, Any] = game.dump(state)
    moves = []
    while data["status"] == "ongoing":
        move = random_move(game, game.load(data), rnd)
        verdict = client.post(f"/v1/games/{name}/play", json={"state": data, "move": move}).get_json()
        assert verdict["legal"] is True
        moves.append(verdict["move"])
        data = verdict["state"]
    replay = client.post(f"/v1/games/{name}/replay", json={"options": {"size": size}, "moves": moves}).get_json()
    assert replay["valid"] and replay["state"] == data
