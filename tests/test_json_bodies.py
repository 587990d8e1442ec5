"""How the app reads a JSON body (service/web/http.py): the standard library's ``json.loads`` with its documented
hooks (``object_pairs_hook`` refuses a key given twice, ``parse_constant`` the constants JSON does not have), then
the limits, then the schema's own ``load`` (issue 33: no reading around marshmallow, no counting of colons)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service import create_app
from service.web import http
from service.web.http import MAX_DEPTH, MAX_OBJECT_MEMBERS, MAX_STRING_CHARS


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


def _without_twice(text: str) -> tuple[str, Any]:
    """What Python's parser makes of ``text`` where no key is given twice and no constant or lone surrogate is
    in it (the app's answer must then be the same value), else how the app must refuse it."""
    seen_twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        seen_twice.extend(k for k in keys if keys.count(k) > 1)
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as e:
        return type(e).__name__, None
    if seen_twice:
        return "DuplicateKey", seen_twice
    return "ok", value


@settings(max_examples=1000)
@given(json_texts())
@example('{"a":1,"a":2}')
@example('{"\\u0061":1,"a":2}')  # the same key, spelled two ways
@example("[123456789012345678901]")
@example("[18446744073709551616, -9223372036854775809]")
@example("[1e309, -1e400, 1e-400, 5e-324, -0.0, -0]")
@example("[NaN]")
@example('{"a": [Infinity]}')
def test_a_body_reads_as_pythons_parser_reads_it_or_is_refused_for_its_cause(text: str) -> None:
    expected_kind, expected = _without_twice(text)
    try:
        got: tuple[str, Any] = "ok", http.loads(text.encode("utf-8", "surrogatepass"))
    except http.DuplicateKey as e:
        got = "DuplicateKey", e.key
    except http.LoneSurrogate:
        got = "LoneSurrogate", None
    except http.NotJson:
        got = "NotJson", None
    except (ValueError, RecursionError) as e:
        got = type(e).__name__, None
    if got[0] == "DuplicateKey":
        assert expected_kind == "DuplicateKey" and got[1] in expected, text
    elif got[0] == "LoneSurrogate":  # what Python reads holds half of a character
        assert expected_kind == "ok", text
        with pytest.raises(UnicodeEncodeError):
            json.dumps(expected, ensure_ascii=False).encode()
    elif got[0] == "NotJson":
        assert expected_kind == "ok" and any(c in text for c in ("NaN", "Infinity")), text
    else:
        assert got[0] == expected_kind, text
        if expected_kind == "ok":
            assert _same(got[1], expected), text
            json.dumps(expected, ensure_ascii=False).encode()  # and no lone surrogate was let through


@pytest.mark.parametrize(
    "text, key",
    [
        ('{"a":1,"a":2}', "a"),
        ('{"b":{"a":1,"a":2}}', "a"),
        ('[{"k":"v:w"},{"k":1,"k":"v:w"}]', "k"),
        ('{"\\u0061":1,"a":2}', "a"),
    ],
)
def test_a_key_given_twice_is_named(text: str, key: str) -> None:
    with pytest.raises(http.DuplicateKey) as refused:
        http.loads(text.encode())
    assert refused.value.key == key


@pytest.fixture
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


@pytest.mark.parametrize(
    "raw, status, code",
    [
        (b'{"options": {}, "options": {}}', 400, "duplicate_key"),
        (b'{"options": {"size": NaN}}', 400, "malformed_json"),
        (b'{"options": {"size": Infinity}}', 400, "malformed_json"),
        (b"[" * 5000 + b"]" * 5000, 400, "too_deeply_nested"),
        (json.dumps({"options": {"x": "\ud800"}}).encode(), 422, "invalid_body"),
        (b'{"options": {"x": "\xed\xa0\x80"}}', 422, "invalid_body"),  # a surrogate in UTF-8's form, no escape
        (b'{"options": ', 400, "malformed_json"),
        (b"", 400, "malformed_json"),
        (b"[]", 422, "invalid_body"),
    ],
)
def test_each_refusal_has_its_code(client: FlaskClient, raw: bytes, status: int, code: str) -> None:
    answer = client.post("/v1/games/catchup/new", data=raw, content_type="application/json")
    assert (answer.status_code, answer.get_json()["error"]["code"]) == (status, code)


def test_a_lone_surrogate_is_named_where_it_is(client: FlaskClient) -> None:
    raw = json.dumps({"options": {"names": ["ok", "\udc00"]}}).encode()
    error = client.post("/v1/games/catchup/new", data=raw, content_type="application/json").get_json()["error"]
    assert error["details"]["field"] == "options.names.1"


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


def _nested(depth: int) -> Any:
    value: Any = 0
    for i in range(depth):
        value = [value] if i % 2 else {"d": value}
    return value


def test_the_limits_hold_at_their_edges(client: FlaskClient) -> None:
    def status(body: Any) -> int:
        return client.post("/v1/games/catchup/new", json={"options": {}, "x": body}).status_code

    assert status(_nested(MAX_DEPTH - 2)) == 422  # within the limits: the schema refuses the stray key
    assert status(_nested(MAX_DEPTH)) == 400
    assert status("x" * (MAX_STRING_CHARS + 1)) == 422
    assert status(list(range(MAX_OBJECT_MEMBERS + 1))) == 422
    over = client.post("/v1/games/catchup/new", json={"options": {"k" * (MAX_STRING_CHARS + 1): 1}}).get_json()
    assert over["error"]["details"]["field"] == "options" and "A key is at most" in over["error"]["message"]


@settings(max_examples=200, deadline=None)
@given(_values_near_the_limits())
def test_the_quick_look_at_the_limits_agrees_with_the_walk(value: Any) -> None:
    try:
        http.check_limits(value)
    except Exception:
        refused = True
    else:
        refused = False
    assert http.within_limits(value) is not refused


@settings(max_examples=300, deadline=None)
@given(_values_near_the_limits(), st.booleans(), st.sampled_from(["utf-8", "utf-16", "utf-32"]))
@example(_nested(MAX_DEPTH), False, "utf-8")
@example(_nested(MAX_DEPTH - 1), False, "utf-8")
@example(["x" * MAX_STRING_CHARS, 'y"' * 600], False, "utf-8")
@example({"k" * (MAX_STRING_CHARS + 1): 1}, True, "utf-8")
@example(["\u2222" * (MAX_STRING_CHARS + 1)], False, "utf-16-le")  # a quote's byte in every character
def test_a_body_plainly_within_the_limits_by_its_bytes_is_within_them(value: Any, ascii_only: bool, encoding: str) -> None:
    """The look at a body's bytes that spares the walk (``plainly_within_limits``) never lets through what the
    walk refuses."""
    raw = json.dumps(value, ensure_ascii=ascii_only).encode(encoding)
    if http.plainly_within_limits(raw):
        assert http.within_limits(value)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_what_the_fast_parser_does_not_read_the_standard_library_reads_as_before(client: FlaskClient, encoding: str) -> None:
    """jiter reads UTF-8 alone; a body the standard library reads (a byte-order mark, UTF-16 or UTF-32, as JSON's
    RFC 4627 allowed) is read by it as before."""
    raw = json.dumps({"options": {"size": 3}}).encode(encoding)
    answer = client.post("/v1/games/catchup/new", data=raw, content_type="application/json")
    assert answer.status_code == 200 and answer.get_json()["state"]["options"]["size"] == 3
