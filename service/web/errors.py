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

from flask import Response, current_app, jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed, TooManyRequests

from engine.errors import BadOptions, BadState, EngineError, FieldError
from engine.registry import UnknownGame
from service.web import schemas

log = logging.getLogger(__name__)

BODY = "body"  # the path of the request body itself, when the body as a whole is wrong


class ApiError(Exception):
    """An HTTP failure with a stable code and a plain sentence; its status is the code's in :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str, details: Any = None, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status_of(code)
        self.code = code
        self.message = message
        self.details = details
        self.headers = dict(headers or {})  # Retry-After of a 429 or a 503


def status_of(code: str) -> int:
    """The HTTP status of an error code: the one table (:data:`ERROR_CODES`) says it, nowhere else."""
    try:
        return ERROR_CODES[code][0]
    except KeyError:
        raise ValueError(f"error code {code!r} is not in ERROR_CODES: list it there, with its status") from None


def error_response(code: str, message: str, details: Any = None) -> Response:
    """The one error shape, with the code's status."""
    return _shaped(status_of(code), code, message, details)


def _shaped(status: int, code: str, message: str, details: Any = None) -> Response:
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
    401: ("unauthorized", "This needs a bearer token the server knows: Authorization: Bearer <token>."),
    404: ("not_found", "There is nothing at this address."),
    405: ("method_not_allowed", "This address does not accept that method."),
    413: ("body_too_large", "The request body is larger than this server accepts."),
    415: ("unsupported_media_type", "Send the body as application/json."),
    429: ("rate_limited", "Too many requests: wait for Retry-After seconds, then send again."),
}

