"""Limits on everything a client sends (service/web/http.py, openapi.yaml "Limits"):
each past its limit is a clear 4xx in the one error shape, and a key given
twice in one object is refused naming it."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from test_api_errors import error_of, new_state, padded

from service import create_app
from service.web.http import MAX_ARRAY_ITEMS, MAX_DEPTH, MAX_OBJECT_MEMBERS, MAX_STRING_CHARS

JSON = "application/json"


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ('{"options": {}, "options": {"size": 3}}', "options"),
        ('{"options": {"size": 3, "size": 4}}', "size"),
        ('{"options": {"position": {"C3": 0, "C3": 1}}}', "C3"),
    ],
)
def test_a_key_given_twice_is_refused_naming_it(client: FlaskClient, raw: str, key: str) -> None:
    err = error_of(client.post("/v1/games/catchup/new", data=raw, content_type=JSON), 400, "duplicate_key")
    assert err["details"] == {"key": key}
    assert repr(key) in err["message"]


@pytest.mark.parametrize("raw", ['{"options": {"size": NaN}}', '{"options": {"size": Infinity}}', '{"limit": -Infinity}'])
def test_constants_json_does_not_have_are_malformed(client: FlaskClient, raw: str) -> None:
    error_of(client.post("/v1/games/catchup/new", data=raw, content_type=JSON), 400, "malformed_json")


def test_nesting_past_the_limit_is_400(client: FlaskClient) -> None:
    ok: Any = {}
    deep: Any = {}
    for _ in range(MAX_DEPTH - 2):
        ok = [ok]
    for _ in range(MAX_DEPTH):
        deep = [deep]
    # within the limit: the schema judges (options is no array), past it: 400
    error_of(client.post("/v1/games/catchup/new", json={"options": ok}), 422, "invalid_body")
    err = error_of(client.post("/v1/games/catchup/new", json={"options": deep}), 400, "too_deeply_nested")
    assert err["details"] == {"limit": MAX_DEPTH}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"options": {"seed": "x" * (MAX_STRING_CHARS + 1)}}, "options.seed"),
        ({"options": {"x" * (MAX_STRING_CHARS + 1): 1}}, "options"),
        ({"options": {"blocked": ["A1"] * (MAX_ARRAY_ITEMS + 1)}}, "options.blocked"),
        ({"options": {"position": {f"Z{i}": 0 for i in range(MAX_OBJECT_MEMBERS + 1)}}}, "options.position"),
    ],
)
def test_strings_arrays_and_objects_past_their_limits_are_422_naming_the_field(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    err = error_of(client.post("/v1/games/crystal/new", json=body), 422, "invalid_body")
    assert err["details"]["field"] == field
    assert "limit" in err["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"options": {}, "moves": ["C3"] * 10_001}, "moves"),
        ({"options": {}, "moves": ["C3 " * 400]}, "moves.0"),
        ({"options": {}, "moves": [["C3"] * 101]}, "moves.0"),
    ],
)
def test_moves_past_their_limits_are_422(client: FlaskClient, body: dict[str, Any], field: str) -> None:
    err = error_of(client.post("/v1/games/catchup/replay", json=body), 422, "invalid_body")
    assert field in err["details"]["fields"]


@pytest.mark.parametrize(
    ("options", "field"), [({"size": 11}, "options.size"), ({"size": 2}, "options.size"), ({"variant": "x"}, "options.variant")]
)
def test_board_sides_and_option_values_are_bounded(client: FlaskClient, options: dict[str, Any], field: str) -> None:
    err = error_of(client.post("/v1/games/catchup/new", json={"options": options}), 422, "bad_options")
    assert err["details"]["field"] == field


def test_a_huge_ply_is_refused_and_never_echoed(client: FlaskClient) -> None:
    state = new_state(client)
    for ply in (10**30, 1_000_001, 58):
        resp = client.post("/v1/games/catchup/play", json={"state": {**state, "ply": ply}, "move": "C3"})
        err = error_of(resp, 422, "bad_state")
        assert err["details"]["field"] == "state.ply"
        assert str(10**30) not in resp.get_data(as_text=True)


def test_limit_and_ply_take_whole_numbers_written_with_a_point(client: FlaskClient) -> None:
    """JSON Schema counts 5.0 as the integer 5, so the spec allows it; so does the service."""
    state = new_state(client)
    assert client.post("/v1/games/catchup/legal-moves", json={"state": state, "limit": 5.0}).get_json()["count"] == 5
    for bad in (5.5, "5", True):
        error_of(client.post("/v1/games/catchup/legal-moves", json={"state": state, "limit": bad}), 422, "invalid_body")


def test_max_body_bytes_sets_the_limit_and_max_content_length_is_its_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_BODY_BYTES", "100")
    client = create_app({"TESTING": True}).test_client()
    assert client.post("/v1/games/catchup/new", data=padded(100), content_type=JSON).status_code == 200
    resp = client.post("/v1/games/catchup/new", data=padded(101), content_type=JSON)
    assert resp.status_code == 413 and resp.get_json()["error"]["details"] == {"limit": 100}
    monkeypatch.setenv("MAX_CONTENT_LENGTH", "50")  # both set: the new name wins
    client = create_app({"TESTING": True}).test_client()
    assert client.post("/v1/games/catchup/new", data=padded(100), content_type=JSON).status_code == 200
    monkeypatch.delenv("MAX_BODY_BYTES")
    client = create_app({"TESTING": True}).test_client()
    assert client.post("/v1/games/catchup/new", data=padded(51), content_type=JSON).status_code == 413
    monkeypatch.setenv("MAX_BODY_BYTES", "lots")
    with pytest.raises(ValueError, match="MAX_BODY_BYTES"):
        create_app()


# -- an import's text: a record or a diagram, up to the spec's maxLength (issue 34, item 9) ----------------------


def _largest_diagrams(client: FlaskClient) -> list[tuple[str, dict[str, Any], str]]:
    """Each game whose diagram reads back, at its largest side, after a few moves, drawn by the server with and
    without each cell's name: (game, state, text)."""
    import random

    from engine.registry import ROOMS
    from views import diagram

    out = []
    for name in [n for n in ROOMS if diagram.readable(n)]:
        game = ROOMS[name].game
        sides = [o.max for o in game.options if o.name == "size"]
        state = game.new({"size": max(sides)} if sides else {})  # Crystal's grid has one size
        rng = random.Random(9)
        for _ in range(6):
            state = game.play(state, rng.choice(game.complete_moves(state, limit=50).moves)).state
        dumped = game.dump(state)
        for coords in (False, True):
            drawn = client.post(f"/v1/games/{name}/render", json={"state": dumped, "format": "text", "coords": coords})
            assert drawn.status_code == 200
            out.append((name, dumped, drawn.get_data(as_text=True)))
    return out


