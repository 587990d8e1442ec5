"""Product over HTTP (API.md "Product"; RULES R-E4, R-E4a, R-E4b): the contract
details clients rely on, through the spec-checked client."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient
from gamekit import GameApi, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.registry import GAMES

PRODUCT = GameApi("product")


def test_product_is_listed_with_its_options_and_clock(client: FlaskClient) -> None:
    listing = client.get("/v1/games").get_json()
    games = {g["name"]: g for g in listing["games"]}
    product = games["product"]
    assert product["title"] == "Product" and product["variants"] == ["produto", "bentley", "abstractplay"]
    options = product["options"]
    assert (options["size"]["default"], options["size"]["min"], options["size"]["max"]) == (5, 2, 10)
    assert options["variant"]["default"] == "produto"
    assert options["lone_group"]["default"] == "zero" and options["lone_group"]["choices"] == ["zero", "size"]
    assert {"blocked", "position", "to_move"} <= set(options)
    # R-T2: Catchup's clock values, under Product's own name
    assert product["default_preset"] == "product"

    def clock(preset: dict[str, Any]) -> dict[str, Any]:  # its values, not which variants it is the default of
        return {k: v for k, v in preset.items() if k != "default_with"}

    assert clock(product["presets"]["product"]) == clock(games["catchup"]["presets"]["catchup"])
    assert product["presets"]["product"]["default_with"] == {"variant": product["variants"]}
    assert "product" not in {g["name"] for g in listing["not_built"]}  # R-E3 no longer


def test_a_new_game_and_its_legal_moves(client: FlaskClient) -> None:
    state = PRODUCT.new(client, variant="abstractplay", lone_group="size")
    assert state["options"] == {"size": 5, "variant": "abstractplay", "lone_group": "size"}
    assert (state["scores"], state["stones_due"], state["to_move"]) == ([1, 1], 1, 0)
    first = PRODUCT.post(client, "legal-moves", {"state": state})
    assert first["count"] == 122 and first["moves"][:2] == ["B A1", "W A1"]
    verdict = PRODUCT.play(client, state, "w e5")
    assert verdict["legal"] and verdict["move"] == "W E5"
    second = PRODUCT.post(client, "legal-moves", {"state": verdict["state"]})
    assert second["count"] == 7080 and second["truncated"] is False  # C(60, 2) pairs x 4 colourings
    cut = PRODUCT.post(client, "legal-moves", {"state": verdict["state"], "limit": 3})
    assert cut == {"moves": ["B A1 B A2", "B A1 W A2", "B A2 W A1"], "count": 3, "truncated": True, "complete": True}


def test_a_move_is_built_step_by_step(client: FlaskClient) -> None:
    state = PRODUCT.play(client, PRODUCT.new(client, size=2), "B B2")["state"]
    one = PRODUCT.post(client, "legal-moves", {"state": state, "prefix": ["w c2"]})
    assert one["prefix"] == ["W C2"] and one["complete"] is False and one["count"] == 10
    two = PRODUCT.post(client, "legal-moves", {"state": state, "prefix": ["W C2", "B A1"]})
    assert (two["complete"], two["move"], two["steps"]) == (True, "B A1 W C2", [])
    wrong = PRODUCT.post(client, "legal-moves", {"state": state, "prefix": ["B C2", "W C2"]})
    assert wrong["prefix"] == ["B C2"] and wrong["error"]["code"] == "duplicate_cell" and wrong["error"]["step"] == 1


def test_illegal_moves_over_http(client: FlaskClient) -> None:
    state = PRODUCT.play(client, PRODUCT.new(client), "B E5")["state"]
    for move, code, step in [
        ("B H1 W H1", "duplicate_cell", 1),
        ("B H1", "too_few_stones", None),
        ("B H1 W H2 B H3", "too_many_stones", 2),
        ("B E5 W H1", "occupied", 0),
        ("G H1 W H2", "bad_notation", 0),
        ("B H1 W Z1", "unknown_cell", 1),
    ]:
        refused = PRODUCT.play(client, state, move)
        assert refused["legal"] is False and refused["error"]["code"] == code, move
        assert refused["error"].get("step") == step and refused["error"]["rule"], move


def test_a_product_draw_over_http(client: FlaskClient) -> None:
    # Side 2 with B2 blocked: a ring of six, the colours alternating: three single
    # stones each, products 1 = 1 and 3 stones each (R-E4a produto: a draw).
    board = {"A1": 0, "A2": 1, "B3": 0, "C2": 1, "C1": 0, "B1": 1}
    state = PRODUCT.new(client, size=2, blocked=["B2"], position=board)
    assert state["scores"] == [1, 1] and state["stones_due"] == 0
    assert (state["status"], state["winner"], state["end"]) == ("finished", None, "full")  # API: a finished draw
    # the last turn played over HTTP names what decided it
    before = PRODUCT.new(client, size=2, blocked=["B2"], position={k: v for k, v in board.items() if k != "B1"})
    assert before["stones_due"] == 1  # R-E4a: one empty cell left
    verdict = PRODUCT.play(client, before, "W B1")
    end = verdict["events"][-1]
    assert (end["type"], end["winner"], end["decided_by"]) == ("end", None, "draw")
    assert verdict["state"] == state | {"ply": verdict["state"]["ply"]}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(2, 4),
    variant=st.sampled_from(["produto", "bentley", "abstractplay"]),
    lone_group=st.sampled_from(["zero", "size"]),
)
def test_replay_equals_play_over_http(client: FlaskClient, seed: int, size: int, variant: str, lone_group: str) -> None:
    game = GAMES["product"]
    rnd = random.Random(seed)
    options = {"size": size, "variant": variant, "lone_group": lone_group}
    data: dict[str, Any] = game.dump(game.new(options))
    moves = []
    while data["status"] == "ongoing":
        move = random_move(game, game.load(data), rnd)
        verdict = client.post("/v1/games/product/play", json={"state": data, "move": move}).get_json()
        assert verdict["legal"] is True
        moves.append(verdict["move"])
        data = verdict["state"]
    replay = client.post("/v1/games/product/replay", json={"options": options, "moves": moves}).get_json()
    assert replay["valid"] and replay["state"] == data
