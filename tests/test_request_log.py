"""The request log (service/web/requestlog.py): one record per answer through :mod:`logging`, on the
``service.access`` logger, each line in the configured format, whatever the path holds (the escaping of
issue 20's forged lines included), and every handler on the way (a test's capture, an operator's) gets the
same record, with the request's fields (issue 33: no writing around ``logging``)."""

from __future__ import annotations

import datetime
import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

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


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def served(fmt: str, extra: logging.Handler) -> list[str]:
    """The log lines of a few requests, ``extra`` beside the service's handler."""
    stream = io.StringIO()
    client = checked(LOG_FORMAT=fmt)
    requestlog.configure(fmt, stream)
    logging.getLogger("service").addHandler(extra)
    try:
        for k, path in enumerate(PATHS):
            client.get(quote(path, safe="/"), headers={"X-Request-ID": f"req-{k}"})  # as a client sends it
        client.post("/v1/games/catchup/new", json={"options": {"size": 3}}, headers={"X-Request-ID": "req-new"})
    finally:
        logging.getLogger("service").removeHandler(extra)
    return stream.getvalue().splitlines()


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_each_answer_is_one_record_and_one_line(fmt: str) -> None:
    capture = Capture()
    with as_in_a_server():
        lines = served(fmt, capture)
    assert len(lines) == len(capture.records) == len(PATHS) + 1
    expected = [(f"req-{k}", "GET", path, 200 if k == 0 else 404) for k, path in enumerate(PATHS)]
    expected.append(("req-new", "POST", "/v1/games/catchup/new", 200))
    got = [(r.request_id, r.method, r.path, r.status) for r in capture.records]  # type: ignore[attr-defined]
    assert got == expected and {r.name for r in capture.records} == {"service.access"}
    for record, line in zip(capture.records, lines, strict=True):
        at = datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(timespec="milliseconds")
        if fmt == "json":
            out = json.loads(line)
            assert out == {
                "time": at,
                "level": "info",
                "message": f"{record.method} {record.path} {record.status}",  # type: ignore[attr-defined]
                "request_id": record.request_id,  # type: ignore[attr-defined]
                "method": record.method,  # type: ignore[attr-defined]
                "path": record.path,  # type: ignore[attr-defined]
                "status": record.status,  # type: ignore[attr-defined]
                "duration_ms": record.duration_ms,  # type: ignore[attr-defined]
                "logger": "service.access",
            }
        else:
            assert line.startswith(f"{at} info [{record.request_id}] ")  # type: ignore[attr-defined]
            assert "\n" not in line and re.search(r" [0-9.]+ ms$", line)


def test_a_stream_that_fails_gets_logging_s_own_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails is not lost silently: the handler reports it as logging does."""

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


def test_the_access_log_turned_down_writes_no_line_and_still_times_the_answer() -> None:
    from prometheus_client import REGISTRY

    labels = {"method": "GET", "route": "/v1/games", "status": "200"}
    before = REGISTRY.get_sample_value("umpire_http_request_duration_seconds_count", labels) or 0.0
    capture = Capture()
    client = checked()
    level = requestlog.access.level
    requestlog.access.setLevel(logging.WARNING)
    logging.getLogger("service").addHandler(capture)
    try:
        assert client.get("/v1/games").status_code == 200
    finally:
        logging.getLogger("service").removeHandler(capture)
        requestlog.access.setLevel(level)
    assert capture.records == []
    assert REGISTRY.get_sample_value("umpire_http_request_duration_seconds_count", labels) == before + 1


def test_json_lines_write_what_is_not_text_as_escapes() -> None:
    record = logging.LogRecord("service.access", logging.INFO, "x.py", 0, "%s", ("\u2028\x1b",), None)
    line: Any = requestlog.JsonFormatter().format(record)
    assert "\u2028" not in line and "\x1b" not in line and json.loads(line)["message"] == "\u2028\x1b"
