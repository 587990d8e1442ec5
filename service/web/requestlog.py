"""What every request gets, in one WSGI middleware (:class:`RequestLog`): its id, its log line and its metric.

A client may send its own ``X-Request-ID`` (at most 128 characters of
letters, digits and ``-._:/+=@``); anything else, or none, and the server
makes one (32 hex digits).  The id comes back in the same header on every
answer, errors included, and is written in every log line the service writes
while answering (a filter adds it to each record), so one request can be
followed from the client through the logs.  Every answer also carries
``X-Content-Type-Options: nosniff``.

Each answer is logged once, when it leaves, through :mod:`logging` (the
``service.access`` logger): ``method``, ``path``, ``status``,
``duration_ms``.  ``LOG_FORMAT=json`` writes one JSON object per line
(``time``, ``level``, ``message``, ``request_id``, ``method``, ``path``,
``status``, ``duration_ms``, and ``logger``; an exception's traceback as
``exception``); ``text`` writes the same as plain text.  ``make run``
(service/run/serve.py) defaults to json, a bare ``create_app()`` to text.

What a client sent (a path with ``%0A`` in it, a move in a message) can never
start a line of its own, in either format: JSON escapes every control
character, and the text format writes each control character, line separator
and backslash as a Python escape (``\\n``, ``\\x1b``, ``\\u2028``, ``\\\\``), and a
traceback's lines behind ``  | ``, so that every line of the log that does not
begin so was written by the service itself.

A request whose target (path and query) is longer than :data:`MAX_TARGET_BYTES` is answered here, ``414
uri_too_long`` in the one error shape, before any routing (gunicorn's own limit on the request line,
service/run/serve.py, is above it, and deploy/nginx.conf answers longer lines in the same shape).

The middleware is modelled on Werkzeug's ``ProxyFix``: a small class around ``app.wsgi_app`` that reads the
WSGI environment and adds to the answer's headers, nothing reached inside Flask.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import IO, Any, TypeGuard

import orjson
from flask import Flask, has_request_context, request
from flask import Request as FlaskRequest
from werkzeug.routing import Rule
from werkzeug.wrappers import Request

from service.web.errors import ApiError
from service.web.guard import refuse

HEADER = "X-Request-ID"
ENVIRON_KEY = "HTTP_X_REQUEST_ID"  # the header's key in the WSGI environment
ID_KEY = "umpire.request_id"  # the WSGI environment's key for the request's id (the client's, or made)
MAX_ID_CHARS = 128
SAFE_ID = re.compile(rf"[A-Za-z0-9\-._:/+=@]{{1,{MAX_ID_CHARS}}}")
LOGGER = "service"  # the package's logger: every module's log goes through it
FIELDS = ("request_id", "method", "path", "status", "duration_ms")
# The longest request target (path and query string, as sent) answered; a longer one is 414 uri_too_long.  The
# longest the service itself makes is a few hundred bytes; gunicorn's limit on the whole request line is above
# this (service/run/serve.py LIMIT_REQUEST_LINE), so the refusal is this one, in the error shape.
MAX_TARGET_BYTES = 4096

access = logging.getLogger("service.access")


def request_id() -> str | None:
    """The current request's id (None outside a request)."""
    if not has_request_context():
        return None
    rid: str | None = request.environ.get(ID_KEY)
    return rid


def valid_id(raw: str | None) -> TypeGuard[str]:
    return raw is not None and SAFE_ID.fullmatch(raw) is not None


def new_id() -> str:
    """A request id: 32 hex digits, 128 bits from the system's randomness."""
    return os.urandom(16).hex()


class RequestFilter(logging.Filter):
    """Adds the request's id, method and path to every record written while answering it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context():
            if not hasattr(record, "request_id"):
                record.request_id = request.environ.get(ID_KEY)
            if not hasattr(record, "method"):
                record.method = request.method
            if not hasattr(record, "path"):
                record.path = request.path
        return True


def when(record: logging.LogRecord) -> str:
    """A record's time in UTC to the millisecond, as ``datetime.isoformat(timespec="milliseconds")`` writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}+00:00"


# What str.splitlines() breaks a line at that orjson writes as it is (it escapes every other control character):
# written as JSON's escapes, so that one record is one line however a line is split.
LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


class JsonFormatter(logging.Formatter):
    """One JSON object per line (orjson: the standard library's encoder took a quarter of a line's cost)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"time": when(record), "level": record.levelname.lower(), "message": record.getMessage()}
        for key in FIELDS:
            out[key] = getattr(record, key, None)
        out["logger"] = record.name
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        line = orjson.dumps(out, default=str).decode()
        return line if line.isascii() else line.translate(LINE_BREAKS)


# Control characters (C0, DEL, C1), the characters str.splitlines() also breaks at, and the backslash.
UNSAFE = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\\\]")


def _escaped(char: re.Match[str]) -> str:
    return ascii(char.group())[1:-1] if char.group() != "\\" else "\\\\"


def escape(text: str) -> str:
    """``text`` on one line: control characters, line separators and ``\\`` as Python escapes (``\\n``, ``\\x1b``)."""
    return UNSAFE.sub(_escaped, text)


class TextFormatter(logging.Formatter):
    """``time level [request id] message``, and the duration of an answer (its message names method, path, status).
    The message is escaped (:func:`escape`): one record, one line, and a traceback's lines behind ``  | ``."""

    def format(self, record: logging.LogRecord) -> str:
        rid = getattr(record, "request_id", None) or "-"
        took = getattr(record, "duration_ms", None)
        message = escape(record.getMessage())
        line = f"{when(record)} {record.levelname.lower()} [{escape(str(rid))}] {message}"
        if took is not None:
            line += f" {took} ms"
        if record.exc_info:
            line += "".join(f"\n  | {escape(part)}" for part in self.formatException(record.exc_info).split("\n"))
        return line


class ServiceHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The service's own handler (so that configuring twice replaces it, never adds a second).
    Without a stream of its own it writes to whatever ``sys.stderr`` is when a line is written."""

    def __init__(self, stream: IO[str] | None) -> None:
        super().__init__(stream or sys.stderr)
        self.follow = stream is None

    def emit(self, record: logging.LogRecord) -> None:
        if self.follow:
            self.setStream(sys.stderr)
        super().emit(record)


def configure(fmt: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send the service's log to ``stream`` (standard error) in ``fmt`` (json or text)."""
    logger = logging.getLogger(LOGGER)
    for old in [h for h in logger.handlers if isinstance(h, ServiceHandler)]:
        logger.removeHandler(old)
    handler = ServiceHandler(stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(RequestFilter())
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
    return handler


# What every answer of the app carries, whatever answered it (a view, an error handler, Werkzeug's routing).
# nosniff: no browser guesses a type other than the one sent.
EVERY_ANSWER = (("X-Content-Type-Options", "nosniff"),)

# Told of every answer when it leaves, after its line is written: (method, the URL rule or None, status, seconds).
Observer = Callable[[str, Rule | None, int, float], None]
OBSERVERS = "umpire.observers"  # the app's extension holding its observers (observe)


def init_app(app: Flask) -> None:
    """The log's format, and :class:`RequestLog` around the app (inside the body guard, service/web/guard.py,
    whose refusals an attacker can make by the hundred a second, and which therefore cost no line)."""
    configure(app.config["LOG_FORMAT"])
    observers: list[Observer] = app.extensions.setdefault(OBSERVERS, [])
    app.wsgi_app = RequestLog(app.wsgi_app, observers)  # type: ignore[method-assign]


def observe(app: Flask, observer: Observer) -> None:
    """``observer`` told of each answer of ``app`` (service/web/metrics.py times them so)."""
    app.extensions.setdefault(OBSERVERS, []).append(observer)


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class RequestLog:
    """WSGI middleware around the Flask app: each request's id (the client's ``X-Request-ID`` when valid, else
    made here) in the environment (:data:`ID_KEY`) for every log line written while answering; on its answer
    the id and :data:`EVERY_ANSWER`'s headers; once the app has answered, its line in the log and its figures
    to the observers.  An answer's time runs from when the app is called to when it has returned (an event
    stream's, to its first bytes' leaving: the stream itself is not timed)."""

    def __init__(self, app: WsgiApp, observers: list[Observer]):
        self.app, self.observers = app, observers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        raw = environ.get(ENVIRON_KEY)
        rid = environ[ID_KEY] = raw if valid_id(raw) else new_id()
        started = time.perf_counter()
        answered: list[Any] = []  # the status, and Flask's request (Werkzeug's ``populate_request``, until Flask ends it)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append((HEADER, rid))
            headers.extend(EVERY_ANSWER)
            answered[:] = (status, environ.get("werkzeug.request"))
            return start_response(status, headers, exc_info)

        sent = environ.get("RAW_URI")  # the target as sent (gunicorn's and Werkzeug's servers give it)
        target = len(sent) if isinstance(sent, str) else len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", ""))
        if target > MAX_TARGET_BYTES:
            message = f"The request's target (path and query) is over {MAX_TARGET_BYTES} bytes."
            body = refuse(start, ApiError("uri_too_long", message, {"limit": MAX_TARGET_BYTES}))
        else:
            body = self.app(environ, start)
        if not answered:
            return body
        seconds = time.perf_counter() - started
        status, req = int(answered[0][:3]), answered[1]
        if isinstance(req, FlaskRequest):
            method, path, rule = req.method, req.path, req.url_rule
        else:  # answered below Flask, or by the refusal above: what the environment says
            method, path, rule = environ.get("REQUEST_METHOD", ""), Request(environ).path, None
        if access.isEnabledFor(logging.INFO):
            # The record made and handled as Logger.info would, without its search of the stack for the caller
            # (no format writes it): Logger.makeRecord and Logger.handle, logging's documented parts.
            took = round(seconds * 1000, 3)
            fields = {"request_id": rid, "method": method, "path": path, "status": status, "duration_ms": took}
            access.handle(
                access.makeRecord(access.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None, extra=fields)
            )
        for observer in self.observers:
            observer(method, rule, status, seconds)
        return body