# Every code an error answer may carry, with its status and when: the spec's
# table of error codes is generated from this (service/api/openapi.py), and a test
# finds every code the service raises here.  Codes of illegal moves are not
# errors (a verdict carries them): engine/errors.py lists those.
ERROR_CODES: dict[str, tuple[int, str]] = {
    "malformed_json": (400, "the body is not JSON (`NaN` and `Infinity` are not JSON either)"),
    "duplicate_key": (400, "an object of the body gives one key twice (`details.key` names it)"),
    "too_deeply_nested": (400, "the body nests arrays or objects more than 16 levels deep"),
    "unauthorized": (
        401,
        "no bearer token, or not one this match (or this server's umpire token, or its metrics token for `/metrics`) knows",
    ),
    "invalid_signature": (
        401,
        "`POST /v1/discord/interactions` without `X-Signature-Ed25519` and `X-Signature-Timestamp`, or not signed by the"
        " application's key (`DISCORD_PUBLIC_KEY`)",
    ),
    "stale_interaction": (
        401,
        "a Discord interaction signed more than `DISCORD_MAX_AGE_S` from the server's time (`details.max_age_s`)",
    ),
    "token_replaced": (
        401,
        "a seat's token the umpire replaced with a new one (`POST .../seats/{seat}/token`): ask the umpire for the new"
        " link (`details.seat`)",
    ),
    "not_your_turn": (403, "a match's seat that may not move now (`details.may_move`, `details.proxy`)"),
    "admin_disabled": (403, "listing matches needs `ADMIN_TOKEN` set on the server"),
    "not_umpire": (403, "a seat's token where the match's umpire token is needed (the umpire's controls)"),
    "not_found": (404, "nothing at this address"),
    "unknown_game": (404, "no game by that name (`POST /v1/matches`)"),
    "match_not_found": (404, "no match by that id (never created, or expired)"),
    "method_not_allowed": (405, "the address does not take the method (`details.allowed`)"),
    "stale_ply": (409, "a move for a ply that is not the match's (`details.ply`: the match's ply)"),
    "taken_back": (
        409,
        "a move sent again (the same ply and move, or its `Idempotency-Key`) that was applied and then taken back by"
        " the umpire: it does not stand (`details.ply`: the match's ply, `details.move`)",
    ),
    "paused": (409, "a move while the umpire has paused the match's clocks"),
    "not_started": (409, "a move (or a pause) before the umpire's start of a match created with `clock.start: umpire`"),
    "already_started": (409, "the umpire's start of clocks that have started already"),
    "already_paused": (409, "the umpire's pause of clocks paused already"),
    "not_paused": (409, "the umpire's resumption of clocks that are not paused"),
    "cannot_take_back": (
        409,
        "the umpire's take-back finds no move to take back (`details.why`: `start`, `taken_back`, `not_a_move` with"
        " `details.kind`, `too_late`)",
    ),
    "too_many_umpires": (
        409,
        "a co-umpire link past the match's bound: at most 3 at once, 10 made (`details.limit`, `details.made`)",
    ),
    "too_many_controls": (
        409,
        "the umpire's pause, gift of time, new seat token, co-umpire link or take-back past the match's bound of 100 of"
        " them (`details.limit`, `details.made`): recorded nowhere; resuming, starting, withdrawing a link, aborting and"
        " adjudicating still work",
    ),
    "interaction_replayed": (409, "a Discord interaction whose id was answered already: a command is never played twice"),
    "busy": (409, "the match changed too often while a request was judged; send it again"),
    "match_finished": (410, "the match is over (`details.end`, `details.winner`)"),
    "body_too_large": (413, "the body is over `MAX_BODY_BYTES` (`details.limit`)"),
    "uri_too_long": (
        414,
        "the request's target (path and query) is over 4096 bytes (`details.limit`); a proxy in front answers a longer"
        " request line so too",
    ),
    "unsupported_media_type": (415, "the body is not sent as `application/json`"),
    "invalid_body": (422, "the body does not match the schema, or a value is over a limit (`details.fields`)"),
    "invalid_header": (422, "a header is malformed (`details.header`: `Idempotency-Key`, 1 to 200 characters)"),
    "invalid_query": (422, "a query parameter is out of range (`details.parameter`)"),
    "idempotency_key_reused": (422, "this `Idempotency-Key` was used for another move (`details.header`)"),
    "invalid_interaction": (
        422,
        "a signed Discord interaction this service does not read (not a slash command, or a field missing)",
    ),
    "webhook_refused": (
        422,
        "a webhook of a new match the server will not post to: a host not in `WEBHOOK_ALLOW` (or none allowed), a user"
        " name, a fragment (`details.field`: `webhooks.N.url`, or `webhooks`)",
    ),
    "ply_not_reached": (422, "a match picture's or post's `ply` is past the end of its record (`details.last`: the latest)"),
    "bad_state": (
        422,
        "a state is malformed or impossible, or the `before`, `move`, `events` or `clock` sent with it to be drawn"
        " do not fit it (`details.fields` names the field)",
    ),
    "bad_options": (422, "options are unknown, out of range, or set up an impossible position (`details.fields`)"),
    "bad_record": (422, "a game record to import cannot be read (`details.line`, `details.token`: where)"),
    "unknown_format": (422, "a record format the game does not read or write (`details.formats`: those it does)"),
    "budget_too_large": (
        422,
        "a suggestion's `budget_s` is over this server's `SUGGEST_MAX_BUDGET_S` (`details.max`; `details.field`: `budget_s`)",
    ),
    "game_over": (422, "the state sent for a suggestion is of a finished game: there is no move to suggest"),
    "bot_unavailable": (422, "the game declares nothing the bot needs (the greedy bot: a position evaluation; `details.bot`)"),
    "bad_signature": (
        422,
        "signing is on and the state's `sig` is missing or wrong, or its `origin` is not `start` or `setup`"
        " (`details.fields`: `state.sig`, `state.origin`)",
    ),
    "body_timeout": (408, "the body did not arrive within `BODY_TIMEOUT_S` (`details.timeout_s`); the connection is closed"),
    "rate_limited": (
        429,
        "over `RATE_LIMIT`, or `CREATE_RATE_LIMIT` creating matches, or `RENDER_RATE_LIMIT` drawing pictures, or"
        " `PNG_RATE_LIMIT` for a PNG picture that must be rendered, or `SUGGEST_RATE_LIMIT` asking for suggestions"
        " (`Retry-After` says when to send again; `details.limit`)",
    ),
    "too_many_attempts": (
        429,
        "a seat's illegal move past the turn's bound of refused ones (`details.limit`, `details.ply`): not recorded; the"
        " clock runs on, a legal move is judged as ever (`Retry-After`: until the turn's time is up)",
    ),
    "too_many_concurrent": (
        429,
        "this address already holds as many event streams and long-polls (`MAX_LISTENERS_PER_ADDRESS`) or request bodies"
        " being sent (`MAX_BODIES_PER_ADDRESS`, after waiting `BODY_TIMEOUT_S` for a turn) as one app process allows"
        " (`details.what`, `details.limit`; `Retry-After`)",
    ),
    "internal_error": (500, "a bug; it is logged, with the request id"),
    "unavailable": (503, "Redis is not answering (`details.redis`: `down`, `timeout`, `misconfigured`, `cluster_state`)"),
    "search_busy": (
        503,
        "every searcher of the built-in bots is busy and the queue is full, or a search took too long (`Retry-After`)",
    ),
    "render_busy": (503, "every PNG renderer is busy and the queue is full, or a rendering took too long (`Retry-After`)"),
    "too_many_listeners": (
        503,
        "the match has as many event streams and long-polls as one app process allows (`MAX_LISTENERS_PER_MATCH`,"
        " `details.limit`; `Retry-After`)",
    ),
    "outcome_unknown": (
        503,
        "Redis did not confirm a change to a match, which may or may not have been applied: send it again (same ply, same key)",
    ),
}


