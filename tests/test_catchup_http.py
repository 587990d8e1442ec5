"""Catchup gameplay over HTTP: seed 000's worked example and the three R-C3
variants played through ``/v1/games/catchup/...`` with the state handed back by
the client each time, as an umpire's front end would."""

from __future__ import annotations

from flask.testing import FlaskClient
from gamekit import GameApi

# Seed 000's worked example as reconstructed in tests/test_catchup.py (the
# picture is lost; see WORKED_EXAMPLE there for the reasoning).  Red is
# player 0, Blue player 1, Red to move before B4 B5.
RED = ["A1", "A2", "B2", "H1", "H2", "I1", "I2"]
BLUE = ["A5", "C7", "D6", "E6", "E1", "F7", "G6"]

# Player 0: A1-A3 and A5; player 1: row I (5).  The score is 3-5.
THREE_FIVE = {**{c: 0 for c in ["A1", "A2", "A3", "A5"]}, **{f"I{i}": 1 for i in range(1, 6)}}

API = GameApi("catchup")
post = API.post


def test_seed_000_worked_example_over_http(client: FlaskClient) -> None:
    position = {**{c: 0 for c in RED}, **{c: 1 for c in BLUE}}
    state = post(client, "new", {"options": {"position": position}})["state"]
    assert (state["to_move"], state["scores"], state["max_stones"]) == (0, [4, 2], 2)

    expected = [
        # move, scores after, bonus for the next player, max_stones
        ("B4 B5", [4, 2], False, 2),  # Red does not lead
        ("d7, f8", [4, 4], True, 3),  # Blue ties at 4: leading (R-C3)
        ("B3 C1 D2", [6, 4], True, 3),  # Red 6: leading
        ("F2 G7 H6", [6, 5], False, 2),  # Blue 5 does not overtake
    ]
    for move, scores, bonus, max_stones in expected:
        verdict = post(client, "play", {"state": state, "move": move})
        assert verdict["legal"] is True, verdict
        state = verdict["state"]
        assert (state["scores"], state["bonus"], state["max_stones"]) == (scores, bonus, max_stones), move
    assert verdict["move"] == "F2 G7 H6"

    listing = post(client, "legal-moves", {"state": state})
    # 14 stones set up, 2 + 2 + 3 + 3 played
    assert listing["count"] == 61 - 24 and listing["max_stones"] == 2 and listing["bonus"] is False
    refused = post(client, "play", {"state": state, "move": "I3 I4 I5"})
    assert refused["legal"] is False and refused["error"]["code"] == "too_many_stones"
    assert refused["state"] == state


def test_the_same_move_under_each_variant(client: FlaskClient) -> None:
    # From 3-5, B1 B2 reaches 5-5 and A4 B1 reaches 6-5 (R-C3).
    answers = {}
    for variant in ("genius", "ludii", "bolanos"):
        state = post(client, "new", {"options": {"variant": variant, "position": THREE_FIVE}})["state"]
        tie = post(client, "play", {"state": state, "move": "B1 B2"})
        past = post(client, "play", {"state": state, "move": "A4 B1"})
        answers[state["options"]["variant"]] = (
            tie["legal"] and tie["state"]["bonus"],
            past["legal"] and past["state"]["bonus"],
            past.get("error", {}).get("code"),
        )
    assert answers == {
        "standard": (True, True, None),
        "mindsports": (False, True, None),
        "bolanos": (False, False, "largest_group_grew"),
    }


def test_a_tampered_score_track_is_refused(client: FlaskClient) -> None:
    state = post(client, "new", {"options": {"position": THREE_FIVE}})["state"]
    resp = client.post("/v1/games/catchup/play", json={"state": {**state, "scores": [5, 5]}, "move": "B1"})
    assert resp.status_code == 422
    assert resp.get_json()["error"]["details"]["field"] == "state.scores"
