"""A burst of listeners needs no pooled Redis connection each (issue 34, item 8: 2,000 event
streams opened at once ran the pool of 64 dry, and 858 of them got ``503 unavailable`` while
Redis was healthy).  A match's feed reads it once for the listeners arriving together
(service/matches/events.py ``Feed.update``) and wakes them on a change from one waker, so
the streams and long-polls of a burst hold a connection or two between them.

Against a real gunicorn with one gevent worker and a Redis pool of two connections, on
loopback; every wait bounded.  (The figures for 2,000 listeners are bench dos's and
bench listeners', BENCHMARKS.md.)"""

from __future__ import annotations

import selectors
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from served import AppServer, call

from service.run import embedded

BURST = 400  # half event streams, half long-polls, on one match


@pytest.fixture
def redis_server(tmp_path: Path) -> Any:
    server = embedded.start(tmp_path / "redis")
    yield server
    server.stop()


class Crowd:
    """``paths`` requested at once over sockets of their own; what each has received so far."""

    def __init__(self, port: int, paths: list[str]) -> None:
        self.sel = selectors.DefaultSelector()
        self.got: dict[socket.socket, bytes] = {}
        for path in paths:
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            sock.setblocking(False)
            self.sel.register(sock, selectors.EVENT_READ)
            self.got[sock] = b""

    def read_until(self, enough: Any, deadline: float) -> None:
        while not enough() and time.monotonic() < deadline:
            for key, _ in self.sel.select(timeout=0.2):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                data = sock.recv(65536)
                self.got[sock] += data
                if not data:
                    self.sel.unregister(sock)

    def count(self, text: bytes) -> int:
        return sum(text in got for got in self.got.values())

    def answered_polls(self) -> int:
        """Long-polls answered with the match (not streams, whose events carry the match too)."""
        return sum(b'"match_id"' in got and b"event: " not in got for got in self.got.values())

    def statuses(self) -> list[bytes]:
        return sorted({got.split(b"\r\n", 1)[0] for got in self.got.values() if got})

    def close(self) -> None:
        for sock in self.got:
            sock.close()


def test_a_burst_of_listeners_is_served_by_a_pool_of_two_connections(redis_server: Any, tmp_path: Path) -> None:
    settings = {"REDIS_POOL_SIZE": "2", "REDIS_TIMEOUT_S": "0.5", "MAX_LISTENERS_PER_ADDRESS": str(BURST)}
    app = AppServer(redis_server.url, tmp_path, workers=1, **settings).start()
    crowd = None
    try:
        port = int(app.base.rsplit(":", 1)[1])
        _, made = call(app.base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": 5}})
        mid = made["match_id"]
        half = BURST // 2
        crowd = Crowd(port, [f"/v1/matches/{mid}/events", f"/v1/matches/{mid}?wait_ply=0&timeout_s=30"] * half)
        crowd.read_until(lambda: crowd.count(b"event: state") + crowd.count(b"HTTP/1.1 503") >= half, time.monotonic() + 60)
        time.sleep(1)  # the long-polls settle into their wait (or fail)
        status, moved = call(app.base, "POST", f"/v1/matches/{mid}/moves", {"move": "C3", "ply": 0}, made["seats"]["0"])
        assert status == 200 and moved["ply"] == 1
        crowd.read_until(lambda: crowd.count(b"event: move") + crowd.answered_polls() >= BURST, time.monotonic() + 60)
        assert crowd.statuses() == [b"HTTP/1.1 200 OK"]  # no 503 "No connection available"
        assert (crowd.count(b"event: state"), crowd.count(b"event: move"), crowd.answered_polls()) == (half, half, half)
    finally:
        if crowd is not None:
            crowd.close()
        app.stop()