def engine_error_status(err: EngineError) -> int:
    """HTTP status of an engine error that escaped a view (BadState, BadOptions...): its code's in the table; a
    code of an illegal move (engine/errors.py, never an HTTP error by design) would be a 422."""
    if isinstance(err, UnknownGame):
        return status_of("unknown_game")
    return ERROR_CODES[err.code][0] if err.code in ERROR_CODES else 422


# The handlers create_app registers (service/__init__.py): every error becomes the one error shape.


def api_error(err: ApiError) -> Response:
    resp = error_response(err.code, err.message, err.details)
    resp.headers.update(err.headers)
    return resp


def schema_error(err: ValidationError) -> Response:
    fields = flatten_messages(err.normalized_messages())  # type: ignore[no-untyped-call]
    first, msgs = next(iter(fields.items()))
    message = f"The request body does not match the schema: {first}: {msgs[0]}"
    return error_response("invalid_body", message, field_details(fields))


def engine_error(err: EngineError) -> Response:
    details: Any = None
    if isinstance(err, BadState | BadOptions):
        details = field_details({err.field: [err.message]})
    elif isinstance(err, FieldError):  # a record's line and token, ...: what the error itself says besides its words
        details = {k: v for k, v in err.to_json().items() if k not in ("code", "message")}
    return _shaped(engine_error_status(err), err.code, err.message, details)


def http_error(err: HTTPException) -> Response:
    status = err.code or 500
    code, message = _HTTP_CODES.get(status, ("http_error", err.description or "HTTP error."))
    details: Any = None
    headers: dict[str, str] = {}
    if status == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        message = f"The request body is larger than this server accepts ({limit} bytes)."
        details = {"limit": limit}
    if isinstance(err, TooManyRequests):
        limit = getattr(getattr(err, "limit", None), "limit", None)
        details = {"limit": str(limit) if limit is not None else None}
        retry = err.retry_after if hasattr(err, "retry_after") else None
        if retry is not None:
            headers["Retry-After"] = str(retry)
    if isinstance(err, MethodNotAllowed) and err.valid_methods:
        allowed = sorted(m for m in err.valid_methods if m not in ("HEAD", "OPTIONS"))
        details = {"allowed": allowed}
        headers["Allow"] = ", ".join(sorted(err.valid_methods))
    resp = _shaped(status, code, message, details)  # Werkzeug's status, whatever it is
    resp.headers.update(headers)
    return resp


def unexpected_error(err: Exception) -> Response:
    log.exception("unhandled error")  # the traceback goes to the log, never to the client
    return error_response("internal_error", "The server failed to answer; the failure has been logged.")
