"""The plain-body short cut of a stateless ``play`` (service/web/schemas.py ``plain_play``, issue 33): a few
comparisons instead of ``play_request.load`` for the body every client sends, and never a body the schema
would load otherwise or refuse.  (A managed move's is tests/matches/test_hot_path.py.)"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service import create_app
from service.web.schemas import MAX_MOVE_CHARS, plain_play, play_request

STATE = {"game": "catchup", "size": 5, "cells": "...", "ply": 3}


def schema_load(body: dict[str, Any]) -> dict[str, Any] | None:
    try:
        loaded: dict[str, Any] = play_request.load(body)
    except ValidationError:
        return None
    return loaded


EXAMPLES: list[dict[str, Any]] = [
    {"state": STATE, "move": "A1 A2"},
    {"move": "E5", "state": {}},
    {"state": STATE, "move": "x" * MAX_MOVE_CHARS},
    {"state": STATE, "move": "x" * (MAX_MOVE_CHARS + 1)},  # too long: the schema says so
    {"state": STATE, "move": ""},
    {"state": STATE, "move": " \t\n"},
    {"state": STATE, "move": ["D7", "F8"]},  # steps: the schema takes them, not the short cut
    {"state": STATE, "move": None},
    {"state": STATE, "move": 3},
    {"state": "a state", "move": "E5"},
    {"state": None, "move": "E5"},
    {"state": [STATE], "move": "E5"},
    {"state": STATE},
    {"move": "E5"},
    {"state": STATE, "move": "E5", "extra": 1},
    {"state": STATE, "Move": "E5"},
    {},
]
# Any JSON, in bodies of the play's keys, a near miss and another: what a client could send.
SCALARS = st.none() | st.booleans() | st.floats() | st.text(max_size=4)
ANY_JSON = st.recursive(SCALARS, lambda i: st.lists(i) | st.dictionaries(st.text(), i))
BODIES = st.sampled_from(EXAMPLES) | st.dictionaries(st.sampled_from(["state", "move", "Move", "x"]), ANY_JSON, max_size=3)


@settings(max_examples=500, deadline=None)
@given(BODIES)
def test_the_short_cut_takes_only_what_the_schema_takes_as_the_schema_gives_it(body: dict[str, Any]) -> None:
    fast = plain_play(body)
    assert fast is None or fast == schema_load(body)


def test_the_plain_body_of_every_client_takes_the_short_cut() -> None:
    assert plain_play({"state": STATE, "move": "A1 A2"}) == {"state": STATE, "move": "A1 A2"}
    assert plain_play({"move": "E5", "state": {}}) == {"state": {}, "move": "E5"}


def test_a_play_answers_as_before_through_the_short_cut_and_through_the_schema() -> None:
    """The same verdicts and refusals, byte for byte, whichever way the body was loaded: a plain body (the short
    cut) and the same move as its steps (the schema's way); a blank move, refused by the schema with its words."""
    client = create_app({}).test_client()
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 5}}).get_json()["state"]
    plain = client.post("/v1/games/catchup/play", json={"state": state, "move": "E5"})
    steps = client.post("/v1/games/catchup/play", json={"state": state, "move": ["E5"]})
    assert plain.status_code == steps.status_code == 200 and plain.get_json() == steps.get_json()
    blank = client.post("/v1/games/catchup/play", json={"state": state, "move": " "})
    assert blank.status_code == 422 and blank.get_json()["error"]["details"]["fields"] == {
        "move": ["A move must not be empty or only white space."]
    }
