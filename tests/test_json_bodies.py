"""How the app reads a JSON body (service/web/http.py): by orjson where that gives what the standard
library with the app's hooks gives (``quick_loads``), and without a walk of the parsed values where the
body's bytes alone keep it within the limits (``plainly_within_limits``): issue 20, "Cost per request".
Either shortcut may decline; neither may answer otherwise than the long way (a duplicate key, a number
past 64 bits, a lone surrogate, a limit passed).  And the body through its schema (``load``): marshmallow's
result, or its own refusal, without its machinery where a schema has no hooks."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError, fields, validate, validates

from service.web import http, schemas
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


# -- a body through its schema (http.load): marshmallow's result, without its machinery --------------------------

REQUESTS = {name: schema for name, schema in vars(schemas).items() if name.endswith("_request") and isinstance(schema, Schema)}

# What a request's fields hold, right or wrong: every schema's fields are offered all of these.
WORDS = ["", " ", "E5", "D4 F6", "catchup", "bug", "svg", "png", "markdown", "reject", "https://x.example/b.png", "sgf", "greedy"]
FIELD_VALUES = (
    st.none()
    | st.booleans()
    | st.integers(-3, 300_000)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.sampled_from(WORDS)
    | st.lists(st.sampled_from(["E5", "D4", "", "Ann", 7]), max_size=3)
    | st.dictionaries(
        st.sampled_from(["size", "turn_s", "kind", "url", "board"]), st.integers(0, 9) | st.text(max_size=2), max_size=3
    )
)


def _long_load(schema: Schema, data: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", schema.load(data)
    except ValidationError as e:
        return "refused", e.normalized_messages()


def _fitting(field: Any) -> st.SearchStrategy[Any]:
    """Values ``field`` is likely to take (its choices, its range, its kind), so that the quick way is walked."""
    for v in field.validators:
        if isinstance(v, validate.OneOf):
            return st.sampled_from(list(v.choices))
    if isinstance(field, fields.List):
        inner = _fitting(field.inner)
        lengths = [v for v in field.validators if isinstance(v, validate.Length)]
        equal = lengths[0].equal if lengths else None
        return st.lists(inner, min_size=equal or 0, max_size=equal if equal is not None else 3)
    if isinstance(field, fields.Nested):
        nested = field.schema
        return st.fixed_dictionaries({(f.data_key or k): _fitting(f) for k, f in nested.load_fields.items() if f.required})
    if isinstance(field, fields.Boolean):
        return st.booleans()
    if isinstance(field, fields.Integer):
        return st.integers(0, 2000)
    if isinstance(field, fields.Float):
        return st.floats(0.001, 59, allow_nan=False)
    if isinstance(field, fields.Url):
        return st.just("https://x.example/b.png")
    if isinstance(field, fields.Dict):
        return st.dictionaries(st.sampled_from(["size", "turn_s", "board"]), st.integers(0, 9), max_size=2)
    if isinstance(field, schemas.MoveField | fields.String):
        return st.sampled_from(["E5", "D4 F6", "Ann", "x" * 41])
    return FIELD_VALUES


@st.composite
def request_bodies(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(REQUESTS)))
    fit = draw(st.sampled_from(["fitting", "mixed", "fitting"]))  # fitting: every required field, each value likely taken
    body: dict[str, Any] = {}
    for key, f in REQUESTS[name].load_fields.items():
        key = f.data_key or key
        if (fit == "fitting" and f.required) or draw(st.booleans()):
            body[key] = draw(_fitting(f) if fit == "fitting" or draw(st.booleans()) else FIELD_VALUES)
    if fit == "mixed" and draw(st.booleans()):
        body[draw(st.sampled_from(["stray", "sig", "STATE"]))] = 1  # a key the schema does not know
    return name, body


@settings(max_examples=1500, deadline=None)
@given(request_bodies())
def test_a_body_loads_through_its_schema_as_marshmallow_loads_it(case: tuple[str, dict[str, Any]]) -> None:
    """Issue 20, "schema checks": http.load answers as ``schema.load`` does, value for value (defaults made afresh
    included) or with its very refusal, for every request schema of the app."""
    name, body = case
    schema = REQUESTS[name]
    kind, expected = _long_load(schema, body)
    try:
        got: tuple[str, Any] = "ok", http.load(schema, body)
    except ValidationError as e:
        got = "refused", e.normalized_messages()
    assert got[0] == kind, (name, body)
    assert _same(got[1], expected) if kind == "ok" else got[1] == expected, (name, body, got, expected)


class _Refuses(Schema):
    """The long way only: a hook (here one that refuses a move of one step) is marshmallow's to run."""

    move = schemas.MoveField(required=True)

    @validates("move")
    def _two_steps(self, value: Any, **kwargs: Any) -> None:
        if isinstance(value, str) and " " not in value:
            raise ValidationError("two steps")


def test_the_quick_load_is_taken_for_what_clients_send_and_not_for_a_schema_with_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"state": {"board": {"a1": 0}}, "move": "D4 F6"}
    monkeypatch.setattr(schemas.play_request, "load", lambda *a, **k: pytest.fail("a play's body went the long way"))
    assert http.load(schemas.play_request, body) == {"state": {"board": {"a1": 0}}, "move": "D4 F6"}
    made = [http.load(schemas.new_request, {}) for _ in range(2)]
    assert made == [{"options": {}}] * 2 and made[0]["options"] is not made[1]["options"]  # load_default=dict, afresh
    assert http.plan_of(_Refuses()) is None
    # A play's fields deserialize as marshmallow's Field does, their validators made into one check once; a field
    # that deserializes its own way, or has load functions of its own, keeps its own deserialize.
    assert [plain for *_, plain, _ in http.plan_of(schemas.play_request)[0]] == [True, True]
    plain, check = http._checks(fields.String(validate=validate.Length(max=3)))
    assert plain and check is not None
    with pytest.raises(ValidationError):
        check("four")
    assert http._checks(fields.String(post_load=[str.upper]))[0] is False
    assert http._checks(fields.Constant(3))[0] is False  # its own _validate_missing
    with pytest.raises(ValidationError) as refused:
        http.load(_Refuses(), {"move": "D4"})
    assert refused.value.normalized_messages() == {"move": ["two steps"]}
