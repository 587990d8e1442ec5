"""Request ids and the log: every answer carries ``X-Request-ID``, every log line names it.

A client may send its own ``X-Request-ID`` (at most 128 characters of
letters, digits and ``-._:/+=@``); anything else, or none, and the server
makes one (32 hex digits).  The id comes back in the same header on every
answer, errors included, and is written in every log line the service writes
while answering (a filter adds it to each record), so one request can be
followed from the client through the logs.

Each answer is logged once, when it leaves: ``method``, ``path``,
``status``, ``duration_ms``.  ``LOG_FORMAT=json`` writes one JSON object per
line (``time``, ``level``, ``message``, ``request_id``, ``method``, ``path``,
``status``, ``duration_ms``, and ``logger``; an exception's traceback as
``exception``); ``text`` writes the same as plain text.  ``make run`` (service/run/serve.py)
defaults to json, a bare ``create_app()`` to text.

What a client sent (a path with ``%0A`` in it, a move in a message) can never
start a line of its own, in either format: JSON escapes every control
character, and the text format writes each control character, line separator
and backslash as a Python escape (``\n``, ``\x1b``, ``\u2028``, ``\\``), and a
traceback's lines behind ``  | ``, so that every line of the log that does not
begin so was written by the service itself.
"""

from __future__ import annotations

import atexit
import datetime
import json
import logging
import math
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring_ascii
from typing import IO, Any, TypeGuard

from flask import Flask, has_request_context, request
from werkzeug.routing import Rule
from werkzeug.wrappers import Request

HEADER = "X-Request-ID"
ENVIRON_KEY = "HTTP_X_REQUEST_ID"  # the header's key in the WSGI environment
ID_KEY = "umpire.request_id"  # the WSGI environment's key for the request's id (the client's, or made)
MAX_ID_CHARS = 128
SAFE_ID = re.compile(rf"[A-Za-z0-9\-._:/+=@]{{1,{MAX_ID_CHARS}}}")
LOGGER = "service"  # the package's logger: every module's log goes through it
FIELDS = ("request_id", "method", "path", "status", "duration_ms")

access = logging.getLogger("service.access")


def request_id() -> str | None:
    """The current request's id (None outside a request)."""
    if not has_request_context():
        return None
    rid: str | None = request.environ.get(ID_KEY)
    return rid


def valid_id(raw: str | None) -> TypeGuard[str]:
    return raw is not None and SAFE_ID.fullmatch(raw) is not None


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


class _Clock:
    """A record's time as ``isoformat(timespec="milliseconds")`` of its UTC datetime writes it, the date and
    time of day made once a second (issue 20: building a datetime for each line cost 3 µs of the ~10 its
    formatting takes)."""

    def __init__(self) -> None:
        self.second = -1
        self.text = ""

    def __call__(self, created: float) -> str:
        # datetime.fromtimestamp's own rounding: to the nearest microsecond, half to even, carrying into the second.
        fraction, whole = math.modf(created)
        micro = round(fraction * 1e6)
        second = int(whole)
        if micro >= 1_000_000:
            second, micro = second + 1, micro - 1_000_000
        elif micro < 0:
            second, micro = second - 1, micro + 1_000_000
        if second != self.second:
            self.text = datetime.datetime.fromtimestamp(second, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self.second = second
        return self.text + _MILLISECONDS[micro // 1000]


_MILLISECONDS = tuple(f".{ms:03d}+00:00" for ms in range(1000))  # each millisecond's end of a time, written once


when = _Clock()


_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)  # json.dumps with these made one for every line
_quote = encode_basestring_ascii  # a string as _ENCODER writes it (ensure_ascii: no raw U+2028 in a line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": when(record.created),
            "level": record.levelname.lower(),
            "message": record.getMessage(),
        }
        for key in FIELDS:
            out[key] = getattr(record, key, None)
        out["logger"] = record.name
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return _ENCODER.encode(out)

    def access_line(self, created: float, rid: str, method: str, path: str, status: int, took: float | None) -> str:
        """What :meth:`format` writes of an answer's record (:func:`init_app`), without the record: the same
        object, its strings escaped by the encoder's own function (tests/test_request_log.py compares).  What
        follows from the method, path and status alone is written once for each (:data:`_ANSWERED`)."""
        parts = _ANSWERED.get((method, path, status))
        if parts is None:
            if len(_ANSWERED) >= MOST_ANSWERED:
                _ANSWERED.clear()
            parts = _ANSWERED[method, path, status] = (
                f',"level":"info","message":{_quote(f"{method} {path} {status}")},"request_id":',
                f',"method":{_quote(method)},"path":{_quote(path)},"status":{int(status)},"duration_ms":',
            )
        took_text = "null" if took is None else float.__repr__(took)
        return f'{{"time":"{when(created)}"{parts[0]}{_quote(rid)}{parts[1]}{took_text},"logger":"{access.name}"}}'


