"""Fairness between keep-alive connections under what ``make run`` serves (issue 20, "the tail"):
gunicorn's gevent worker (one here), service/run/gunicorn_conf.py, the service's request log.

A greenlet whose connection already holds its client's next request reads it at once and never gives
the event loop a turn, so without a yield after each request one connection is served request after
request while the others' requests wait in their sockets: the latency tail (p99 in the hundreds of
milliseconds for a route that takes one).  Each of four clients here pipelines its requests on one
connection (so that its next request is always waiting, the worst case); the order in which the
server answered them is read from its request log (one line per answer, in order, naming the
request id the client chose), so fairness is counted, not timed: no client waits for more than
two rounds of the others' requests.  Before the yield (service/run/gunicorn_conf.py post_request),
the first client's thirty requests were all answered before anybody else's.
"""

from __future__ import annotations

import itertools
import json
import socket
import urllib.request
from pathlib import Path

from liveserver import serve

CLIENTS = 4
EACH = 30
# No bots' searcher starting beside the worker (SUGGEST_WARM starts one as it boots): its imports took the
# CPU from the loop these tests time (one gap of 24 requests, once, at load 1).
QUIET = {"SUGGEST_WARM": "0"}


def test_no_keep_alive_connection_starves_the_others(tmp_path: Path) -> None:
    with serve(tmp_path, **QUIET) as base:
        port = int(base.rsplit(":", 1)[1])
        state = _call(port, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        body = json.dumps({"state": state, "move": "C3"}).encode()
        socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(CLIENTS)]
        try:
            for c, sock in enumerate(socks):
                requests = b"".join(_play(body, f"fair-{c}-{k}", last=k == EACH - 1) for k in range(EACH))
                sock.sendall(requests)  # pipelined: the next request is always already there
            answers = [_read_all(sock) for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert [a.count(b"HTTP/1.1 200 ") for a in answers] == [EACH] * CLIENTS
    order = [
        line["request_id"]
        for line in map(_json, (tmp_path / "server.log").read_text().splitlines())
        if line and str(line.get("request_id", "")).startswith("fair-")
    ]
    assert len(order) == CLIENTS * EACH
    # For each client: how many of the others' requests were answered before its first, and between two of its own.
    worst = 0
    for c in range(CLIENTS):
        mine = [i for i, rid in enumerate(order) if rid.startswith(f"fair-{c}-")]
        assert [order[i] for i in mine] == [f"fair-{c}-{k}" for k in range(EACH)]  # a connection's answers in order
        gaps = [mine[0]] + [b - a - 1 for a, b in itertools.pairwise(mine)]
        worst = max(worst, *gaps)
    assert worst <= 2 * (CLIENTS - 1), f"a client waited for {worst} of the others' requests: {order}"


def test_a_connection_whose_request_arrives_later_waits_one_round(tmp_path: Path) -> None:
    """A request that has to be read from its socket while others' connections are busy (their next
    requests already read) waits for one round of them, not for the busy ones to run out of requests.
    Without any yield after a request it waited for a whole pipeline; tests/test_gunicorn_conf.py holds
    that the yield lets the loop poll its sockets.  Four clients pipeline sixty requests each; a fifth sends
    one request at a time, the next as soon as the last is answered.  Counted from the request log, as
    above: between two of the fifth client's answers, one round of the others' requests (4) and a turn
    of the loop (4 more) as a rule; the bound allows four rounds, for this test's own process losing the
    CPU to a busy machine between an answer and its next request, and is still far below a pipeline's
    240 requests."""
    with serve(tmp_path, **QUIET) as base:
        port = int(base.rsplit(":", 1)[1])
        state = _call(port, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        body = json.dumps({"state": state, "move": "C3"}).encode()
        busy = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(CLIENTS)]
        late = socket.create_connection(("127.0.0.1", port), timeout=30)
        try:
            for c, sock in enumerate(busy):
                sock.sendall(b"".join(_play(body, f"busy-{c}-{k}", last=k == 2 * EACH - 1) for k in range(2 * EACH)))
            for k in range(10):
                late.sendall(_play(body, f"late-{k}", last=False))
                _read_answer(late)
            for sock in busy:
                _read_all(sock)
        finally:
            for sock in [*busy, late]:
                sock.close()
    order = [
        str(line["request_id"])
        for line in map(_json, (tmp_path / "server.log").read_text().splitlines())
        if line and str(line.get("request_id", "")).startswith(("busy-", "late-"))
    ]
    mine = [i for i, rid in enumerate(order) if rid.startswith("late-")]
    assert len(mine) == 10
    # Only while the others were still busy: after the last of their requests nobody is left to wait for.
    last_busy = max(i for i, rid in enumerate(order) if rid.startswith("busy-"))
    gaps = [b - a - 1 for a, b in itertools.pairwise(mine) if b < last_busy]
    assert gaps, f"the busy clients finished before the late one was answered twice: {order}"
    assert max(gaps) <= 4 * CLIENTS, f"the late client waited for {max(gaps)} of the others' requests: {gaps}"


def _play(body: bytes, rid: str, last: bool) -> bytes:
    head = (
        f"POST /v1/games/catchup/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Request-ID: {rid}\r\nContent-Length: {len(body)}\r\n" + ("Connection: close\r\n" if last else "") + "\r\n"
    )
    return head.encode() + body


def _read_answer(sock: socket.socket) -> bytes:
    """One whole answer (headers and a Content-Length body) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed the connection mid-answer: {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection mid-answer"
        rest += chunk
    return head + b"\r\n\r\n" + rest


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _json(line: str) -> dict[str, object]:
    try:
        out = json.loads(line)
    except ValueError:  # gunicorn's own lines are not JSON
        return {}
    return out if isinstance(out, dict) else {}


def _call(port: int, method: str, path: str, body: object) -> dict[str, object]:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"Content-Type": "application/json"}, method=method
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        out: dict[str, object] = json.loads(resp.read())
        return out


def test_keep_alive_0_answers_one_request_a_connection(tmp_path: Path) -> None:
    """``KEEP_ALIVE_S=0`` (docs/SETTINGS.md; service/run/serve.py): each connection carries one request, so that the
    next goes to whichever worker accepts it first."""
    with serve(tmp_path, KEEP_ALIVE_S="0") as base:
        port = int(base.rsplit(":", 1)[1])
        state = _call(port, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        body = json.dumps({"state": state, "move": "C3"}).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(_play(body, "ka-0", last=False) + _play(body, "ka-1", last=False))
            answer = _read_all(sock)  # the server closes the connection after the first answer
    assert answer.count(b"HTTP/1.1 200 ") == 1
    assert b"\r\nConnection: close\r\n" in answer
