"""One feed per match and process for its event streams (issue 20, spectators; service/matches/events.py
``Feed``): the match is read once for all of them and each event encoded once, and every stream writes the
same bytes through the WSGI answer's iterator (issue 33: no more writing past gunicorn to its socket), so
gunicorn frames them (chunks over HTTP/1.1, plain over HTTP/1.0).  What must hold: every stream gets every
event once, in order, framed right, and a reader too slow to take them as they come loses none and holds
nobody else up.

Against a real gunicorn (tests/matches/served.py), one gevent worker, on loopback; every wait bounded.
"""

from __future__ import annotations

import ast
import json
import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from gamekit import random_move
from served import AppServer, Stream, call

from engine.registry import GAMES
from service.run import embedded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def redis_server(tmp_path: Path) -> Any:
    server = embedded.start(tmp_path / "redis")
    yield server
    server.stop()


def open_chunked(port: int, match_id: str, receive_buffer: int | None = None) -> socket.socket:
    """A stream over HTTP/1.1 (its answer in chunks); ``receive_buffer`` shrinks the socket's buffer."""
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /v1/matches/{match_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def read_chunked(sock: socket.socket, deadline: float) -> list[tuple[str, str, Any]]:
    """The whole answer (up to its last chunk), its chunks joined; the events in it: (name, id, data)."""
    raw = b""
    while b"\r\n0\r\n\r\n" not in raw:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        data = sock.recv(65536)
        assert data, "the server closed the stream before its last chunk"
        raw += data
        assert time.monotonic() < deadline, "the stream did not end in time"
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and b"transfer-encoding: chunked" in head.lower(), head
    body = b""
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        assert rest[size : size + 2] == b"\r\n", "a chunk does not end where its size says"
        body, rest = body + rest[:size], rest[size + 2 :]
    events = []
    for block in body.decode().split("\n\n"):
        lines = [ln for ln in block.split("\n") if ln and not ln.startswith(":")]
        fields = dict(ln.split(": ", 1) for ln in lines)
        if "event" in fields:
            events.append((fields["event"], fields["id"], json.loads(fields["data"])))
    return events


def test_every_stream_gets_every_event_once_in_order_a_slow_reader_too(redis_server: Any, tmp_path: Path) -> None:
    app = AppServer(redis_server.url, tmp_path, workers=1).start()
    socks: list[socket.socket] = []
    try:
        port = int(app.base.rsplit(":", 1)[1])
        _, made = call(app.base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": 7}})
        mid, tokens, state = made["match_id"], made["seats"], made["state"]
        slow = open_chunked(port, mid, receive_buffer=2048)  # read only once the match is over
        socks = [open_chunked(port, mid) for _ in range(10)] + [slow]
        plain = Stream.open(app.base, mid)  # HTTP/1.0: no chunks
        socks.append(plain.sock)
        plain.until(lambda: plain.events, 10)
        time.sleep(0.5)  # every stream has had its state event and sleeps
        game, rnd = GAMES["catchup"], random.Random(7)
        while state["status"] == "ongoing":
            body = {"move": random_move(game, game.load(state), rnd), "ply": state["ply"]}
            status, answer = call(app.base, "POST", f"/v1/matches/{mid}/moves", body, tokens[str(state["to_move"])])
            assert status == 200, answer
            state = answer["state"]
        deadline = time.monotonic() + 30
        streams = [read_chunked(sock, deadline) for sock in socks[:-1]]
        plain.until(lambda: bool(plain.events) and plain.events[-1].name == "end", 30)
    finally:
        for sock in socks:
            sock.close()
        app.stop()
    ply = state["ply"]
    expected = ["0", *map(str, range(1, ply + 1)), f"{ply}.1"]  # the state, every move, the end
    for got in streams:
        assert [event_id for _, event_id, _ in got] == expected
        assert got[-1][0] == "end" and got[-1][2]["state"] == state
    assert streams[-1][1:] == streams[0][1:]  # the slow reader's events are the others' (its state event: as of its start)
    assert [e.id for e in plain.events] == expected
    assert [e.data for e in plain.events][1:] == [data for _, _, data in streams[0]][1:]


def test_no_stream_writes_past_the_wsgi_server() -> None:
    """Issue 33: the feed wrote hand-made HTTP chunks with ``os.write`` on gunicorn's socket
    (``environ["gunicorn.socket"]``), past every middleware.  Every event now goes through the
    WSGI answer's iterator, as any answer does."""
    for path in sorted((ROOT / "service/matches").rglob("*.py")):  # (service/web/guard.py's reading is issue 33's too)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert "gunicorn.socket" not in named, path  # the client's socket, as gunicorn keeps it in the environ
    tree = ast.parse((ROOT / "service/matches/events.py").read_text(encoding="utf-8"))
    calls = {ast.unparse(n.func).rpartition(".")[2] for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not {"write", "writev", "send", "sendall", "fileno"} & calls


def test_a_flag_that_falls_due_reaches_every_sleeping_stream(redis_server: Any, tmp_path: Path) -> None:
    """No sweeper and no move: the streams' own timers apply the flag; the one that reads it first writes
    it to the others, which sleep on (``_stream``'s due path), and every stream ends with the game."""
    app = AppServer(redis_server.url, tmp_path, workers=1).start()
    socks: list[socket.socket] = []
    try:
        port = int(app.base.rsplit(":", 1)[1])
        body = {"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 1, "bank_s": 0}}
        _, made = call(app.base, "POST", "/v1/matches", body)
        socks = [open_chunked(port, made["match_id"]) for _ in range(6)]
        deadline = time.monotonic() + 20
        streams = [read_chunked(sock, deadline) for sock in socks]
    finally:
        for sock in socks:
            sock.close()
        app.stop()
    names = [[(name, event_id) for name, event_id, _ in got] for got in streams]
    assert names[0][0][0] == "state" and names[0][-1][0] == "end" and ("flag", "0.1") in names[0]
    assert all(n == names[0] for n in names)
    assert all(got[-1][2]["winner"] == 1 for got in streams)  # seat 0's flag fell (R-T1): seat 1 wins
