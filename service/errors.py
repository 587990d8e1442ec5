"""The one error shape, and the one place that maps failures to HTTP.

Every non-2xx answer is ``{"error": {"code", "message", "details"}}``
(API.md "Errors").  Views raise :class:`ApiError` (or let an engine error
escape); the handlers below turn everything - including Werkzeug's own HTTP
errors and any unexpected exception - into that shape.  No answer ever
carries a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from engine.errors import BadOptions, BadState, EngineError
from engine.registry import UnknownGame

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An HTTP failure with a stable code and a plain sentence."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


def error_response(status: int, code: str, message: str, details: Any = None) -> Response:
    resp = jsonify({"error": {"code": code, "message": message, "details": details}})
    resp.status_code = status
    return resp


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
        return error_response(422, "invalid_body", "The request body does not match the schema.", err.normalized_messages())

    @app.errorhandler(EngineError)
    def _engine_error(err: EngineError) -> Response:
        details: Any = None
        if isinstance(err, BadState | BadOptions):
            details = {"field": err.field}
        return error_response(engine_error_status(err), err.code, err.message, details)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        status = err.code or 500
        code, message = _HTTP_CODES.get(status, ("http_error", err.description or "HTTP error."))
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            message = f"The request body is larger than this server accepts ({limit} bytes)."
        return error_response(status, code, message)

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        log.exception("unhandled error")
        return error_response(500, "internal_error", "The server failed to answer; the failure has been logged.")
