"""Every failure over HTTP has the one error shape (API.md "Errors"): 400
malformed JSON, 404 unknown game or address, 405, 413 above the body limit,
415 wrong content type, 422 schema or impossible state naming the field, 500
without a traceback.

Each answer also passes through the spec check of the ``client`` fixture.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service import create_app

JSON = "application/json"
ENDPOINTS = ("new", "play", "legal-moves", "replay")


def error_of(resp: TestResponse, status: int, code: str) -> dict[str, Any]:
    """The ``error`` object of an answer, after checking status, code and shape."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert set(body) == {"error"}
    err: dict[str, Any] = body["error"]
    assert set(err) == {"code", "message", "details"}
    assert err["code"] == code, err
    assert err["message"].endswith(".") and "Traceback" not in err["message"]
    return err


def new_state(client: FlaskClient, **options: Any) -> dict[str, Any]:
    resp = client.post("/v1/games/catchup/new", json={"options": {"size": 3, **options}})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    state: dict[str, Any] = resp.get_json()["state"]
    return state


# -- 400 -------------------------------------------------------------------------


@pytest.mark.parametrize("what", ENDPOINTS)
@pytest.mark.parametrize("raw", [b'{"options": ', b"", b"{'options': {}}", b"\xff\xfe{}", b"[1, 2,]", b"NaN-ish"])
def test_malformed_json_is_400(client: FlaskClient, what: str, raw: bytes) -> None:
    error_of(client.post(f"/v1/games/catchup/{what}", data=raw, content_type=JSON), 400, "malformed_json")


@pytest.mark.parametrize("raw", [b"[" * 100_000, b'{"options": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"])
def test_json_nested_beyond_the_parser_is_400_not_a_crash(client: FlaskClient, raw: bytes) -> None:
    err = error_of(client.post("/v1/games/catchup/new", data=raw, content_type=JSON), 400, "too_deeply_nested")
    assert err["details"] == {"limit": 16}


# -- 413 -------------------------------------------------------------------------


def padded(size: int) -> bytes:
    """A valid JSON body of exactly ``size`` bytes (whitespace is legal JSON)."""
    core = b'{"options": {}}'
    return core + b" " * (size - len(core))


def test_body_over_the_default_limit_is_413(client: FlaskClient) -> None:
    limit = 256 * 1024
    err = error_of(client.post("/v1/games/catchup/new", data=padded(limit + 1), content_type=JSON), 413, "body_too_large")
    assert err["details"] == {"limit": limit}
    assert str(limit) in err["message"]
    # Exactly at the limit is accepted.
    assert client.post("/v1/games/catchup/new", data=padded(limit), content_type=JSON).status_code == 200


def test_body_limit_is_configurable() -> None:
    client = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 100}).test_client()
    assert client.post("/v1/games/catchup/new", data=padded(100), content_type=JSON).status_code == 200
    assert client.post("/v1/games/catchup/new", data=padded(101), content_type=JSON).status_code == 413


def test_body_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_CONTENT_LENGTH", "64")
    client = create_app({"TESTING": True}).test_client()
    assert client.post("/v1/games/catchup/new", data=padded(65), content_type=JSON).status_code == 413
    assert client.post("/v1/games/catchup/new", data=padded(64), content_type=JSON).status_code == 200
    monkeypatch.setenv("MAX_CONTENT_LENGTH", "lots")
    with pytest.raises(ValueError, match="MAX_CONTENT_LENGTH"):
        create_app()


def test_413_holds_even_when_the_client_sends_no_length(client: FlaskClient) -> None:
    """A chunked body has no Content-Length (the server marks its input as
    terminated instead); reading stops at the limit all the same."""
    resp = client.post(
        "/v1/games/catchup/new",
        input_stream=io.BytesIO(padded(300 * 1024)),
        headers={"Content-Type": JSON},
        environ_overrides={"wsgi.input_terminated": True},
    )
    error_of(resp, 413, "body_too_large")


# -- 415 -------------------------------------------------------------------------


@pytest.mark.parametrize("what", ENDPOINTS)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_wrong_content_type_is_415(client: FlaskClient, what: str, content_type: str | None) -> None:
    kwargs: dict[str, Any] = {"data": b'{"options": {}}'}
    if content_type:
        kwargs["content_type"] = content_type
    error_of(client.post(f"/v1/games/catchup/{what}", **kwargs), 415, "unsupported_media_type")