def test_the_largest_diagram_the_server_draws_imports_back(client: FlaskClient) -> None:
    """``import``'s ``text`` is documented up to 200,000 characters, but any string over 1,000 was refused: the
    server's own diagram of a side-10 Product board (1,124 characters and more) could not be imported back."""

    drawn = _largest_diagrams(client)
    longest = max(len(text) for _, _, text in drawn)
    assert longest > MAX_STRING_CHARS  # what made the test worth having
    product = [text for name, _, text in drawn if name == "product"]
    assert min(len(t) for t in product) >= 1124
    for name, state, text in drawn:
        answer = client.post(f"/v1/games/{name}/import", json={"format": "diagram", "text": text})
        assert answer.status_code == 200, (name, len(text), answer.get_json())
        again = answer.get_json()["state"]  # the position the diagram carries (issue 35: its [State] line)
        assert (again["board"], again["to_move"]) == (state["board"], state["to_move"]), name


def test_an_imports_text_is_bounded_by_the_spec_and_every_other_string_by_the_limit(client: FlaskClient) -> None:
    from service.web.schemas import MAX_RECORD_CHARS

    long = "x" * 150_000  # within the spec's maxLength: read, and refused as a record, not as a limit
    err = error_of(client.post("/v1/games/product/import", json={"format": "diagram", "text": long}), 422, "bad_record")
    assert "line" in err["details"]
    over = client.post("/v1/games/product/import", json={"format": "diagram", "text": "x" * (MAX_RECORD_CHARS + 1)})
    assert error_of(over, 422, "invalid_body")["details"]["field"] == "text"
    # any other string of the same body is held to the general limit
    long_format = client.post("/v1/games/product/import", json={"format": "d" * (MAX_STRING_CHARS + 1), "text": "x"})
    assert error_of(long_format, 422, "invalid_body")["details"]["field"] == "format"
