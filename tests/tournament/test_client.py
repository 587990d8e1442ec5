"""umpire/client.py on its own: safe retries (the same ply and Idempotency-Key
after a dropped connection or a 503), reading clocks and records."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from umpire.client import Match, MatchClient, ServiceError, remaining_ms


class Flaky(BaseHTTPRequestHandler):
    """Drops the first connection without a word, answers 503 to the second request, then 200."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str | None, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.path, self.headers.get("Idempotency-Key"), body))
        n = len(self.seen)
        if n == 1:
            self.close_connection = True
            self.connection.close()  # a dropped connection: no answer at all
            return
        status, answer = (503, {"error": {"code": "unavailable", "message": "Redis", "details": None}}) if n == 2 else (
            200, {"legal": True, "move": body["move"], "state": {"ply": 1}, "events": [], "clock": None})  # fmt: skip
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def flaky() -> Iterator[str]:
    Flaky.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_move_is_resent_with_the_same_ply_and_key(flaky: str) -> None:
    client = MatchClient(flaky)
    out = client.move(Match("m1", ("t0", "t1"), {}, None), 0, 7, "C3")
    client.close()
    assert out.kind == "accepted" and out.state == {"ply": 1}
    assert len(Flaky.seen) == 3  # dropped, 503, accepted
    paths, keys, bodies = zip(*Flaky.seen, strict=True)
    assert set(paths) == {"/v1/matches/m1/moves?legal_moves=true"}
    assert len(set(keys)) == 1 and keys[0] is not None and keys[0].startswith("m1:7:")
    assert all(b == {"move": "C3", "ply": 7} for b in bodies)
    assert client.calls == 3


def test_an_unreachable_server_is_a_service_error() -> None:
    client = MatchClient("http://127.0.0.1:9", timeout_s=1)
    with pytest.raises(ServiceError) as caught:
        client.request("GET", "/v1/health", retry=False)
    assert caught.value.code == "unreachable"
    with pytest.raises(ValueError):
        MatchClient("ftp://example")


def test_remaining_time_is_server_deadline_minus_server_now() -> None:
    clock = {"deadline": "2030-01-01T00:01:00.250Z", "now": "2030-01-01T00:00:00.000Z"}
    assert remaining_ms(clock) == 60_250
    assert remaining_ms({"deadline": None, "now": "2030-01-01T00:00:00.000Z"}) is None
    assert remaining_ms(None) is None
    assert remaining_ms({"deadline": "2030-01-01T00:00:00.000Z", "now": "2030-01-01T00:00:01.000Z"}) == 0
