"""Reading request bodies: JSON objects only, parsed once, within stated limits,
failures in the one error shape.

What a client controls is bounded before any schema or engine sees it
(openapi.yaml "Limits"): the body's size (``MAX_BODY_BYTES``, Werkzeug's 413),
how deeply it nests, how long any string is, how many items an array and how
many members an object holds.  A key given twice in one object is refused
(``duplicate_key``): JSON leaves it undefined, and Python's parser would keep
the last silently, so two readers of one body could disagree about it.  Not
JSON at all (``NaN``, ``Infinity`` included) is ``malformed_json``.  A lone
surrogate (``"\\ud800"``: JSON's grammar allows the escape, but it is half of a
character, not one) is ``422 invalid_body`` naming the string's field: no
Unicode text, so no state, name or move can hold it (I-JSON, RFC 7493 §2.1).

:class:`StrictJSONProvider` makes every ``request.get_json()`` of the app
refuse duplicate keys and the non-JSON constants, so even the match hot path
(``service/matches/routes.py``) reads no body :func:`json_body` would not.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider
from marshmallow import RAISE, Schema, ValidationError, missing
from marshmallow.decorators import POST_LOAD, PRE_LOAD, VALIDATES, VALIDATES_SCHEMA
from marshmallow.fields import Field
from marshmallow.validate import And
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.sansio.response import Response

from service.web.context import config, current_request
from service.web.errors import BODY, ApiError, field_details
from service.web.guard import BODY as GUARDED

MAX_DEPTH = 16  # levels of arrays and objects; the deepest body a client needs has 4 (options.colors.0.0)
MAX_STRING_CHARS = 1000  # any string, object keys included (a move is at most this long)
MAX_ARRAY_ITEMS = 10000  # any array (a replayed record is at most this long)
MAX_OBJECT_MEMBERS = 1000  # any object (the largest board, side 10, has 271 cells)


class DuplicateKey(ValueError):
    """An object of the body names ``key`` twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} is given twice in one object")
        self.key = key


class NotJson(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python reads them, JSON has no such thing."""


class LoneSurrogate(ValueError):
    """A string of the body (at ``path``, dotted from its root) holds half of a surrogate pair."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: {SURROGATE_MESSAGE}")
        self.path = path


SURROGATE_MESSAGE = "A string must be Unicode text: it holds a lone surrogate (\\ud800-\\udfff), half of a character."
# A surrogate can reach a parsed string only through a \u escape (UTF-8 cannot encode one), so a body
# without such an escape needs no further look; a pair is joined by the parser, so what is left after it is lone.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON value")


def loads(text: str | bytes) -> Any:
    """JSON text as Python values: duplicate keys, non-JSON constants and lone
    surrogates raise ValueError (:class:`LoneSurrogate` naming where)."""
    if isinstance(text, bytes):
        quick = quick_loads(text)
        if quick is not None:
            return quick[0]
    return _loads(text)


_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19  # 19 digits in a row: a number orjson may read otherwise than Python (past 64 bits, a float)


def quick_loads(raw: bytes) -> tuple[Any] | None:
    """What :func:`_loads` makes of ``raw``, read by orjson (issue 20, "Cost per request": the standard library
    calling a Python function for each object took a tenth of a ``play``), or None where the two could
    differ and :func:`_loads` must read it:

    * what orjson refuses: not JSON, not UTF-8, a byte-order mark, ``NaN``, a lone surrogate, deep nesting
      (:func:`_loads` says which);
    * a run of 19 digits or more: past 64 bits orjson reads a number as a float, Python as an integer;
    * a ``\\u`` escape, which could write a colon in a string (``\\u003a``), for the next test's sake;
    * a key given twice in one object (orjson keeps the last): written again, the objects have fewer colons
      than the text had.  Every colon is a member's or a string's; without ``\\u`` escapes a string's colons
      are written as colons both times, and a dropped member takes its colon and its strings' with it.
    """
    if _LONG_NUMBER in raw.translate(_DIGITS_AS_ZEROS) or b"\\u" in raw:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    colons = raw.count(b":")
    if colons and orjson.dumps(data).count(b":") != colons:
        return None
    return (data,)


