"""Reading request bodies: JSON only, parsed once, with the one error shape."""

from __future__ import annotations

from typing import Any

from flask import request
from marshmallow import Schema

from service.errors import ApiError


def json_body(schema: Schema) -> dict[str, Any]:
    """The request body loaded through ``schema``.

    415 unless the content type is JSON; 400 when it does not parse; 422 (by
    the ValidationError handler) when it does not match the schema."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "malformed_json", "The request body is not valid JSON.")
    if not isinstance(data, dict):
        raise ApiError(422, "invalid_body", "The request body must be a JSON object.", {"_schema": ["Expected an object."]})
    loaded: dict[str, Any] = schema.load(data)
    return loaded
