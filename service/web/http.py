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

Parsed by jiter, which refuses a key given twice and the constants itself, and
where it refuses, by the standard library's ``json.loads`` with its documented
hooks, which say why (:func:`loads`); loaded through the schema's own ``load``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import jiter
import orjson
from flask import current_app, request
from flask.json.provider import DefaultJSONProvider
from marshmallow import Schema
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.sansio.response import Response

from service.web.errors import BODY, ApiError, field_details
from service.web.guard import BODY as GUARDED

MAX_DEPTH = 16  # levels of arrays and objects; the deepest body a client needs has 4 (options.colors.0.0)
MAX_STRING_CHARS = 1000  # any string, object keys included (a move is at most this long)
MAX_ARRAY_ITEMS = 10000  # any array (a replayed record is at most this long)
MAX_OBJECT_MEMBERS = 1000  # any object (the largest board, side 10, has 271 cells)


# A number in a query string: ASCII digits only.  str.isdigit takes '²' and '①', which int() then refuses (a 500
# once), and int() and float() take '٣' (Arabic-Indic three), the fullwidth digits, '1_0', ' 3 ', 'nan' and 'inf',
# which no client means.
WHOLE = re.compile(r"-?[0-9]+")
DECIMAL = re.compile(r"-?(?:[0-9]{1,1000}(?:\.[0-9]{0,1000})?|\.[0-9]{1,1000})(?:[eE][-+]?[0-9]{1,4})?")
HUGE = 10**1000  # past every bound a query is checked against: a longer number is read as this (int() stops at 4,300 digits)


def whole_number(raw: str) -> int | None:
    """``raw`` as a whole number written in ASCII digits (an optional ``-``), or None when it is not one; one
    of more than a thousand digits is read as :data:`HUGE` (or its negative), beyond any bound it meets."""
    if not WHOLE.fullmatch(raw):
        return None
    if len(raw.lstrip("-")) > 1000:
        return -HUGE if raw.startswith("-") else HUGE
    return int(raw)


def decimal_number(raw: str) -> float | None:
    """``raw`` as a number written in ASCII digits, as JSON and Python write one (``3``, ``0.5``, ``.5``, ``1e-05``), or None."""
    return float(raw) if DECIMAL.fullmatch(raw) else None


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
    out = dict(items)
    if len(out) != len(items):
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON value")