# An answer's line, in JSON, by its method, path and status: the parts between the time, the request id and the
# duration (a play answers the same path with the same status again and again); at most MOST_ANSWERED kept.
_ANSWERED: dict[tuple[str, str, int], tuple[str, str]] = {}
MOST_ANSWERED = 1024


# Control characters (C0, DEL, C1), the characters str.splitlines() also breaks at, and the backslash.
_UNSAFE = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\\\]")


def _escape(char: re.Match[str]) -> str:
    return ascii(char.group())[1:-1] if char.group() != "\\" else "\\\\"


def escape(text: str) -> str:
    """``text`` on one line: control characters, line separators and ``\\`` as Python escapes (``\\n``, ``\\x1b``)."""
    return _UNSAFE.sub(_escape, text)


class TextFormatter(logging.Formatter):
    """``time level [request id] message``, and the duration of an answer (its message names method, path, status).
    The message is escaped (:func:`escape`): one record, one line, and a traceback's lines behind ``  | ``."""

    def format(self, record: logging.LogRecord) -> str:
        at = when(record.created)
        rid = getattr(record, "request_id", None) or "-"
        took = getattr(record, "duration_ms", None)
        message = escape(record.getMessage())
        line = f"{at} {record.levelname.lower()} [{escape(str(rid))}] {message}" + ("" if took is None else f" {took} ms")
        if record.exc_info:
            line += "".join(f"\n  | {escape(part)}" for part in self.formatException(record.exc_info).split("\n"))
        return line

    def access_line(self, created: float, rid: str, method: str, path: str, status: int, took: float | None) -> str:
        """What :meth:`format` writes of an answer's record (:func:`init_app`), without the record."""
        line = f"{when(created)} info [{escape(rid or '-')}] {escape(f'{method} {path} {status}')}"
        return line if took is None else f"{line} {took} ms"


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """The service's own handler (so that configuring twice replaces it, never adds a second).
    Without a stream of its own it writes to whatever ``sys.stderr`` is when a line is written."""

    def __init__(self, stream: IO[str] | None) -> None:
        super().__init__(stream or sys.stderr)
        self.follow = stream is None

    def emit(self, record: logging.LogRecord) -> None:
        if _kept:
            flush_lines()  # the answers before it came first
        if self.follow:
            self.stream = sys.stderr
        super().emit(record)

    def write_lines(self, lines: list[str]) -> None:
        """``lines`` written as :meth:`emit` writes a record's (to the same stream, under the lock, then
        flushed), in one write, each ended: for lines made without a record."""
        with self.lock:  # type: ignore[union-attr]  # created with the handler
            if self.follow:
                self.stream = sys.stderr
            self.stream.write(self.terminator.join(lines) + self.terminator)
            self.stream.flush()


# An answer as its line and its observers need it: (when it left, as time.time(); request id; method; path;
# status; seconds taken; the URL rule; the observers of the app that answered it).
Answer = tuple[float, str, str, str, int, float, "Rule | None", "list[Observer]"]

# The answers kept for their lines to be written and their observers told together (batch_lines), oldest first;
# how long the first waits, and how many are kept at most before they are taken at once, whatever the time.
_kept: list[Answer] = []
FLUSH_S = 0.1
MOST_KEPT = 1000

Later = Callable[[float, Callable[[], None]], Any]  # gevent.spawn_later: a function called after some seconds

# gevent.spawn_later in a gevent worker while the answers are kept (batch_lines), else None.
_later: Later | None = None
_pending: list[Any] = []  # what the calls of _later gave (greenlets) and may be waiting still: stop_batching cancels them


