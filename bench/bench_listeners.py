"""Waiting listeners against play: ``python -m bench listeners``.

Issue 11: before it, each waiting reader held one of gunicorn's threads, and
140 of them made a stateless ``play`` take 13.6 s instead of 5 ms.  The aim
now: a thousand waiting listeners (SSE or long-poll) leave the latency of
plays and moves within 2x of an idle server.

Against what ``make run`` starts (``python -m service.run.serve``: gunicorn's
gevent workers, ``BENCH_WORKERS`` (2) of them, and a sweeper) on a
``redis-server`` over loopback TCP, in one run:

1. idle: ``BENCH_REQUESTS`` (300) stateless ``POST /v1/games/catchup/play``
   and as many managed moves (``POST /v1/matches/{id}/moves``, side-5
   Catchup matches played to the end and started again), one at a time, each
   timed;
2. ``BENCH_LISTENERS`` (1000) listeners are opened, half event streams
   (``GET /v1/matches/{id}/events``) and half long-polls (``GET
   /v1/matches/{id}?wait_ply=1&timeout_s=30``, sent again as soon as one
   answers), spread over 100 ongoing matches that nobody moves in; each
   listener is a socket of this process, read by one thread (``selectors``),
   so the client costs no thread per listener;
3. loaded: the same requests, timed the same way, while all of them wait;
   then one move in a listened match, and how long until all of its
   listeners (SSE) had it.

Printed: p50/p90/p99 of each kind idle and loaded and their ratio, the
listeners the server held (counted by its ``umpire_waiting_listeners``-style
metric when exported, else by the open sockets), and the workers' resident
memory idle and loaded (bytes per listener).
"""

from __future__ import annotations

import os
import selectors
import shutil
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import TcpRedis, call, free_port, gunicorn_workers, request, rss_bytes, serve, stop

MATCHES = 100  # the matches the listeners wait on
SIZE = 5
MARKS = (b"event: state", b"event: move")


class Listeners:
    """``count`` raw HTTP listeners on 127.0.0.1:``port``, drained by one thread."""

    def __init__(self, port: int, targets: list[str]) -> None:
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.answered = 0  # long-polls answered (and sent again)
        self.tail: dict[int, bytes] = {}  # the last bytes of each socket, so a marker cut in two is found
        self.marks: dict[int, set[bytes]] = {}
        self.sse: list[socket.socket] = []
        self.failed = 0
        for k, path in enumerate(targets):
            self._open(path, sse=k % 2 == 0)
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _open(self, path: str, sse: bool) -> None:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.setblocking(False)
        target = f"{path}/events" if sse else f"{path}?wait_ply=1&timeout_s=30"
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        self.tail[s.fileno()] = b""
        self.marks[s.fileno()] = set()
        self.sel.register(s, selectors.EVENT_READ, (path, sse))
        if sse:
            self.sse.append(s)

    def _drain(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                s: socket.socket = key.fileobj  # type: ignore[assignment]
                path, sse = key.data
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    with self.lock:
                        seen = self.tail[s.fileno()] + data
                        self.marks[s.fileno()].update(m for m in MARKS if m in seen)
                        self.tail[s.fileno()] = seen[-32:]
                    continue
                # closed: a long-poll answered (or a stream ended): send it again
                self.sel.unregister(s)
                with self.lock:
                    self.tail.pop(s.fileno(), None)
                    self.marks.pop(s.fileno(), None)
                    if sse:
                        self.sse.remove(s)
                    else:
                        self.answered += 1
                s.close()
                if not self.stop.is_set():
                    try:
                        self._open(path, sse)
                    except OSError:
                        self.failed += 1

    def seen(self, text: bytes) -> int:
        """How many event streams have received ``text``."""
        with self.lock:
            return sum(text in self.marks.get(s.fileno(), ()) for s in self.sse)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


class Mover:
    """Managed moves, one at a time: Catchup matches played through, then new ones."""

    def __init__(self, base: str, cells: list[str]) -> None:
        self.base, self.cells = base, cells
        self._new()

    def _new(self) -> None:
        m = call(
            self.base,
            "POST",
            "/v1/matches",
            {"game": "catchup", "options": {"size": SIZE}, "clock": {"turn_s": 600, "bank_s": 0}},
        )
        self.id, self.seats, self.ply, self.free = m["match_id"], m["seats"], 0, list(self.cells)

    def move(self) -> float:
        seat = str(self.ply % 2)  # one stone a turn: the seats alternate
        cell = self.free.pop(0)
        headers = {"Authorization": f"Bearer {self.seats[seat]}"}
        start = time.perf_counter()
        status, answer = request(self.base, "POST", f"/v1/matches/{self.id}/moves", {"move": cell, "ply": self.ply}, headers)
        took = time.perf_counter() - start
        if status != 200:
            raise RuntimeError(f"move {cell}: {status} {answer}")
        self.ply += 1
        if answer["state"]["status"] != "ongoing" or not self.free:
            self._new()
        return took


def timed(base: str, body: dict[str, Any], mover: Mover, count: int) -> dict[str, list[float]]:
    plays, moves = [], []
    for _ in range(count):
        start = time.perf_counter()
        status, _ = request(base, "POST", "/v1/games/catchup/play", body)
        plays.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"play: {status}")
        moves.append(mover.move())
    return {"play": plays, "move": moves}


