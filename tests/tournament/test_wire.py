"""umpire/wire.py: the harness's HTTP/1.1 connection, against a scripted
server on loopback that answers each request with the bytes given (so the
odd answers a real server may give can be played exactly)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from umpire.client import MatchClient
from umpire.wire import Connection, WireError


class Scripted:
    """Accepts connections; answers the n-th request with ``answers[n]`` (None: close without answering)."""

    def __init__(self, answers: list[bytes | None]) -> None:
        self.answers = answers
        self.requests: list[bytes] = []
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(10)
        while self.answers:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(10)
                while self.answers:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        got = conn.recv(65536)
                        if not got:
                            break
                        data += got
                    if not data:
                        break
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = next(
                        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")),
                        0,
                    )
                    while len(body) < length:
                        body += conn.recv(65536)
                    self.requests.append(head + b"\r\n\r\n" + body)
                    answer = self.answers.pop(0)
                    if answer is None:
                        break  # close without an answer
                    conn.sendall(answer)
                    if b"Connection: close" in answer:
                        break

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def scripted() -> Iterator[type[Scripted]]:
    made: list[Scripted] = []

    def make(answers: list[bytes | None]) -> Scripted:
        s = Scripted(answers)
        made.append(s)
        return s

    yield make  # type: ignore[misc]
    for s in made:
        s.close()


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


def test_keep_alive_answers_are_read_on_one_connection(scripted: type[Scripted]) -> None:
    server = scripted([ok(b'{"a": 1}'), ok(b'{"a": 2}')])
    conn = Connection("127.0.0.1", server.port, False, 5)
    assert conn.request("POST", "/x", b'{"q": 1}', {"Content-Type": "application/json"}, 5) == (200, b'{"a": 1}')
    assert conn.request("GET", "/y?z=1", None, {}, 5) == (200, b'{"a": 2}')
    conn.close()
    assert server.connections == 1
    first, second = server.requests
    assert first.startswith(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % server.port)
    assert b"Content-Length: 8\r\n" in first and first.endswith(b'\r\n\r\n{"q": 1}')
    assert second.startswith(b"GET /y?z=1 HTTP/1.1\r\n") and b"Content-Length" not in second


def test_chunked_and_close_delimited_answers(scripted: type[Scripted]) -> None:
    chunked = b'HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"e":\r\n3\r\n 1}\r\n0\r\n\r\n'
    until_close = b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"b": 2}'
    server = scripted([chunked, until_close, ok(b"{}")])
    conn = Connection("127.0.0.1", server.port, False, 5)
    assert conn.request("GET", "/c", None, {}, 5) == (503, b'{"e": 1}')
    assert conn.request("GET", "/d", None, {}, 5) == (200, b'{"b": 2}')
    assert conn.sock is None  # the server said close: the next request opens another connection
    assert conn.request("GET", "/e", None, {}, 5) == (200, b"{}")
    conn.close()
    assert server.connections == 2


def test_a_dropped_connection_or_garbage_is_a_wire_error(scripted: type[Scripted]) -> None:
    server = scripted([None, b"SMTP ready\r\n\r\n"])
    conn = Connection("127.0.0.1", server.port, False, 5)
    with pytest.raises(WireError, match="closed"):
        conn.request("GET", "/a", None, {}, 5)
    with pytest.raises(WireError, match="not an HTTP answer"):
        conn.request("GET", "/b", None, {}, 5)
    assert conn.sock is None


def test_a_silent_server_times_out(scripted: type[Scripted]) -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # accepts (the backlog) and never answers
    try:
        conn = Connection("127.0.0.1", listener.getsockname()[1], False, 5)
        with pytest.raises(TimeoutError):
            conn.request("GET", "/a", None, {}, 0.3)
        assert conn.sock is None
    finally:
        listener.close()


def test_line_breaks_and_spaces_cannot_be_smuggled_in() -> None:
    conn = Connection("127.0.0.1", 9, False, 1)
    with pytest.raises(ValueError, match="line breaks"):
        conn.request("GET", "/a", None, {"Authorization": "Bearer x\r\nX-Evil: 1"}, 1)
    with pytest.raises(ValueError, match="request target"):
        conn.request("GET", "/a b", None, {}, 1)


def test_the_client_resends_on_a_connection_the_server_dropped(scripted: type[Scripted]) -> None:
    """A kept-alive connection the server closed: the same request again, on a new one (MatchClient's retry)."""
    server = scripted([ok(b'{"status": "ok"}'), None, ok(b'{"status": "ok"}')])
    client = MatchClient(f"http://127.0.0.1:{server.port}")
    assert client.health() == {"status": "ok"}
    assert client.request("GET", "/v1/health") == (200, {"status": "ok"})
    client.close()
    assert client.calls == 3 and server.connections == 2
    assert server.requests[1] == server.requests[2]
