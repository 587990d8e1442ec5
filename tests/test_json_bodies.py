"""How the app reads a JSON body (service/web/http.py): by orjson where that gives what the standard
library with the app's hooks gives (``quick_loads``), and without a walk of the parsed values where the
body's bytes alone keep it within the limits (``plainly_within_limits``): issue 20, "Cost per request".
Either shortcut may decline; neither may answer otherwise than the long way (a duplicate key, a number
past 64 bits, a lone surrogate, a limit passed)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service.web import http
from service.web.http import MAX_DEPTH, MAX_OBJECT_MEMBERS, MAX_STRING_CHARS, plainly_within_limits, quick_loads


def _same(a: Any, b: Any) -> bool:
    """Equal, type for type (1 is not 1.0 nor True; -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or (math.isnan(a) and math.isnan(b)))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _long_way(raw: bytes) -> tuple[str, Any]:
    try:
        return "ok", http._loads(raw)
    except (ValueError, RecursionError) as e:
        return type(e).__name__, None


def _agrees(raw: bytes) -> None:
    quick = quick_loads(raw)
    if quick is None:
        return
    kind, value = _long_way(raw)
    assert kind == "ok", raw  # what the long way refuses, the quick way must never accept
    assert _same(quick[0], value), raw


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None))  # lone surrogates too (written as \u escapes)
)


@st.composite
def json_texts(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text as a client might write it: any spacing, escapes or not, and objects that may name a key twice."""
    space = draw(st.sampled_from(["", " ", "\n", "\t ", "\r\n"]))
    if depth >= 3 or draw(st.booleans()):
        value = draw(SCALARS)
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        items = draw(st.lists(json_texts(depth + 1), max_size=4))  # type: ignore[call-arg]
        return "[" + space + ("," + space).join(items) + space + "]"
    keys = draw(st.lists(st.sampled_from(["a", "b", ":", "a:b", '"', "\\", "é", "\ud800", "x" * 3]), max_size=4))
    pairs = [
        json.dumps(k, ensure_ascii=draw(st.booleans())) + space + ":" + space + draw(json_texts(depth + 1))  # type: ignore[call-arg]
        for k in keys
    ]
    return "{" + space + ("," + space).join(pairs) + space + "}"


@settings(max_examples=1500)
@given(json_texts())
@example('{"a":1,"a":2}')
@example('{"a":"x:y","a":2}')
@example('{"\\u0061":1,"a":2}')  # the same key, spelled two ways
@example('{"a":"\\u003a","a":"\\u003a"}')  # a member dropped, and a colon written as an escape comes out as one
@example("[123456789012345678901]")
@example("[18446744073709551616, -9223372036854775809, 18446744073709551615]")
@example('["\\ud800"]')
@example('"\\udc00\\ud800"')
@example("[1e309, -1e400, 1e-400, 5e-324, 2.2250738585072011e-308, -0.0, -0]")
@example("[NaN]")
@example("\ufeff{}")
def test_the_quick_read_is_the_long_reads_value_or_declines(text: str) -> None:
    _agrees(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=1500)
@given(st.binary(max_size=64))
@example(b'{"a":1}\xff')
@example(b'"\xed\xa0\x80"')  # a surrogate written in UTF-8's form
@example(b"\xef\xbb\xbf[]")
@example('{"a":1}'.encode("utf-16"))
def test_any_bytes_read_quickly_read_the_same_the_long_way(raw: bytes) -> None:
    _agrees(raw)


@pytest.mark.parametrize(
    "text",
    ['{"a":1,"a":2}', '{"b":{"a":1,"a":2}}', '[{"k":"v:w"},{"k":1,"k":"v:w"}]', '{"a":"\\u003a","a":"\\u003a"}'],
)
def test_a_key_given_twice_is_never_read_quickly(text: str) -> None:
    assert quick_loads(text.encode()) is None
    with pytest.raises(http.DuplicateKey):
        http.loads(text.encode())


def test_a_play_body_is_read_quickly() -> None:
    """The shortcut is taken by what clients send: a state, a move, names with accents written as UTF-8."""
    body = {"state": {"board": {"a1": 0, "b2": 1}, "players": ["Zoë", "José:1"], "scores": [1, 2]}, "move": "D4 F6"}
    raw = json.dumps(body, ensure_ascii=False).encode()
    assert quick_loads(raw) == (body,)
    assert plainly_within_limits(raw)


def _values_near_the_limits() -> st.SearchStrategy[Any]:
    strings = st.text(max_size=3) | st.integers(MAX_STRING_CHARS - 2, MAX_STRING_CHARS + 2).map(lambda n: "é" * n)
    keys = st.text(max_size=3) | st.just("k" * (MAX_STRING_CHARS + 1))
    leaves = st.none() | st.integers() | strings
    counts = st.integers(MAX_OBJECT_MEMBERS - 1, MAX_OBJECT_MEMBERS + 1)
    wide = st.builds(lambda n: [0] * n, counts) | st.builds(lambda n: {str(i): 0 for i in range(n)}, counts)
    return st.recursive(
        leaves | wide,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=6,
    )


def _nested(depth: int) -> Any:
    value: Any = 0
    for i in range(depth):
        value = [value] if i % 2 else {"d": value}
    return value


@settings(max_examples=300, deadline=None)
@given(_values_near_the_limits(), st.booleans())
@example(_nested(MAX_DEPTH), False)
@example(_nested(MAX_DEPTH - 1), False)
@example(_nested(MAX_DEPTH + 1), True)
@example(["x" * MAX_STRING_CHARS, 'y"' * 600], False)
@example({"k" * (MAX_STRING_CHARS + 1): 1}, True)
def test_a_body_plainly_within_the_limits_is_within_them(value: Any, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    if plainly_within_limits(raw):
        assert http.within_limits(value)


def test_the_bytes_alone_keep_small_bodies_within_the_limits_and_see_past_none() -> None:
    assert plainly_within_limits(json.dumps(_nested(MAX_DEPTH - 2)).encode())
    assert not plainly_within_limits(json.dumps(_nested(MAX_DEPTH)).encode())  # the walk decides
    assert not http.within_limits(_nested(MAX_DEPTH + 1))
    assert not plainly_within_limits(json.dumps(list(range(MAX_OBJECT_MEMBERS + 1))).encode())
    assert not plainly_within_limits(json.dumps({"s": "x" * (MAX_STRING_CHARS + 1), "t": 0}).encode())
    assert not plainly_within_limits(json.dumps({"s": 'x"' * MAX_STRING_CHARS}).encode())  # an escaped quote: walked
