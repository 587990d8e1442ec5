"""service/web/guard.py reads a request's body from ``wsgi.input`` as WSGI gives it, each read waiting on the
client's socket (``gunicorn.socket``) at most until the body's deadline, and the socket's own timeout put back
after: no reading of gunicorn's internals (issue 33).  These use gunicorn's own parser over a socket pair, as a
sync worker reads a request; tests/test_dos.py holds slow bodies to the same through a served gevent worker."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser

from service import create_app
from service.web.guard import BODY, BodyGuard

HEAD = b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
BODY_BYTES = b'{"move": "E5", "state": {}}'


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


def guarded(seen: list[dict[str, Any]], timeout_s: float = 1.0) -> BodyGuard:
    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(environ)
        start_response("200 OK", [])
        return [b"ok"]

    return BodyGuard(app, create_app({"TESTING": True}), timeout_s, 2, 0)


def environ_of(request: Any, server: socket.socket, length: int) -> dict[str, Any]:
    return {"CONTENT_LENGTH": str(length), "wsgi.input": request.body, "gunicorn.socket": server, "REMOTE_ADDR": "127.0.0.1"}


def test_a_body_that_came_with_its_headers_is_read_and_the_next_request_left(pair: tuple[socket.socket, socket.socket]) -> None:
    client, server = pair
    body = BODY_BYTES * 40
    client.sendall(HEAD % len(body) + body + b"GET /next HTTP/1.1\r\n")  # and the next request's first line behind it
    request = parsed(server)
    seen: list[dict[str, Any]] = []
    assert list(guarded(seen)(environ_of(request, server, len(body)), lambda *args: None)) == [b"ok"]
    assert seen[0][BODY] == body and seen[0]["wsgi.input"].read() == body
    assert request.body.read() == b""  # the body's end: the next request's bytes were not taken
    assert server.gettimeout() == 5  # the socket's own timeout, put back


def test_a_body_still_on_its_way_is_read_within_its_deadline(pair: tuple[socket.socket, socket.socket]) -> None:
    client, server = pair
    client.sendall(HEAD % len(BODY_BYTES) + BODY_BYTES[:5])
    request = parsed(server)
    seen: list[dict[str, Any]] = []
    later = threading.Timer(0.3, client.sendall, (BODY_BYTES[5:],))  # the rest arrives while the guard waits for it
    later.start()
    assert list(guarded(seen)(environ_of(request, server, len(BODY_BYTES)), lambda *args: None)) == [b"ok"]
    later.join()
    assert seen[0][BODY] == BODY_BYTES and server.gettimeout() == 5


def test_a_body_that_stalls_is_408_at_its_deadline_and_the_app_never_sees_it(pair: tuple[socket.socket, socket.socket]) -> None:
    client, server = pair
    client.sendall(HEAD % len(BODY_BYTES) + BODY_BYTES[:5])  # and no more
    request = parsed(server)
    seen: list[dict[str, Any]] = []
    answered: list[Any] = []
    started = time.monotonic()
    body = b"".join(guarded(seen, 0.5)(environ_of(request, server, len(BODY_BYTES)), lambda *args: answered.append(args)))
    took = time.monotonic() - started
    assert 0.4 < took < 2.0 and seen == []
    assert answered[0][0] == "408 REQUEST TIMEOUT"
    assert json.loads(body)["error"] == {
        "code": "body_timeout",
        "message": "The request body did not arrive within 0.5 s.",
        "details": {"timeout_s": 0.5},
    }
    assert server.gettimeout() == 5
