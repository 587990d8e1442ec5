"""The request log's line for each answer, written without a log record when the service's own handler is
the only place it goes (service/web/requestlog.py ``_sole_handler``; issue 20, "Cost per request").

The line must be exactly what the record would have made, in both formats, whatever the path holds (the
escaping of issue 20's forged lines included), and any other handler on the way (a test's capture, an
operator's) must still get the record.
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from test_settings import checked

from service.web import requestlog

PATHS = [
    "/v1/games",
    "/v1/games/catchup/nowhere",
    "/v1/x\n2026-01-01T00:00:00.000+00:00 info [admin] POST /v1/matches/abc/abort 200 1.0 ms\u2028\x1b[2J\\",
    "/v1/caf\u00e9/\u2603/\x7f\x9f",
]


@contextmanager
def as_in_a_server() -> Iterator[None]:
    """No handler on the root logger, as in a server (pytest's log capture sits there while a test runs,
    put there as each phase starts, so this is entered in the test's body)."""
    handlers = logging.root.handlers
    logging.root.handlers = []
    try:
        yield
    finally:
        logging.root.handlers = handlers
        requestlog.configure("text")  # back to standard error


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("took", [None, 0.0, 12.345])
@pytest.mark.parametrize("path", PATHS)
def test_the_line_without_a_record_is_the_records_line(fmt: str, took: float | None, path: str) -> None:
    formatter = requestlog.JsonFormatter() if fmt == "json" else requestlog.TextFormatter()
    fields = {"request_id": "req-1", "method": "GET", "path": path, "status": 404, "duration_ms": took}
    access = requestlog.access
    for created in (1_790_000_000.0004996, 1_790_000_000.9999996, 1_790_000_001.25):
        record = access.makeRecord(access.name, logging.INFO, "x.py", 0, "%s %s %s", ("GET", path, 404), None, extra=fields)
        record.created = created
        assert formatter.access_line(created, "req-1", "GET", path, 404, took) == formatter.format(record)


def _served(fmt: str, *, extra_handler: logging.Handler | None) -> tuple[list[str], int]:
    """The log lines of a few requests, and how many log records the access logger made for them."""
    stream = io.StringIO()
    client = checked(LOG_FORMAT=fmt)
    requestlog.configure(fmt, stream)
    made = 0
    real = requestlog.access.makeRecord

    def counting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        nonlocal made
        made += 1
        return real(*args, **kwargs)

    requestlog.access.makeRecord = counting  # type: ignore[method-assign]
    if extra_handler is not None:
        logging.getLogger("service").addHandler(extra_handler)
    try:
        for k, path in enumerate(PATHS):
            client.get(path, headers={"X-Request-ID": f"req-{k}"})
        client.post("/v1/games/catchup/new", json={"options": {"size": 3}}, headers={"X-Request-ID": "req-new"})
    finally:
        del requestlog.access.makeRecord
        if extra_handler is not None:
            logging.getLogger("service").removeHandler(extra_handler)
    return stream.getvalue().splitlines(), made


def _without_times(line: str, fmt: str) -> Any:
    if fmt == "json":
        out = json.loads(line)
        assert out.pop("duration_ms") >= 0
        out.pop("time")
        return out
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 info \[", line), line
    return re.sub(r" [0-9.]+ ms$", "", line.split(" ", 1)[1])


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_server_writes_each_answers_line_without_a_record(fmt: str) -> None:
    with as_in_a_server():
        fast, records = _served(fmt, extra_handler=None)
    assert records == 0  # before: one record an answer
    assert len(fast) == len(PATHS) + 1
    # Another handler on the way: the record goes its usual way, to both, and the lines are the same.
    captured: list[logging.LogRecord] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            captured.append(record)

    with as_in_a_server():
        slow, records = _served(fmt, extra_handler=Capture())
    assert records == len(PATHS) + 1 == len(captured)
    assert [_without_times(line, fmt) for line in fast] == [_without_times(line, fmt) for line in slow]
    assert [r.request_id for r in captured] == [f"req-{k}" for k in range(len(PATHS))] + ["req-new"]  # type: ignore[attr-defined]


def test_a_stream_that_fails_gets_logging_s_own_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails is not lost silently: the record takes the usual way, whose handler reports it."""

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("disk full")

    client = checked(LOG_FORMAT="json")
    reported: list[logging.LogRecord] = []
    with as_in_a_server():
        handler = requestlog.configure("json", Broken())
        monkeypatch.setattr(handler, "handleError", reported.append)
        assert client.get("/v1/games").status_code == 200
    assert [r.getMessage() for r in reported] == ["GET /v1/games 200"]


def test_the_lines_parts_kept_by_answer_stay_bounded_and_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON line's parts that follow from method, path and status are written once for each, at most
    MOST_ANSWERED kept (a client making paths up cannot grow them): past that they are made afresh, the same."""
    formatter = requestlog.JsonFormatter()
    access = requestlog.access
    monkeypatch.setattr(requestlog, "MOST_ANSWERED", 3)
    requestlog._ANSWERED.clear()
    for n in range(7):
        path = f"/v1/matches/m{n % 5}\n"
        fields = {"request_id": "r", "method": "POST", "path": path, "status": 201, "duration_ms": 1.5}
        record = access.makeRecord(access.name, logging.INFO, "x.py", 0, "%s %s %s", ("POST", path, 201), None, extra=fields)
        record.created = 1_790_000_000.5 + n
        assert formatter.access_line(record.created, "r", "POST", path, 201, 1.5) == formatter.format(record)
        assert len(requestlog._ANSWERED) <= 3