def gauge(base: str, name: str) -> float | None:
    """A metric's value summed over ``/metrics`` (every worker's), None when it is not exported."""
    try:
        with urllib.request.urlopen(base + "/metrics", timeout=10) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name) and not line.startswith("#")]
    return sum(values) if values else None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    listeners = int(os.environ.get("BENCH_LISTENERS", "1000"))
    count = int(os.environ.get("BENCH_REQUESTS", "300"))
    workers = os.environ.get("BENCH_WORKERS", "2")
    work = Path(tempfile.mkdtemp(prefix="bench-listeners-"))
    redis = TcpRedis(work / "redis", free_port()).start()
    # every listener comes from 127.0.0.1: over MAX_LISTENERS_PER_ADDRESS's default (200 a process), so it is raised
    env = {"MAX_LISTENERS_PER_ADDRESS": str(listeners)}
    proc, base = serve({"REDIS_URL": redis.url, "WEB_CONCURRENCY": workers, "EVENTS_LIFETIME_S": "600", **env})
    crowd = None
    try:
        port = int(base.rsplit(":", 1)[1])
        empty = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": SIZE}})["state"]
        cells = call(base, "POST", "/v1/games/catchup/legal-moves", {"state": empty})["moves"]
        body = {"state": empty, "move": cells[0]}
        mover = Mover(base, cells)
        timed(base, body, mover, 30)  # warm every worker up
        pids = gunicorn_workers(proc.pid)
        rss_idle = sum(rss_bytes(p) for p in pids)
        idle = timed(base, body, mover, count)

        waited = [
            call(
                base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": SIZE}, "clock": {"turn_s": 600, "bank_s": 0}}
            )
            for _ in range(MATCHES)
        ]
        targets = [f"/v1/matches/{waited[k % MATCHES]['match_id']}" for k in range(listeners)]
        opened = time.perf_counter()
        crowd = Listeners(port, targets)
        deadline = time.monotonic() + 60
        while crowd.seen(b"event: state") < len(crowd.sse) and time.monotonic() < deadline:
            time.sleep(0.1)
        ready = time.perf_counter() - opened
        streams = crowd.seen(b"event: state")
        time.sleep(1)  # the long-polls are in by now too
        rss_loaded = sum(rss_bytes(p) for p in gunicorn_workers(proc.pid))
        held = gauge(base, "umpire_listeners")
        loaded = timed(base, body, mover, count)

        # one move in a listened match: how long until every stream of it has the event
        first = waited[0]
        watching = sum(1 for k in range(0, listeners, MATCHES) if k % 2 == 0)  # its event streams
        start = time.perf_counter()
        call(
            base,
            "POST",
            f"/v1/matches/{first['match_id']}/moves",
            {"move": cells[0], "ply": 0},
            {"Authorization": f"Bearer {first['seats']['0']}"},
        )
        fanout_deadline = time.monotonic() + 30
        while crowd.seen(b"event: move") < watching and time.monotonic() < fanout_deadline:
            time.sleep(0.005)
        fanout = time.perf_counter() - start
        reached = crowd.seen(b"event: move")
        answered, failed = crowd.answered, crowd.failed
    finally:
        if crowd is not None:
            crowd.close()
        stop(proc)
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"{workers} gevent workers, {os.cpu_count()} cpus; {count} requests of each kind, one at a time")
    print(f"the server counted {held if held is None else int(held)} waiting listeners (umpire_listeners on /metrics)")
    print(
        f"listeners: {streams} event streams had their first event {ready:.1f} s after the first was opened, "
        f"{listeners - listeners // 2} long-polls waiting (answered and sent again during the run: {answered}, "
        f"could not reconnect: {failed})"
    )
    print(
        f"{'kind':<8} {'idle p50':>9} {'p90':>7} {'p99':>7} {'loaded p50':>11} {'p90':>7} {'p99':>7} {'ratio p50':>10} {'p99':>6}"
    )
    for kind in ("play", "move"):
        a, b = idle[kind], loaded[kind]
        row = [pct(a, 0.5), pct(a, 0.9), pct(a, 0.99), pct(b, 0.5), pct(b, 0.9), pct(b, 0.99)]
        print(
            f"{kind:<8} {row[0]:9.2f} {row[1]:7.2f} {row[2]:7.2f} {row[3]:11.2f} {row[4]:7.2f} {row[5]:7.2f} "
            f"{row[3] / row[0]:10.2f} {row[5] / row[2]:6.2f}"
        )
    print(
        f"mean ms: play {1000 * statistics.mean(idle['play']):.2f} -> {1000 * statistics.mean(loaded['play']):.2f}, "
        f"move {1000 * statistics.mean(idle['move']):.2f} -> {1000 * statistics.mean(loaded['move']):.2f}"
    )
    per = (rss_loaded - rss_idle) / max(1, listeners)
    print(
        f"workers' RSS: idle {rss_idle / 2**20:.1f} MiB, with the listeners {rss_loaded / 2**20:.1f} MiB "
        f"({per / 1024:.1f} KiB a listener)"
    )
    print(f"a move in a listened match reached {reached} of its {watching} event streams in {1000 * fanout:.1f} ms")


if __name__ == "__main__":
    main()