def loads(text: str | bytes) -> Any:
    """JSON text as Python values: duplicate keys, non-JSON constants and lone
    surrogates raise ValueError (:class:`LoneSurrogate` naming where).

    Read by jiter (pydantic's parser), which refuses a key given twice and the constants itself
    (``catch_duplicate_keys``, ``allow_inf_nan``): the standard library with its hooks took four times as long
    (a ``play``'s body: 25 us against 6 us in timeit; BENCHMARKS.md, issue 33).  What jiter refuses is read again
    by the standard library, with the documented hooks that name what is wrong (``object_pairs_hook``: the key
    given twice; ``parse_constant``: NaN), or that read what jiter does not (UTF-16 or UTF-32, a byte-order mark),
    so every answer is the standard library's."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    try:
        data = jiter.from_json(raw, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys")
    except ValueError:
        data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    # An escape, a surrogate written in UTF-8's form (the parser reads bytes with "surrogatepass"), or UTF-16/32:
    if _SURROGATE_ESCAPE.search(raw) or b"\xed" in raw or not raw[:1].isascii() or b"\x00" in raw[:4]:
        path = _surrogate_at(data)
        if path is not None:
            raise LoneSurrogate(path)
    return data


def plainly_within_limits(raw: bytes) -> bool:
    """Whether JSON ``raw``, in UTF-8, is within every limit above by its bytes alone, without a walk of what it
    holds (issue 20, "Cost per request": the walk was 4% of a ``play``): fewer ``[`` and ``{`` than
    :data:`MAX_DEPTH` (none nests deeper), fewer commas than an array's or an object's limit (n members take
    n - 1 commas), and no run of bytes between quotes longer than :data:`MAX_STRING_CHARS` (with no escaped
    quote, a string or key is one such run, and holds no more characters than bytes; in UTF-8 no other
    character has a quote's byte).  False says nothing: :func:`check_limits` walks then."""
    if not raw[:1].isascii() or b"\x00" in raw[:4]:  # a byte-order mark, or UTF-16/32: walked
        return False
    if raw.count(b"[") + raw.count(b"{") >= MAX_DEPTH or raw.count(b",") >= min(MAX_ARRAY_ITEMS, MAX_OBJECT_MEMBERS):
        return False
    if len(raw) <= MAX_STRING_CHARS:
        return True
    return b'\\"' not in raw and max(map(len, raw.split(b'"'))) <= MAX_STRING_CHARS


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
    JSON, in the order given, as UTF-8, several times faster than the standard library (issue 20, "Cost per
    request": a ``play``'s answer took 7 µs to write with the standard library, under one with orjson).  What
    orjson does not write itself goes to Flask's ``default`` (dates as HTTP dates, as before); what it refuses
    (an integer beyond 64 bits) is written by the standard library, and what is not text (a lone surrogate,
    which only a test sends: tests/test_fuzz_states.py) as ``\\u`` escapes."""

    ensure_ascii = False  # the standard library's way writes what orjson writes
    sort_keys = False

    def orjson_options(self) -> int:
        return ORJSON_OPTIONS | (orjson.OPT_SORT_KEYS if self.sort_keys else 0)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs and self.compact is not False:
            try:
                return orjson.dumps(obj, default=self.default, option=self.orjson_options()).decode()
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
        """What Flask's ``jsonify`` answers (one value, or several as a list, or keyword arguments as an object),
        compact, ended by a newline; indented when Flask would indent it for a person reading it."""
        if self.compact is False or (self.compact is None and current_app.debug):
            return super().response(*args, **kwargs)
        if args and kwargs:
            raise TypeError("app.json.response() takes either arguments or keyword arguments, not both")
        obj = (args[0] if len(args) == 1 else list(args)) if args else kwargs or None
        try:
            body = orjson.dumps(obj, default=self.default, option=self.orjson_options() | orjson.OPT_APPEND_NEWLINE)
        except orjson.JSONEncodeError:
            body = f"{self.dumps(obj, separators=(',', ':'))}\n".encode()
        answer: Response = current_app.response_class(body, mimetype=self.mimetype)
        return answer


# Dates, times and dataclasses go to Flask's ``default``, as the standard library sent them.
ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


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


def json_body(
    schema: Schema, texts: frozenset[str] = frozenset(), plain: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
) -> dict[str, Any]:
    """The request body loaded through ``schema`` (``schema.load``).

    415 unless the content type is JSON; 400 when the body does not parse
    (an empty body included), names a key twice in one object
    (``duplicate_key``) or nests too deeply (``too_deeply_nested``); 413
    above ``MAX_BODY_BYTES``, sized or chunked; 422 when a
    string, array or object is over its limit, when it is not an object or
    does not match the schema (the ValidationError handler names the fields).
    ``plain``: what the schema loads a body of the view's usual plain shape to, found by a few comparisons
    (None for any other body, which the schema loads; service/web/schemas.py ``plain_play``).
    ``texts``: members of the body whose string is bounded by the schema alone (a record to import: its
    field says how long it may be), where any other string is at most :data:`MAX_STRING_CHARS`."""
    if not request.is_json:
        raise ApiError("unsupported_media_type", "Send the body as application/json.")
    raw = request.environ.get(GUARDED)  # read by the guard, within its deadline
    if raw is None:
        raw = request.get_data(cache=True)
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and len(raw) >= limit and request.content_length is None:
        # A body without Content-Length (chunked) is read up to the limit and cut there
        # (Werkzeug's LimitedStream raises only on a read past it): one that fills it is too large.
        raise RequestEntityTooLarge()
    try:
        data = loads(raw)
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
    if not plainly_within_limits(raw):
        check_limits({k: v for k, v in data.items() if k not in texts or not isinstance(v, str)} if texts else data)
    loaded: dict[str, Any] | None = None if plain is None else plain(data)
    if loaded is None:
        loaded = schema.load(data)
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
