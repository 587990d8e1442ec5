"""Reading request bodies: JSON objects only, parsed once, failures in the one error shape."""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import Schema
from werkzeug.exceptions import BadRequest

from service.errors import BODY, ApiError, field_details


def json_body(schema: Schema) -> dict[str, Any]:
    """The request body loaded through ``schema``.

    415 unless the content type is JSON; 400 when the body does not parse
    (an empty body included) or nests too deeply for the parser; 413 (raised by Werkzeug while reading) above
    ``MAX_CONTENT_LENGTH``; 422 when it is not an object or does not match
    the schema (the ValidationError handler names the fields)."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    try:
        data = request.get_json()
    except BadRequest:
        raise ApiError(400, "malformed_json", "The request body is not valid JSON.") from None
    except RecursionError:  # the parser's own limit, about a thousand levels; no state is that deep
        raise ApiError(400, "too_deeply_nested", "The request body nests arrays or objects too deeply to read.") from None
    if not isinstance(data, dict):
        message = f"The request body must be a JSON object, not {_json_type(data)}."
        raise ApiError(422, "invalid_body", message, field_details({BODY: [message]}))
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
