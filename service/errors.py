"""The one error shape, and the one place that maps failures to HTTP.

Every non-2xx answer is ``{"error": {"code", "message", "details"}}``
(API.md "Errors").  Views raise :class:`ApiError` (or let an engine or
marshmallow error escape); the handlers below turn everything - Werkzeug's own
HTTP errors and any unexpected exception included - into that shape.  No
answer ever carries a traceback: an unexpected exception is logged here and
answered with a fixed sentence.

A ``422`` names what to fix: ``details`` is ``{"field": first path, "fields":
{path: [messages]}}`` with dotted paths from the body's root
(``state.board.E5``, ``options.size``, ``moves.3``), whether the schema or the
engine found the fault.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from engine.errors import BadOptions, BadState, EngineError
from engine.registry import UnknownGame
from service import schemas

log = logging.getLogger(__name__)

BODY = "body"  # the path of the request body itself, when the body as a whole is wrong


class ApiError(Exception):
    """An HTTP failure with a stable code and a plain sentence."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


def error_response(status: int, code: str, message: str, details: Any = None) -> Response:
    """The one error shape, with ``status``."""
    resp = jsonify(schemas.error_response.dump({"error": {"code": code, "message": message, "details": details}}))
    resp.status_code = status
    return resp


def field_details(fields: Mapping[str, list[str]]) -> dict[str, Any]:
    """``details`` of a 422: the first offending path, and every path's messages."""
    return {"field": next(iter(fields)), "fields": dict(fields)}


def flatten_messages(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages (``{"moves": {3: ["..."]}}``) as dotted
    paths (``{"moves.3": ["..."]}``); schema-level messages belong to the
    enclosing path (``body`` at the root)."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, Mapping):
        for key, sub in messages.items():
            name = prefix if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
            for path, msgs in flatten_messages(sub, name).items():
                out.setdefault(path, []).extend(msgs)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out[prefix or BODY] = list(messages)
    elif isinstance(messages, list):
        for sub in messages:
            for path, msgs in flatten_messages(sub, prefix).items():
                out.setdefault(path, []).extend(msgs)
    else:
        out[prefix or BODY] = [str(messages)]
    return out


_HTTP_CODES = {
    400: ("malformed_json", "The request body is not valid JSON."),
    404: ("not_found", "There is nothing at this address."),
    405: ("method_not_allowed", "This address does not accept that method."),
    413: ("body_too_large", "The request body is larger than this server accepts."),
    415: ("unsupported_media_type", "Send the body as application/json."),
}


def engine_error_status(err: EngineError) -> int:
    """HTTP status of an engine error that escaped a view (BadState, BadOptions...)."""
    if isinstance(err, UnknownGame):
        return 404
    return 422


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Response:
        return error_response(err.status, err.code, err.message, err.details)

    @app.errorhandler(ValidationError)
    def _schema_error(err: ValidationError) -> Response:
        fields = flatten_messages(err.normalized_messages())  # type: ignore[no-untyped-call]
        first, msgs = next(iter(fields.items()))
        message = f"The request body does not match the schema: {first}: {msgs[0]}"
        return error_response(422, "invalid_body", message, field_details(fields))

    @app.errorhandler(EngineError)
    def _engine_error(err: EngineError) -> Response:
        details: Any = None
        if isinstance(err, BadState | BadOptions):
            details = field_details({err.field: [err.message]})
        return error_response(engine_error_status(err), err.code, err.message, details)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        status = err.code or 500
        code, message = _HTTP_CODES.get(status, ("http_error", err.description or "HTTP error."))
        details: Any = None
        headers: dict[str, str] = {}
        if status == 413:
            limit = current_app.config.get("MAX_CONTENT_LENGTH")
            message = f"The request body is larger than this server accepts ({limit} bytes)."
            details = {"limit": limit}
        if isinstance(err, MethodNotAllowed) and err.valid_methods:
            allowed = sorted(m for m in err.valid_methods if m not in ("HEAD", "OPTIONS"))
            details = {"allowed": allowed}
            headers["Allow"] = ", ".join(sorted(err.valid_methods))
        resp = error_response(status, code, message, details)
        resp.headers.update(headers)
        return resp

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        log.exception("unhandled error")  # the traceback goes to the log, never to the client
        return error_response(500, "internal_error", "The server failed to answer; the failure has been logged.")
