"""Reading a managed-match request: query flags and numbers, the Idempotency-Key, and a
body read first but refused only after the match and the token are checked (API.md's order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request
from marshmallow import ValidationError

from service.web.errors import ApiError
from service.web.http import decimal_number, json_body, whole_number


def has_query() -> bool:
    """Whether the request has a query string at all (a harness's moves have none: nothing to read)."""
    return bool(request.query_string)


def flag(name: str) -> bool:
    raw = request.args.get(name)
    if raw is None:
        return False
    if raw.lower() not in ("1", "true", "0", "false"):
        raise ApiError("invalid_query", f"{name} must be true or false.", {"parameter": name})
    return raw.lower() in ("1", "true")


def number(name: str, least: float, most: float, whole: bool) -> float | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    value = whole_number(raw) if whole else decimal_number(raw)
    if value is None or not least <= value <= most:
        kind = "a whole number" if whole else "a number"
        raise ApiError("invalid_query", f"{name} must be {kind} from {least:g} to {most:g}.", {"parameter": name})
    return value


def idempotency_key() -> str | None:
    idem = request.headers.get("Idempotency-Key")
    if idem is not None and not 1 <= len(idem) <= 200:
        raise ApiError("invalid_header", "An Idempotency-Key has 1 to 200 characters.", {"header": "Idempotency-Key"})
    return idem


def deferred_body(
    schema: Any, plain: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
) -> Callable[[], dict[str, Any]]:
    """The body through ``schema`` (``plain``: what a body of the view's usual plain shape loads to, found by a few
    comparisons: service/web/http.py ``json_body``), read now but given - or refused, its error raised - only when
    called: once the match and the token are checked (API.md's order)."""
    try:
        body = json_body(schema, plain=plain)
    except (ApiError, ValidationError) as e:
        refused = e

        def refuse() -> dict[str, Any]:
            raise refused

        return refuse
    return lambda: body


def optional_body(schema: Any) -> Callable[[], dict[str, Any]]:
    """As :func:`deferred_body`, for a request whose body may be left out (a pause's reason, a
    take-back's ply): none at all reads as ``{}``; one sent is read and checked like any."""
    if not request.content_length and not request.headers.get("Transfer-Encoding") and not request.get_data(cache=True):
        return lambda: {}
    return deferred_body(schema)