def plainly_within_limits(raw: bytes) -> bool:
    """Whether JSON ``raw`` (UTF-8 that parses) is within every limit above by its bytes alone, without a walk
    of what it holds: fewer ``[`` and ``{`` than :data:`MAX_DEPTH` (none nests deeper), fewer commas than an
    array's or an object's limit (n members take n - 1 commas), and no run of bytes between quotes longer
    than :data:`MAX_STRING_CHARS` (with no escaped quote, a string or key is one such run, and holds no more
    characters than bytes).  False says nothing: :func:`check_limits` walks then."""
    if raw.count(b"[") + raw.count(b"{") >= MAX_DEPTH or raw.count(b",") >= min(MAX_ARRAY_ITEMS, MAX_OBJECT_MEMBERS):
        return False
    if len(raw) <= MAX_STRING_CHARS:
        return True
    return b'\\"' not in raw and max(map(len, raw.split(b'"'))) <= MAX_STRING_CHARS


def _loads(text: str | bytes) -> Any:
    """:func:`loads` by the standard library, whose hooks name a duplicate key or a non-JSON constant."""
    data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _SURROGATE_ESCAPE.search(raw) or not raw[:1].isascii() or b"\x00" in raw[:4]:  # an escape, or UTF-16/32
        path = _surrogate_at(data)
        if path is not None:
            raise LoneSurrogate(path)
    return data


def _surrogate_at(data: Any) -> str | None:
    """The dotted path of the first string (or key) of ``data`` that holds a lone surrogate."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, parts = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return _path(parts)
        elif isinstance(value, list):
            stack.extend((v, (*parts, str(i))) for i, v in enumerate(value))
        elif isinstance(value, dict):
            for key, v in value.items():
                if _SURROGATE.search(key):
                    return _path((*parts, ascii(key)[1:-1]))  # the path itself must be sendable text
                stack.append((v, (*parts, key)))
    return None


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON (``app.json``), reading as :func:`loads` does, and writing with orjson: the same compact
    JSON, in the order given, as UTF-8 (as the managed matches' answers already were), several times faster
    (issue 20, "Cost per request": a ``play``'s answer took 7 µs to write with the standard library, under
    one with orjson).  What orjson does not write itself goes to Flask's ``default`` (dates as HTTP dates,
    as before); what it refuses (an integer beyond 64 bits) is written by the standard library, and what is
    not text (a lone surrogate, which only a test sends: tests/test_fuzz_states.py) as ``\\u`` escapes."""

    ensure_ascii = False  # the standard library's way writes what orjson writes
    sort_keys = False

    def _options(self) -> int:
        return _ORJSON_OPTIONS | (orjson.OPT_SORT_KEYS if self.sort_keys else 0)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs and self.compact is not False:
            try:
                return orjson.dumps(obj, default=self.default, option=self._options()).decode()
            except orjson.JSONEncodeError:
                pass
        if "indent" not in kwargs:  # compact as orjson writes it; indented as Flask writes it for a person
            kwargs.setdefault("separators", (",", ":"))
        text = super().dumps(obj, **kwargs)
        if "ensure_ascii" not in kwargs and not text.isascii():
            try:
                text.encode()
            except UnicodeEncodeError:  # a lone surrogate: not text, so escaped
                text = super().dumps(obj, **kwargs, ensure_ascii=True)
        return text

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)  # indented, for a person reading it
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, default=self.default, option=self._options() | orjson.OPT_APPEND_NEWLINE)
        except orjson.JSONEncodeError:
            body = f"{self.dumps(obj, separators=(',', ':'))}\n".encode()
        answer: Response = self._app.response_class(body, mimetype=self.mimetype)  # type: ignore[arg-type]  # bytes are a body
        return answer


# Dates, times and dataclasses go to Flask's ``default``, as the standard library sent them.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _path(parts: tuple[str, ...]) -> str:
    return ".".join(parts) or BODY