def test_json_with_a_charset_is_accepted(client: FlaskClient) -> None:
    resp = client.post("/v1/games/catchup/new", data=b'{"options": {}}', content_type="application/json; charset=utf-8")
    assert resp.status_code == 200


# -- 422: the request does not match the schema -----------------------------------


def fields_of(err: dict[str, Any]) -> dict[str, list[str]]:
    details = err["details"]
    assert details["field"] in details["fields"]
    fields: dict[str, list[str]] = details["fields"]
    return fields


@pytest.mark.parametrize(
    ("what", "body", "paths"),
    [
        ("play", {"move": "C3"}, {"state"}),  # missing
        ("play", {"state": "C3", "move": "C3"}, {"state"}),  # wrong type
        ("play", {"state": {}}, {"move"}),
        ("play", {"state": {}, "move": ""}, {"move"}),  # empty notation
        ("play", {"state": {}, "move": 7}, {"move"}),
        ("play", {"state": {}, "move": ["C3", 4]}, {"move"}),
        ("play", {"state": {}, "move": "C3", "ply": 3}, {"ply"}),  # unknown field
        ("legal-moves", {"state": {}, "limit": 0}, {"limit"}),
        ("legal-moves", {"state": {}, "limit": "5"}, {"limit"}),
        ("legal-moves", {"state": {}, "complete": "true"}, {"complete"}),  # JSON true, not a string
        ("legal-moves", {"state": {}, "complete": 1}, {"complete"}),
        ("new", {"options": [1]}, {"options"}),
        ("replay", {"options": {}}, {"moves"}),
        ("replay", {"moves": "C3"}, {"moves"}),
        ("replay", {"moves": ["C3", 5, "", "D2"]}, {"moves.1", "moves.2"}),
    ],
)
def test_schema_failure_is_422_naming_every_field(client: FlaskClient, what: str, body: Any, paths: set[str]) -> None:
    err = error_of(client.post(f"/v1/games/catchup/{what}", json=body), 422, "invalid_body")
    fields = fields_of(err)
    assert set(fields) == paths
    assert err["details"]["field"] in err["message"]


@pytest.mark.parametrize("raw", [b"[]", b"null", b'"options"', b"3", b"true"])
def test_a_body_that_is_not_an_object_is_422(client: FlaskClient, raw: bytes) -> None:
    err = error_of(client.post("/v1/games/catchup/new", data=raw, content_type=JSON), 422, "invalid_body")
    assert set(fields_of(err)) == {"body"}


# -- 422: an impossible state, named field by field (API.md "Reading a state") ----


def play_with(client: FlaskClient, state: dict[str, Any], move: str = "A1") -> TestResponse:
    return client.post("/v1/games/catchup/play", json={"state": state, "move": move})


def test_unknown_cell_in_the_state(client: FlaskClient) -> None:
    state = {**new_state(client), "board": {"F1": 0}, "to_move": 1, "ply": 1, "max_stones": 2}  # side 3 ends at row E
    err = error_of(play_with(client, state), 422, "bad_state")
    assert err["details"]["field"] == "state.board.F1"


def test_stone_on_a_blocked_cell(client: FlaskClient) -> None:
    state = {**new_state(client), "blocked": ["E3"], "board": {"E3": 0}, "to_move": 1, "ply": 1, "max_stones": 2}
    err = error_of(play_with(client, state), 422, "bad_state")
    assert err["details"]["field"] == "state.board.E3"
    assert "E3" in err["message"] and "blocked" in err["message"]


def test_to_move_contradicting_the_stone_counts(client: FlaskClient) -> None:
    """R-C1: after player 0's single first stone it is player 1's turn, never player 0's."""
    state = {**new_state(client), "board": {"C3": 0}, "to_move": 0, "ply": 1}
    err = error_of(play_with(client, state), 422, "bad_state")
    assert err["details"]["field"] == "state.to_move"
    # Player 1 with more stones than player 0 is impossible whoever is to move:
    # then the board itself is at fault.
    state = {**new_state(client), "board": {"C3": 1}, "to_move": 0, "ply": 1}
    assert error_of(play_with(client, state), 422, "bad_state")["details"]["field"] == "state.board"