def schedule(pending: list[Any], later: Later, wait_s: float, flush: Callable[[], None]) -> None:
    """``flush`` within ``wait_s`` (``later``: gevent.spawn_later), what ``later`` gave kept in ``pending`` until it
    has run (a dead greenlet is dropped as more come) or :func:`cancel` cancels it.  The request log's lines and
    the metrics' timings (service/web/metrics.py) are written so."""
    if len(pending) >= 8:
        pending[:] = [p for p in pending if not getattr(p, "dead", False)]
    pending.append(later(wait_s, flush))


def cancel(pending: list[Any]) -> None:
    """The writes ``pending`` still waiting not made later, into what comes after the batching stopped."""
    for waiting in pending:
        kill = getattr(waiting, "kill", None)
        if kill is not None:
            kill(block=False)
    pending.clear()


def batch_lines(later: Later) -> None:
    """From now on nothing is made of an answer as it leaves: it is kept, and the lines of all kept are made and
    written together, in one write, and their observers told of each (the metrics), :data:`FLUSH_S` after the
    first of them (``later(FLUSH_S, flush_lines)``: gevent.spawn_later in a gevent worker), or at once when
    :data:`MOST_KEPT` are waiting.  Any other record writes them first, so the log keeps its order; a scrape of
    the metrics takes them first, so it counts every answer the worker has given.

    Issue 20, "Cost per request": made and written as each answer left (one write a turn of the loop), its line
    and its timing cost a request about 20 µs each of a gevent worker's CPU, measured served beside a worker
    without them (``bench served_steps``); kept and taken together, their code and data stay in the processor's
    caches.  service/run/gunicorn_conf.py calls this in a gevent worker, and :func:`flush_lines` as it exits; a
    worker killed outright loses at most :data:`FLUSH_S` of lines and timings."""
    global _later
    _later = later
    atexit.register(flush_lines)


def stop_batching() -> None:
    """Each answer's line written and its observers told as it leaves again, what was kept first."""
    global _later
    flush_lines()
    _later = None
    cancel(_pending)


def flush_lines() -> None:
    """Every answer kept: its line made and written, its observers told, now."""
    if _kept:
        answers = _kept[:]
        _kept.clear()  # before writing: a record written on the way (a failure's) finds none left to write
        _take(answers)


def _take(answers: list[Answer]) -> None:
    """What is made of ``answers``, kept or not: their lines (when the access log is on), then their observers told."""
    if access.isEnabledFor(logging.INFO):
        _log(answers)
    for _, _, method, _, status, seconds, rule, observers in answers:
        for observer in observers:
            observer(method, rule, status, seconds)


def _log(answers: list[Answer]) -> None:
    """``answers``' lines: written by the service's handler itself when it is their only way out
    (:func:`_sole_handler`), else, or when that write fails, as records, each its usual way (whose handler
    reports a failure as logging does)."""
    handler = _sole_handler()
    if handler is not None:
        formatter = handler.formatter
        assert isinstance(formatter, _FAST)
        try:
            handler.write_lines(
                [formatter.access_line(c, rid, m, path, s, round(sec * 1000, 3)) for c, rid, m, path, s, sec, _, _ in answers]
            )
            return
        except Exception:  # e.g. a closed stream: logging's own way reports it
            pass
    for created, rid, method, path, status, seconds, _, _ in answers:
        # access.info(...) without its search of the stack for the caller (no format writes it) and with every
        # field given, as the filter finds no request now: the same record, for less.
        took = round(seconds * 1000, 3)
        fields = {"request_id": rid, "method": method, "path": path, "status": status, "duration_ms": took}
        record = access.makeRecord(access.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None, extra=fields)
        record.created = created
        access.handle(record)


_FAST = (JsonFormatter, TextFormatter)  # formatters with an access_line
_service = logging.getLogger(LOGGER)


def _sole_handler() -> _Handler | None:
    """The service's own handler when an answer's line goes there and nowhere else, with nothing between
    that could change it (no other handler on the way to the root, no logger filter, the handler's only
    filter our :class:`RequestFilter`, which finds every field given): then :func:`init_app` writes the
    line itself, as the handler would, without building a record (issue 20, "Cost per request": the
    record and the logging machinery were a tenth of ``GET /v1/games``).  Else None: a test's capture,
    an operator's extra handler, see the record as before."""
    handlers = _service.handlers
    if len(handlers) != 1 or access.handlers or access.filters or _service.filters or not access.propagate:
        return None
    if _service.propagate and logging.root.handlers:
        return None
    handler = handlers[0]
    if type(handler) is not _Handler or handler.level > logging.INFO or type(handler.formatter) not in _FAST:
        return None
    if len(handler.filters) != 1 or type(handler.filters[0]) is not RequestFilter:
        return None
    return handler