def within_limits(data: Any) -> bool:
    """Whether every string, array and object of ``data`` is within the limits above: the quick look every
    body gets, keeping no paths (issue 20: building each value's path was a tenth of a ``play``);
    :func:`check_limits` walks again, naming the field, only when it finds one over."""
    if isinstance(data, str):
        return len(data) <= MAX_STRING_CHARS
    if not isinstance(data, dict | list):
        return True
    most_chars = MAX_STRING_CHARS
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        if isinstance(value, dict):
            if len(value) > MAX_OBJECT_MEMBERS:
                return False
            for key in value:
                if len(key) > most_chars:
                    return False
            children = value.values()
        else:
            if len(value) > MAX_ARRAY_ITEMS:
                return False
            children = value
        for child in children:
            if isinstance(child, str):
                if len(child) > most_chars:
                    return False
            elif isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return True


def check_limits(data: Any) -> None:
    """Every string, array and object of ``data`` within the limits above:
    400 ``too_deeply_nested`` past :data:`MAX_DEPTH`, else 422 ``invalid_body``
    naming the first field over a limit."""
    if within_limits(data):
        return
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, parts = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_STRING_CHARS:
                _over(parts, f"A string is at most {MAX_STRING_CHARS} characters.")
            continue
        if not isinstance(value, dict | list):
            continue
        if len(parts) >= MAX_DEPTH:
            raise _too_deep()
        if isinstance(value, list):
            if len(value) > MAX_ARRAY_ITEMS:
                _over(parts, f"An array holds at most {MAX_ARRAY_ITEMS} items.")
            stack.extend((v, (*parts, str(i))) for i, v in enumerate(value))
        else:
            if len(value) > MAX_OBJECT_MEMBERS:
                _over(parts, f"An object holds at most {MAX_OBJECT_MEMBERS} members.")
            for key, v in value.items():
                if len(key) > MAX_STRING_CHARS:
                    _over(parts, f"A key is at most {MAX_STRING_CHARS} characters.")
                stack.append((v, (*parts, key)))


def _too_deep() -> ApiError:
    message = f"The request body nests arrays or objects more than {MAX_DEPTH} levels deep."
    return ApiError("too_deeply_nested", message, {"limit": MAX_DEPTH})


def _over(parts: tuple[str, ...], message: str) -> None:
    path = _path(parts)
    raise ApiError("invalid_body", f"The request body is over a limit: {path}: {message}", field_details({path: [message]}))