def test_score_track_below_the_largest_group(client: FlaskClient) -> None:
    """R-C2: player 1's B2-B3 group has 2 stones, so a score track of 1 is impossible."""
    position = {"C3": 0, "B2": 1, "B3": 1}
    good = new_state(client, position=position, to_move=0, bonus=True)
    assert good["scores"] == [1, 2]
    assert play_with(client, good).status_code == 200
    err = error_of(play_with(client, {**good, "scores": [1, 1]}), 422, "bad_state")
    assert err["details"]["field"] == "state.scores"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"game": "bug"}, "state.game"),
        ({"ply": -1}, "state.ply"),
        ({"ply": "1"}, "state.ply"),
        ({"options": {"variant": "chess", "size": 3}}, "state.options.variant"),
        ({"options": {"variant": "standard", "size": 11}}, "state.options.size"),
        ({"board": {"C3": 2}, "to_move": 1}, "state.board.C3"),
        ({"board": "C3"}, "state.board"),
        ({"to_move": None}, "state.to_move"),  # a finished game has a full board
        ({"bonus": "yes"}, "state.bonus"),
        ({"bonus": True}, "state.bonus"),  # no bonus on the first turn (R-C1)
    ],
)
def test_other_impossible_states_name_their_field(client: FlaskClient, change: dict[str, Any], field: str) -> None:
    err = error_of(play_with(client, {**new_state(client), **change}), 422, "bad_state")
    assert err["details"] == {"field": field, "fields": {field: [err["message"]]}}


def test_legal_moves_checks_the_state_too(client: FlaskClient) -> None:
    state = {**new_state(client), "board": {"F1": 0}}
    err = error_of(client.post("/v1/games/catchup/legal-moves", json={"state": state}), 422, "bad_state")
    assert err["details"]["field"] == "state.board.F1"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"size": 11}, "options.size"),
        ({"size": 2}, "options.size"),
        ({"variant": "chess"}, "options.variant"),
        ({"colour": "red"}, "options.colour"),
        ({"position": {"Z9": 0}}, "options.position.Z9"),
        ({"position": {"C3": 0}, "blocked": ["C3"]}, "options.position.C3"),
        ({"position": {"C3": 0}, "to_move": 0}, "options.to_move"),
        ({"bonus": True}, "options.bonus"),
    ],
)
def test_impossible_options_name_their_field(client: FlaskClient, options: dict[str, Any], field: str) -> None:
    for what, body in (("new", {"options": options}), ("replay", {"options": options, "moves": []})):
        err = error_of(client.post(f"/v1/games/catchup/{what}", json=body), 422, "bad_options")
        assert err["details"]["field"] == field


# -- 404 and 405 -----------------------------------------------------------------


@pytest.mark.parametrize("what", ENDPOINTS)
def test_unknown_game_is_404(client: FlaskClient, what: str) -> None:
    err = error_of(client.post(f"/v1/games/chess/{what}", json={"options": {}}), 404, "unknown_game")
    assert "chess" in err["message"] and "catchup" in err["message"]


@pytest.mark.parametrize(
    "path", ["/nowhere", "/v1", "/v1/games/catchup", "/v1/games/catchup/undo", "/v2/games", "/static/nothing.js"]
)
def test_unknown_address_is_404(client: FlaskClient, path: str) -> None:
    error_of(client.get(path), 404, "not_found")


def test_wrong_method_is_405_with_the_allowed_ones(client: FlaskClient) -> None:
    resp = client.get("/v1/games/catchup/play")
    err = error_of(resp, 405, "method_not_allowed")
    assert err["details"] == {"allowed": ["POST"]}
    assert "POST" in resp.headers["Allow"]
    err = error_of(client.put("/v1/games"), 405, "method_not_allowed")
    assert err["details"] == {"allowed": ["GET"]}


# -- 500: never a traceback -------------------------------------------------------


def test_an_internal_error_is_500_without_a_traceback(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from engine.registry import GAMES

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("secret internal detail")

    monkeypatch.setattr(GAMES["catchup"], "new", broken)
    with caplog.at_level(logging.ERROR, logger="service.web.errors"):
        resp = client.post("/v1/games/catchup/new", json={"options": {}})
    err = error_of(resp, 500, "internal_error")
    text = resp.get_data(as_text=True)
    for leak in ("Traceback", "KeyError", "secret internal detail", "File ", ".py"):
        assert leak not in text
    assert err["details"] is None
    # The traceback is in the server's log instead.
    assert any(r.exc_info and r.exc_info[0] is KeyError for r in caplog.records)