def configure(fmt: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send the service's log to ``stream`` (standard error) in ``fmt`` (json or text)."""
    logger = logging.getLogger(LOGGER)
    flush_lines()  # the answers kept go where they were to go
    for old in [h for h in logger.handlers if isinstance(h, _Handler)]:
        logger.removeHandler(old)
    handler = _Handler(stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(RequestFilter())
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
    return handler


# Request ids: 128 random bits from a generator of this process's own, seeded from the system's randomness
# when made and again in each forked child (a gunicorn worker), so that no two processes share a sequence.
# Not a secret, so not the system's randomness each time: os.urandom's system call was 3% of a worker's time
# serving GET /v1/games (issue 20, "Cost per request"; py-spy, BENCHMARKS.md).
_ids = random.Random()
_pool: list[str] = []  # ids made together, taken one by one
POOL = 64


def _forked() -> None:
    _ids.seed()
    _pool.clear()  # the parent's ids are the parent's


os.register_at_fork(after_in_child=_forked)


def new_id() -> str:
    """A request id: 32 hex digits, 128 random bits.  Made :data:`POOL` at a time, from one draw of the generator
    written in hex at once (issue 20, "Cost per request": a draw and a formatting for each id were a fifth of the
    request log's own cost)."""
    if not _pool:
        digits = f"{_ids.getrandbits(128 * POOL):0{32 * POOL}x}"
        _pool.extend([digits[i : i + 32] for i in range(0, 32 * POOL, 32)])
    return _pool.pop()


# What every answer of the app carries, whatever answered it (a view, an error handler, Werkzeug's routing).
# nosniff: no browser guesses a type other than the one sent (issue 20: the page's hook set it on each answer).
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


class RequestLog:
    """WSGI middleware around the Flask app: each request's id (the client's ``X-Request-ID`` when valid, else 32
    hex digits made here) in the environment (:data:`ID_KEY`) for every log line written while answering; on
    its answer the id and :data:`EVERY_ANSWER`'s headers; once the app has answered, its line in the log and
    its figures to the observers.

    As Flask hooks this cost about a fifth of ``GET /v1/games`` through gunicorn (issue 20, "Cost per request":
    four hooks, each reaching ``request`` and ``g`` through their proxies, and Werkzeug's checked header
    setters); here the request is read once, from the environment, when the app starts its answer, and the
    headers are appended to the list it sends.  An answer's time runs from when the app is called to when it
    has returned (an event stream's, to its first bytes' leaving: the stream itself is not timed)."""

    def __init__(self, app: Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]], observers: list[Observer]):
        self.app, self.observers = app, observers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        raw = environ.get(ENVIRON_KEY)
        rid = environ[ID_KEY] = raw if valid_id(raw) else new_id()
        started = time.perf_counter()
        answer: list[Any] = []  # the status the app answered with, and Flask's request (None: no Flask request)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append((HEADER, rid))
            headers.extend(EVERY_ANSWER)
            answer[:] = (status, environ.get("werkzeug.request"))  # Flask's request: the environment's until it ends
            return start_response(status, headers, exc_info)

        body = self.app(environ, start)
        if not answer:
            return body
        seconds = time.perf_counter() - started
        status, req = answer
        if req is not None:
            method, path, rule = req.method, req.path, req.url_rule
        else:  # an app below Flask's answering by itself: what the environment says
            method, path, rule = environ.get("REQUEST_METHOD", ""), Request(environ).path, None
        kept: Answer = (time.time(), rid, method, path, int(status[:3]), seconds, rule, self.observers)
        if _later is None:
            _take([kept])
        else:  # kept, to be taken with the others (batch_lines)
            if not _kept:
                schedule(_pending, _later, FLUSH_S, flush_lines)
            _kept.append(kept)
            if len(_kept) >= MOST_KEPT:
                flush_lines()
        return body