def json_body(schema: Schema, long: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The request body loaded through ``schema``; a string under one of the ``long`` keys
    of the body is the schema's to bound (a pasted record or post: issue 35), not
    :data:`MAX_STRING_CHARS`.

    415 unless the content type is JSON; 400 when the body does not parse
    (an empty body included), names a key twice in one object
    (``duplicate_key``) or nests too deeply (``too_deeply_nested``); 413
    above ``MAX_BODY_BYTES``, sized or chunked; 422 when a
    string, array or object is over its limit, when it is not an object or
    does not match the schema (the ValidationError handler names the fields)."""
    req = current_request()  # no proxy lookup (issue 20; service/web/context.py)
    environ = req.environ
    # The type every client sends, compared as it came, before Werkzeug parses the header (issue 20: a parse of
    # it on every body); any other spelling, parameters or a +json type are Werkzeug's to judge, as before.
    if environ.get("CONTENT_TYPE") != "application/json" and not req.is_json:
        raise ApiError("unsupported_media_type", "Send the body as application/json.")
    raw = environ.get(GUARDED)  # read by the guard, within its deadline, unless a test client calls the app
    if raw is None:
        raw = req.get_data(cache=True)
    limit = config().get("MAX_CONTENT_LENGTH")
    if limit is not None and len(raw) >= limit and req.content_length is None:
        # A body without Content-Length (chunked) is read up to the limit and cut there
        # (Werkzeug's LimitedStream raises only on a read past it): one that fills it is too large.
        raise RequestEntityTooLarge()
    quick = quick_loads(raw)
    try:
        data = quick[0] if quick is not None else _loads(raw)
    except DuplicateKey as e:
        raise ApiError(
            "duplicate_key", f"The request body gives the key {e.key!r} twice in one object.", {"key": e.key}
        ) from None
    except RecursionError:  # the parser's own limit, about a thousand levels
        raise _too_deep() from None
    except LoneSurrogate as e:
        raise ApiError(
            "invalid_body", f"The request body holds what is not text: {e}", field_details({e.path: [SURROGATE_MESSAGE]})
        ) from None
    except (ValueError, BadRequest):  # not JSON, not UTF-8, or a constant JSON does not have
        raise ApiError("malformed_json", "The request body is not valid JSON.") from None
    if not isinstance(data, dict):
        message = f"The request body must be a JSON object, not {_json_type(data)}."
        raise ApiError("invalid_body", message, field_details({BODY: [message]}))
    if quick is None or not plainly_within_limits(raw):
        check_limits({k: v for k, v in data.items() if k not in long or not isinstance(v, str)} if long else data)
    return load(schema, data)


# A schema's fields as its load walks them: (the body's key, the result's key, the field, whether it deserializes as
# marshmallow's ``Field`` does, its validators as one check or None), and the body's keys.
Plan = tuple[tuple[tuple[str, str, Field[Any], bool, And | None], ...], frozenset[str]]


def _checks(field: Field[Any]) -> tuple[bool, And | None]:
    """How :func:`load` reads ``field``'s value: whether as ``Field.deserialize`` does (not when its class changes
    how a value is deserialized or checked, ``deserialize``, ``_validate``, ``_validate_all`` or
    ``_validate_missing``, nor when it has ``pre_load`` or ``post_load`` functions), and its validators as
    ``Field._validate`` runs them: ``And`` of them all, made here once, where marshmallow makes one for every value
    (issue 20, cost per request), or None without any."""
    names = ("deserialize", "_validate", "_validate_all", "_validate_missing")
    plain = not any(getattr(type(field), name) is not getattr(Field, name) for name in names)
    return plain and not field.pre_load and not field.post_load, And(*field.validators) if field.validators else None


@functools.cache  # per schema object (a schema hashes by identity): the app's are made once, at import
def plan_of(schema: Schema) -> Plan | None:
    """What :func:`load` needs of ``schema``, made once: None when its load does more than deserialize each field
    (a hook of any kind, ``many``, ``partial``, unknown keys not refused, a result that is not a plain dict, a
    dotted attribute), so that only marshmallow's own load will do."""
    plain = not (schema.many or schema.partial) and schema.unknown == RAISE and schema.dict_class is dict
    if not plain or any(schema._hooks[tag] for tag in (PRE_LOAD, POST_LOAD, VALIDATES, VALIDATES_SCHEMA)):
        return None
    fields = schema.load_fields.items()
    walk = [(f.data_key if f.data_key is not None else name, f.attribute or name, f, *_checks(f)) for name, f in fields]
    if any("." in w[1] for w in walk):
        return None
    return tuple(walk), frozenset(w[0] for w in walk)


def load(schema: Schema, data: dict[str, Any]) -> dict[str, Any]:
    """``schema.load(data)``, the same dict, for less: a body every field of ``schema`` takes as it is is
    deserialized field by field, as marshmallow's load does (``Schema._deserialize``: each field's
    ``deserialize`` of the body's value, or of ``missing``, in the schema's order), without its error store,
    closures and hook checks; a value that is there, not null, of a field that checks it as ``Field`` does,
    deserialized and validated as ``Field.deserialize`` would (:func:`_checks`); anything else (a key the
    schema does not know, a field that refuses its value, a schema with hooks) goes through ``schema.load``,
    which answers it, errors included.  A ``play``'s body: 6.3 -> 2.6 us in timeit, its reading 33-36 -> 25-26
    us of a request in one process (issue 20, "schema checks"; bench play_parts; tests/test_json_bodies.py
    holds it to ``schema.load`` on every request schema)."""
    plan = plan_of(schema)
    if plan is not None and plan[1].issuperset(data):
        out: dict[str, Any] = {}
        try:
            for key, to, field, plain, check in plan[0]:
                value = data.get(key, missing)
                if not plain or value is missing or value is None:
                    value = field.deserialize(value, key, data)
                    if value is missing:
                        continue
                else:
                    value = field._deserialize(value, key, data)
                    if check is not None:
                        check(value)
                out[to] = value
        except ValidationError:
            pass  # marshmallow's load names every field that is wrong, not only this one
        else:
            return out
    loaded: dict[str, Any] = schema.load(data)
    return loaded


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"
