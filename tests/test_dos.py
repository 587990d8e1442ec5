"""Denial of service (issue 20), against what ``make run`` serves
(tests/liveserver.py: ``python -m service.run.serve``, gunicorn's gevent worker,
one of them, the embedded Redis), on loopback, every wait bounded.

* Pictures: the largest PNGs the service draws are rendered outside the
  worker's event loop, so a health check and a play answer promptly while
  they render (before: four of them froze the worker for half a minute).
* Slow bodies: a body that does not arrive is answered ``408 body_timeout``
  after ``BODY_TIMEOUT_S`` and its connection closed, an address sending more
  than ``MAX_BODIES_PER_ADDRESS`` bodies at once has the others wait, and
  refused ``429`` unread when no turn came within the deadline, and other
  clients' plays keep answering meanwhile (before: such a connection was
  held forever).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from liveserver import serve


def post(base: str, path: str, body: Any, timeout: float = 60) -> tuple[int, bytes]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def timed_get(url: str) -> tuple[int, float]:
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=30) as resp:
        resp.read()
        return resp.status, time.monotonic() - start


def test_the_largest_pngs_do_not_hold_the_worker(tmp_path: Path) -> None:
    settings = {"RENDER_RATE_LIMIT": "off", "PNG_RATE_LIMIT": "off", "RENDER_QUEUE": "4", "RENDER_NICE": "0"}
    with serve(tmp_path, RENDER_TIMEOUT_S="120", **settings) as base:
        state = json.loads(post(base, "/v1/games/catchup/new", {"options": {"size": 10}})[1])["state"]
        play = {"state": state, "move": "E5"}
        answers: list[int] = []
        looks = [("default", False), ("colorblind", False), ("print", False), ("default", True)]  # four pictures, none cached

        def render(palette: str, coords: bool) -> None:
            body = {"state": state, "format": "png", "width": 2048, "palette": palette, "coords": coords}
            answers.append(post(base, "/v1/games/catchup/render", body)[0])

        threads = [threading.Thread(target=render, args=look, daemon=True) for look in looks]
        for thread in threads:
            thread.start()
        time.sleep(0.3)  # all four sent: one rendering, three queued (about a second each on this machine)
        slowest = 0.0
        for _ in range(5):
            status, took = timed_get(base + "/v1/health")
            assert status == 200
            start = time.monotonic()
            assert post(base, "/v1/games/catchup/play", play)[0] == 200
            slowest = max(slowest, took, time.monotonic() - start)
        still_rendering = sum(thread.is_alive() for thread in threads)
        for thread in threads:
            thread.join(120)
    assert still_rendering >= 1  # the health checks and plays ran while pictures were being rendered
    assert slowest < 1.0  # before: 4 such pictures kept a health check waiting 28.8 s
    assert sorted(answers) == [200, 200, 200, 200]


def slow_body(port: int, source: str) -> socket.socket:
    """A request whose headers arrive and whose body (1000 bytes announced) stops after one byte."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    head = f"POST /v1/games/catchup/play HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    sock.sendall((head + "Content-Length: 1000\r\n\r\n{").encode())
    return sock


def answer_of(sock: socket.socket, deadline: float) -> tuple[bytes, float]:
    """The status line the server sends by ``deadline`` (monotonic), and when (seconds from now); b"" when it
    closes without one."""
    start = time.monotonic()
    data = b""
    sock.settimeout(max(0.01, deadline - start))
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except TimeoutError:
        return b"(no answer)", time.monotonic() - start
    return data.split(b"\r\n", 1)[0], time.monotonic() - start


def test_a_slow_body_is_cut_off_and_other_requests_keep_answering(tmp_path: Path) -> None:
    with serve(tmp_path, BODY_TIMEOUT_S="2", MAX_BODIES_PER_ADDRESS="16") as base:
        port = int(base.rsplit(":", 1)[1])
        state = json.loads(post(base, "/v1/games/catchup/new", {"options": {"size": 5}})[1])["state"]
        opened = time.monotonic()
        slow = [slow_body(port, "127.0.0.2") for _ in range(20)]  # 16 are read (slowly), 4 wait for a turn they never get
        others = [slow_body(port, "127.0.0.3") for _ in range(10)]
        plays = []
        for _ in range(10):
            start = time.monotonic()
            assert post(base, "/v1/games/catchup/play", {"state": state, "move": "C3"}, timeout=10)[0] == 200
            plays.append(time.monotonic() - start)
        answers = [answer_of(sock, opened + 12) for sock in slow + others]
        for sock in slow + others:
            sock.close()
    assert max(plays) < 1.0  # other clients are served meanwhile
    lines = [line for line, _ in answers]
    # the four over the cap waited for a turn, got it as the first sixteen timed out, and timed out too
    assert lines == [b"HTTP/1.1 408 REQUEST TIMEOUT"] * 30, lines
    assert max(at for _, at in answers) < 10  # every slow body was answered 2 s after it started, not held
