"""legal-moves with a ``prefix`` answers the board as the steps so far leave
it (``preview``, Game.preview) where they change it before the move is whole:
Crystal's shifts, each on the grid the ones before left (R-X2; issue 22, the
page previews a turn while it is built).  Games whose steps change nothing
until the move is played answer none."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from engine.registry import get_game

CRYSTAL = get_game("crystal")


def shift_phase(client: FlaskClient) -> dict[str, Any]:
    state: dict[str, Any] = client.post("/v1/games/crystal/new", json={"options": {"seed": "19"}}).get_json()["state"]
    for move in ("first", "red", "blue green", "second"):
        state = client.post("/v1/games/crystal/play", json={"state": state, "move": move}).get_json()["state"]
    assert state["phase"] == "shift"
    return state


def test_each_shift_so_far_is_made_on_the_grid(client: FlaskClient) -> None:
    state = shift_phase(client)
    engine = CRYSTAL.load(state)
    for prefix in (["A up 1"], ["A up 1", "2 left 3"]):
        answer = client.post("/v1/games/crystal/legal-moves", json={"state": state, "prefix": prefix}).get_json()
        expected = engine
        for step in prefix:
            (shift,) = CRYSTAL.parse(expected, [step]).items  # type: ignore[union-attr]
            expected = CRYSTAL.shifted(expected, shift)
        assert answer["preview"]["board"] == CRYSTAL.dump(expected)["board"] != state["board"]
        assert answer["preview"]["ply"] == state["ply"] and answer["preview"]["to_move"] == state["to_move"]  # the turn goes on


def test_no_preview_where_nothing_changes_yet(client: FlaskClient) -> None:
    state = shift_phase(client)
    assert "preview" not in client.post("/v1/games/crystal/legal-moves", json={"state": state, "prefix": []}).get_json()
    wrong = client.post("/v1/games/crystal/legal-moves", json={"state": state, "prefix": ["Q up 1"]}).get_json()
    assert "error" in wrong and "preview" not in wrong
    new = client.post("/v1/games/crystal/new", json={"options": {"seed": "19"}}).get_json()["state"]
    assert "preview" not in client.post("/v1/games/crystal/legal-moves", json={"state": new, "prefix": ["first"]}).get_json()
    catchup = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
    catchup = client.post("/v1/games/catchup/play", json={"state": catchup, "move": "E5"}).get_json()["state"]
    assert "preview" not in client.post("/v1/games/catchup/legal-moves", json={"state": catchup, "prefix": ["A1"]}).get_json()
