"""deploy/nginx.conf in front of what ``make run`` serves, tried for real on
loopback (docs/UNDER_ATTACK.md): nginx (Debian's ``nginx``, ``make test``
installs it) buffers bodies and cuts off slow ones, caps connections per
client address, passes event streams through unbuffered, and tells the app
the client's address (``TRUSTED_PROXIES=1``).  Without nginx installed the
test fails: it never skips."""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from pathlib import Path

from liveserver import serve
from test_dos import answer_of, post

from bench.common import NGINX, nginx


def slow_body(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    head = f"POST /v1/games/catchup/play HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    sock.sendall((head + "Content-Length: 1000\r\n\r\n{").encode())
    return sock


def test_nginx_in_front_cuts_slow_bodies_off_caps_addresses_and_streams_events(tmp_path: Path) -> None:
    assert Path(NGINX).exists(), "nginx is not installed: apt-get install nginx (make test does)"
    (tmp_path / "app").mkdir()
    with (
        serve(tmp_path / "app", TRUSTED_PROXIES="1", BODY_TIMEOUT_S="30") as app,
        nginx(tmp_path / "nginx", app.removeprefix("http://")) as (base, _),
    ):
        port = int(base.rsplit(":", 1)[1])
        state = post(base, "/v1/games/catchup/new", {"options": {"size": 5}})
        assert state[0] == 200
        body = {"state": json.loads(state[1])["state"], "move": "C3"}
        opened = time.monotonic()
        slow = [slow_body(port, "127.0.0.2") for _ in range(70)]  # 64 at once per address, 6 one too many
        plays = []
        for _ in range(10):
            start = time.monotonic()
            assert post(base, "/v1/games/catchup/play", body, timeout=10)[0] == 200
            plays.append(time.monotonic() - start)
        answers = [answer_of(sock, opened + 12)[0] for sock in slow]
        for sock in slow:
            sock.close()
        # an event stream passes through unbuffered: its first event arrives at once
        status, match = post(base, "/v1/matches", {"game": "catchup", "options": {"size": 3}})
        assert status == 201
        match_id = json.loads(match)["match_id"]
        with urllib.request.urlopen(f"{base}/v1/matches/{match_id}/events", timeout=5) as stream:
            first = stream.readline() + stream.readline() + stream.readline()
        assert first.startswith(b"retry: 2000\n\nevent: state"), first
        log = (tmp_path / "app" / "server.log").read_text(errors="replace")
    assert max(plays) < 1.0
    assert answers.count(b"HTTP/1.1 429 Too Many Requests") == 6, answers
    # nginx timed the slow bodies out itself, 5 s after the last byte (its 408 is a closed connection), all within
    # 12 s of the first (answer_of's deadline, else "(no answer)"); the app never saw them
    assert answers.count(b"") == 64, answers
    assert '"status":408' not in log and "127.0.0.2" not in log


def raw_get(base: str, target: str) -> tuple[int, dict[str, str], bytes]:
    """A GET of ``target`` as sent (no client library shortening or refusing it): status, headers, body."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def uri_too_long(answer: tuple[int, dict[str, str], bytes]) -> bool:
    status, headers, body = answer
    return (
        status == 414
        and headers["content-type"].startswith("application/json")
        and json.loads(body)["error"]
        == {
            "code": "uri_too_long",
            "message": "The request's target (path and query) is over 4096 bytes.",
            "details": {"limit": 4096},
        }
    )


def test_a_target_too_long_is_414_in_the_error_shape_from_gunicorn_and_from_nginx(tmp_path: Path) -> None:
    """Issue 34, item 10: gunicorn answered a request line over 4 KB with a page of HTML.  The app refuses a target
    over 4096 bytes itself (gunicorn's limit_request_line raised to let it through), and nginx in front answers a
    line longer than its buffers in the same shape."""
    (tmp_path / "app").mkdir()
    with serve(tmp_path / "app") as app, nginx(tmp_path / "nginx", app.removeprefix("http://")) as (proxy, _):
        within = "/v1/games?x=" + "a" * (4096 - len("/v1/games?x="))
        assert raw_get(app, within)[0] == 200 and raw_get(proxy, within)[0] == 200
        for base in (app, proxy):
            for size in (4097, 6000, 8000):
                answer = raw_get(base, "/v1/games?x=" + "a" * size)
                assert uri_too_long(answer), (base, size, answer[0], answer[2][:200])
                assert "x-request-id" in answer[1] or (base == proxy and size > 8000)
        assert uri_too_long(raw_get(proxy, "/v1/games?x=" + "a" * 9000))  # past nginx's 8k buffers: nginx's own
        assert uri_too_long(raw_get(proxy, "/v1/" + "b" * 20000))
