"""How the app writes JSON (service/web/http.py ``StrictJSONProvider``): with orjson (issue 20, "Cost per
request"), the same compact JSON as the standard library, keys in the order given, UTF-8 rather than
``\\u`` escapes, and whatever orjson does not write itself written as Flask wrote it before."""

from __future__ import annotations

import datetime
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from service import create_app

APP = create_app({"TESTING": True})

# JSON without floats (orjson and the standard library spell some floats differently: 1e16 / 1e+16).
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


def _stdlib(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(JSON_VALUES)  # text without lone surrogates (Hypothesis's default): no answer holds one (issue 20, item 4)
def test_an_answer_is_the_standard_librarys_compact_json_byte_for_byte(value: Any) -> None:
    with APP.app_context():
        assert APP.json.dumps(value) == _stdlib(value)
        assert APP.json.response(value).get_data() == (_stdlib(value) + "\n").encode()


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_reads_back_as_the_same_number(x: float) -> None:
    with APP.app_context():
        assert json.loads(APP.json.response({"x": x}).get_data()) == {"x": x}


def test_utf_8_big_integers_and_dates() -> None:
    with APP.app_context():
        resp = APP.json.response({"name": "Zoë ☃", "n": 2**70, "order": [3, 1, 2]})
        assert resp.mimetype == "application/json"
        # An integer orjson refuses (beyond 64 bits) is written by the standard library, the same way.
        assert resp.get_data() == '{"name":"Zoë ☃","n":1180591620717411303424,"order":[3,1,2]}\n'.encode()
        day = datetime.datetime(2026, 11, 27, 15, 0, tzinfo=datetime.UTC)
        assert APP.json.dumps({"at": day}) == '{"at":"Fri, 27 Nov 2026 15:00:00 GMT"}'  # Flask's default, as before


def test_a_view_s_dict_is_answered_so() -> None:
    client = APP.test_client()
    resp = client.post("/v1/games/catchup/new", json={"options": {"size": 3}})
    assert resp.status_code == 200
    assert resp.data.endswith(b"}\n") and b", " not in resp.data and b'": ' not in resp.data
    assert resp.data == (_stdlib(json.loads(resp.data)) + "\n").encode()


def test_what_is_not_text_is_escaped_not_refused() -> None:
    """A lone surrogate is no text (a request holding one is 422, issue 20 item 4), but the test client writes
    its requests with the app's JSON: tests/test_fuzz_states.py sends them, so they are written, escaped."""
    with APP.app_context():
        assert APP.json.dumps({"game": "\ud800", "n": 1}) == '{"game":"\\ud800","n":1}'
        assert APP.json.response({"game": "\ud800"}).get_data() == b'{"game":"\\ud800"}\n'


def test_in_debug_an_answer_is_indented_as_flask_writes_it() -> None:
    debug = create_app({"TESTING": True})
    debug.debug = True
    with debug.app_context():
        value = {"name": "Zoë", "order": [3, 1]}
        assert debug.json.response(value).get_data() == (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()
