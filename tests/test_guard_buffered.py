"""service/web/guard.py reads a body that came whole with its headers without a deadline or a reading slot: it
waits in gunicorn's buffer, so reading it cannot wait on the client (issue 20, "Cost per request": the slot and
the timer cost a served play about 15 µs of CPU, ``bench served_steps``).  A body still on its way is read as
before, within its deadline and in a slot of its address (tests/test_dos.py holds slow bodies to that).  These
use gunicorn's own parser over a socket pair, so that a gunicorn whose body is made otherwise fails here."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser

from service import create_app
from service.web import guard
from service.web.guard import BODY, BodyGuard

HEAD = b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    client, server = socket.socketpair()
    server.settimeout(5)
    yield client, server
    client.close()
    server.close()


def parsed(server: socket.socket) -> Any:
    """The request gunicorn reads from ``server``, as a worker would (its body unread)."""
    return next(iter(RequestParser(Config(), server, ("127.0.0.1", 40000))))


def guarded(seen: list[dict[str, Any]]) -> BodyGuard:
    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(environ)
        start_response("200 OK", [])
        return [b"ok"]

    flask_app = create_app({"TESTING": True, "BODY_TIMEOUT_S": 1})
    return BodyGuard(app, flask_app, 1.0, 2, 0)


def test_a_body_that_came_with_its_headers_is_read_without_a_deadline_or_a_slot(
    pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, server = pair
    body = b'{"move": "E5", "state": {}}' * 40
    client.sendall(HEAD % len(body) + body + b"GET /next HTTP/1.1\r\n")  # and the next request's first line behind it
    request = parsed(server)
    assert guard.buffered(request.body) >= len(body)
    seen: list[dict[str, Any]] = []
    wall = guarded(seen)
    monkeypatch.setattr(wall, "_enter", lambda *args: pytest.fail("took a reading slot"))
    monkeypatch.setattr(wall, "_read", lambda *args: pytest.fail("read within a deadline"))
    environ = {"CONTENT_LENGTH": str(len(body)), "wsgi.input": request.body, "REMOTE_ADDR": "127.0.0.1"}
    assert list(wall(environ, lambda *args: None)) == [b"ok"]
    assert seen[0][BODY] == body and seen[0]["wsgi.input"].read() == body
    assert request.body.read() == b""  # the body's end: the next request's bytes were not taken


def test_a_body_still_on_its_way_is_read_within_its_deadline_in_a_slot(pair: tuple[socket.socket, socket.socket]) -> None:
    client, server = pair
    body = b'{"move": "E5", "state": {}}'
    client.sendall(HEAD % len(body) + body[:5])
    request = parsed(server)
    assert guard.buffered(request.body) == 5
    seen: list[dict[str, Any]] = []
    wall = guarded(seen)
    entered: list[str] = []
    enter = wall._enter
    wall._enter = lambda who, deadline: entered.append(who) or enter(who, deadline)  # type: ignore[method-assign]
    environ = {"CONTENT_LENGTH": str(len(body)), "wsgi.input": request.body, "REMOTE_ADDR": "127.0.0.1"}
    client.sendall(body[5:])  # the rest arrives while the guard waits for it
    assert list(wall(environ, lambda *args: None)) == [b"ok"]
    assert entered == ["127.0.0.1"] and seen[0][BODY] == body


def test_any_other_stream_counts_as_nothing_buffered() -> None:
    import io

    assert guard.buffered(io.BytesIO(b"{}")) == 0
    assert guard.buffered(None) == 0
