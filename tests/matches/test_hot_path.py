"""The short cuts of a managed move (bench/bench_http.py) answer exactly as the
long way round: the plain-body check against the schema, the engine states kept
between moves against loading the stored JSON, the cached time format against
``datetime``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError
from matchkit import NewMatch
from test_whole_matches import choose

from engine.registry import GAMES
from service import create_app
from service.matches import db
from service.matches.db import get_positions
from service.matches.jsontext import canonical, compact, parse_json
from service.matches.record import iso
from service.web.schemas import match_move_request as move_request
from service.web.schemas import plain_move

# -- the move body ----------------------------------------------------------------------


def schema_load(body: Any) -> dict[str, Any] | None:
    try:
        loaded: dict[str, Any] = move_request.load(body)
    except ValidationError:
        return None
    return loaded


@pytest.mark.parametrize(
    "body",
    [
        {"move": "C3", "ply": 0},
        {"move": "C up 2, 2 right 3, A down 1", "ply": 41},
        {"move": "x" * 1000, "ply": 7},
        {"move": "x" * 1001, "ply": 7},  # too long: the schema says so
        {"move": "", "ply": 0},
        {"move": " \t", "ply": 0},
        {"move": "C3", "ply": -1},
        {"move": "C3", "ply": True},  # a boolean is not a ply
        {"move": "C3", "ply": 1.0},
        {"move": "C3", "ply": "0"},
        {"move": ["D7", "F8"], "ply": 3},  # a list of steps: the schema takes it, not the short cut
        {"move": None, "ply": 0},
        {"move": "C3"},
        {"ply": 0, "extra": 1},
        {"move": "C3", "ply": 0, "extra": 1},
        [],
        "C3",
    ],
)
def test_plain_body_check_takes_only_what_the_schema_takes(body: Any) -> None:
    fast = plain_move(body)
    assert fast is None or fast == schema_load(body)


def test_the_plain_body_of_every_client_takes_the_short_cut() -> None:
    assert plain_move({"move": "D7 F8", "ply": 12}) == {"move": "D7 F8", "ply": 12}
    assert plain_move({"ply": 0, "move": "first"}) == {"move": "first", "ply": 0}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["move", "ply", "Move", "x"]), json_values | st.text(max_size=8), max_size=3))
def test_plain_body_check_never_takes_what_the_schema_refuses(body: dict[str, Any]) -> None:
    fast = plain_move(body)
    assert fast is None or fast == schema_load(body)


# -- JSON -----------------------------------------------------------------------------------

exact_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(),  # beyond 64 bits: the fallback
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(exact_values)
def test_compact_and_canonical_write_what_json_writes(value: Any) -> None:
    assert compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


within_64_bits = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(within_64_bits)
def test_live_text_reads_back_exactly(value: Any) -> None:
    assert parse_json(compact(value)) == value


def test_a_seed_of_any_size_stays_exact_in_the_record(client: FlaskClient, new_match: NewMatch) -> None:
    # R-X1: a seed may be a whole number of up to 200 digits; the options the record gives are what `replay` needs
    seed = 10**150 + 7
    m = new_match("crystal", {"seed": seed})
    rec = m.record()
    assert rec["options"]["seed"] == seed
    replay = client.post("/v1/games/crystal/replay", json={"options": rec["options"], "moves": []})
    assert replay.json["state"] == m.state()


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back_the_same(x: float) -> None:
    # the text of a float may differ from json's in an exponent's form (1e-7, json 1e-07), never in value
    text = compact({"bank_s": x})
    assert json.loads(text) == {"bank_s": x} == parse_json(text)


def test_live_text_only_the_standard_library_reads_is_read_all_the_same() -> None:
    assert parse_json('{"x": NaN}')["x"] != parse_json('{"x": NaN}')["x"]  # NaN, as json.loads has it


# -- time ---------------------------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 4_102_444_800_000))  # 1970 to 2100, in ms
def test_iso_is_rfc3339_utc_with_milliseconds(ms: int) -> None:
    expected = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=(ms % 1000) * 1000)
    assert iso(ms) == expected.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- engine states kept between moves ------------------------------------------------------


def test_a_kept_state_answers_as_loading_the_stored_one(
    app: Flask, redis_url: str, prefix: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    # Two processes on one Redis: `app` and `other` (another gunicorn worker).  A move through the
    # app that made the last change starts from the state it kept; through the other, it loads the JSON.
    other = create_app(
        {"TESTING": True, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "REDIS_CLUSTER": app.config["REDIS_CLUSTER"]}
    )
    game = GAMES["catchup"]
    state, moves = game.new({"size": 4}), []
    while not game.is_over(state):
        moves.append(choose("catchup", game.dump(state), len(moves)))
        state = game.play(state, moves[-1]).state
    loads: list[int] = []
    real_load = game.load

    def counting_load(data: Any) -> Any:
        loads.append(data["ply"])
        return real_load(data)

    monkeypatch.setattr(game, "load", counting_load)
    request.addfinalizer(lambda: db.close(other))

    def run(route: str) -> list[Any]:
        """The match of ``moves``, move i sent through app route[i % len(route)]; the answers' verdicts."""
        clients = {"a": app.test_client(), "b": other.test_client()}
        created = clients["a"].post("/v1/matches", json={"game": "catchup", "options": {"size": 4}})
        assert created.status_code == 201
        match_id, seats = created.json["match_id"], created.json["seats"]
        verdicts = []
        for ply, move in enumerate(moves):
            r = clients[route[ply % len(route)]].post(
                f"/v1/matches/{match_id}/moves",
                json={"move": move, "ply": ply},
                headers={"Authorization": f"Bearer {seats[str(ply % 2)]}"},
            )
            assert r.status_code == 200, r.json
            verdicts.append((r.json["legal"], r.json["move"], r.json["state"], r.json["events"], r.json["ply"]))
        return verdicts

    kept = run("a")
    assert loads == []  # every move started from the state its own app made (the first from creation's)
    loaded = run("ab")
    assert loads == list(range(1, len(moves)))  # every move but the first came after the other app's move
    assert kept == loaded and kept[-1][2]["status"] == "finished"
    assert get_positions(app).get("no-such-match", "0") is None
