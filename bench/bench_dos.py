"""Attacks against ``make run``, and how plays, moves and posts fare:
``python -m bench dos [--case png|slowbody|spectators|webhooks|all] [--requests N]``.

Issue 20, "Denial of service".  Against what ``make run`` starts (``python -m
service.run.serve``: 2 gunicorn gevent workers and a sweeper, ``bench/common.py``)
on a ``redis-server`` over loopback TCP, each case in one run: the latency of
``--requests`` (200) stateless ``POST /v1/games/catchup/play`` and as many
managed moves (``POST /v1/matches/{id}/moves``), one at a time, first on the
idle server (the baseline), then under the attack; printed p50/p90/p99 and
the ratios loaded/idle.  Everything runs on 127.0.0.x; every loop is bounded
by the count of timed requests.

* ``png``: 8 clients ask nonstop for the largest PNG the service draws
  (``POST /v1/games/catchup/render``, side 10, width 2048), each a picture
  not seen before (40 positions, 3 palettes), with ``PNG_RATE_LIMIT`` and ``RENDER_RATE_LIMIT``
  off, so the renderers' pool and its queue are what holds (answers counted
  by status); a client refused ``503`` waits its ``Retry-After`` (1 s), or
  with ``--impolite`` asks again at once.  Aim: the plays' and moves' medians within 1.5x of idle.
* ``slowbody``: ``--connections`` (8300, the issue's) connections from 40 addresses
  (127.0.0.10-49) that send a request's headers announcing a 1000-byte body,
  then one byte every 10 s; a connection the server closes is opened again
  at once (the attacker keeps the pressure).  ``--via direct`` attacks the
  app and times plays and moves on it; ``--via nginx`` puts deploy/nginx.conf
  (Debian's nginx) in front of the same app (``TRUSTED_PROXIES=1``) and
  attacks and times through it; ``both`` (the default) does one, then the
  other.  Aim: plays within 2x of idle.  Also the workers' memory before,
  during and after (and nginx's).
* ``webhooks``: ``--stalled`` (100) matches whose three webhooks each stall, on
  ``--stall-hosts`` (4) receivers that answer ``HTTP/1.1 200 OK`` and then a
  header byte every 3 s (issue 34), while a healthy match (a move every 0.5 s)
  posts to a receiver that answers at once; its posts' delays are measured
  first with nobody stalling, then with the stalled matches
  (bench/bench_webhooks.py ``stalled``).  Aim: every healthy post within 2 s
  of its move.
* ``spectators``: ``--listeners`` (5000) event streams from 50 addresses
  (127.0.1.x) on one Catchup side-10 match, whose moves are the timed ones
  (each move is an event to all 5000); the baseline is a match like it
  with nobody listening.  Aim: moves within 1.5x of idle.

``--pace S`` sleeps S seconds between two timed pairs (idle and loaded
alike): back to back (0), each move of case (c) is 5,000 events to write at
once, and the reader of all 5,000 streams runs on the same two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import selectors
import shutil
import socket
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.bench_render import engine_position
from bench.common import (
    TcpRedis,
    call,
    cpu_s,
    descendants,
    free_port,
    gunicorn_workers,
    load_average,
    nginx,
    request,
    rss_bytes,
    serve,
    stop,
)

Json = dict[str, Any]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Mover:
    """Managed moves, one at a time, one stone a turn, in Catchup matches of side ``size``
    (a new match when one ends); ``on_new`` is told each new match."""

    def __init__(self, base: str, size: int, on_new: Callable[[Json], None] | None = None) -> None:
        self.base, self.size, self.on_new = base, size, on_new
        empty = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": size}})["state"]
        self.cells: list[str] = call(base, "POST", "/v1/games/catchup/legal-moves", {"state": empty})["moves"]
        self.new()

    def new(self) -> None:
        body = {"game": "catchup", "options": {"size": self.size}, "clock": {"turn_s": 600, "bank_s": 0}}
        self.match: Json = call(self.base, "POST", "/v1/matches", body)
        self.ply, self.free = 0, list(self.cells)
        if self.on_new is not None:
            self.on_new(self.match)

    def move(self) -> float:
        seat = str(self.ply % 2)
        cell = self.free.pop(0)
        headers = {"Authorization": f"Bearer {self.match['seats'][seat]}"}
        start = time.perf_counter()
        try:
            status, answer = request(
                self.base, "POST", f"/v1/matches/{self.match['match_id']}/moves", {"move": cell, "ply": self.ply}, headers,
                timeout=TIMEOUT_S,
            )  # fmt: skip
        except OSError:  # no answer in time (counted; the move may or may not have been made: a new match)
            FAILED["move"] += 1
            self.new()
            return time.perf_counter() - start
        took = time.perf_counter() - start
        if status != 200:
            raise RuntimeError(f"move {cell}: {status} {answer}")
        self.ply += 1
        if answer["state"]["status"] != "ongoing" or not self.free:
            self.new()
        return took


PACE = [0.0]  # seconds between two timed pairs (--pace)
TIMEOUT_S = 30.0  # a timed request without an answer this long is counted as failed, its time as this long
FAILED: Counter[str] = Counter()  # timed requests that got no answer in time, by kind


def timed(base: str, play: Json, mover: Mover, count: int) -> dict[str, list[float]]:
    plays, moves = [], []
    for _ in range(count):
        time.sleep(PACE[0])
        start = time.perf_counter()
        try:
            status, _ = request(base, "POST", "/v1/games/catchup/play", play, timeout=TIMEOUT_S)
        except OSError:
            FAILED["play"] += 1
            status = 200
        plays.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"play: {status}")
        moves.append(mover.move())
    return {"play": plays, "move": moves}


def report(title: str, idle: dict[str, list[float]], loaded: dict[str, list[float]], aim: float) -> None:
    print(f"-- {title}")
    print(
        f"{'kind':<6} {'idle p50':>9} {'p90':>7} {'p99':>7} {'loaded p50':>11} {'p90':>7} {'p99':>7} {'p50 ratio':>10} {'aim':>5}"
    )
    for kind in ("play", "move"):
        a, b = idle[kind], loaded[kind]
        row = [pct(a, 0.5), pct(a, 0.9), pct(a, 0.99), pct(b, 0.5), pct(b, 0.9), pct(b, 0.99)]
        ratio = row[3] / row[0]
        print(
            f"{kind:<6} {row[0]:9.2f} {row[1]:7.2f} {row[2]:7.2f} {row[3]:11.2f} {row[4]:7.2f} {row[5]:7.2f} "
            f"{ratio:10.2f} {'met' if ratio <= aim else 'NOT':>5}"
        )
    if FAILED:
        print(f"timed requests with no answer within {TIMEOUT_S:g} s (counted at that time): {dict(FAILED)}")
        FAILED.clear()
    means = ", ".join(f"{k} {1000 * statistics.mean(idle[k]):.2f} -> {1000 * statistics.mean(loaded[k]):.2f}" for k in idle)
    print(f"mean ms: {means}")


def workers_rss(serve_pid: int) -> float:
    return sum(rss_bytes(p) for p in gunicorn_workers(serve_pid)) / 2**20


# -- (a) pictures ---------------------------------------------------------------------------


class Painters:
    """``clients`` threads asking for the largest PNG nonstop, each picture new."""

    def __init__(self, base: str, clients: int, pictures: list[Json], polite: bool) -> None:
        self.base, self.pictures, self.polite = base, pictures, polite
        self.stop = threading.Event()
        self.answers: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.next = 0
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]
        for thread in self.threads:
            thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                body = self.pictures[self.next % len(self.pictures)]
                self.next += 1
            req = urllib.request.Request(
                self.base + "/v1/games/catchup/render", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    resp.read()
                    status = resp.status
            except urllib.error.HTTPError as e:
                e.read()
                status = e.code
            except OSError:
                status = 0
            with self.lock:
                self.answers[status] += 1
            if status in (429, 503) and self.polite:
                time.sleep(1)  # Retry-After: 1

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)


def case_png(base: str, proc: Any, count: int, polite: bool, nice: str) -> None:
    mover = Mover(base, 5)
    rng = random.Random(20)
    positions = [engine_position("catchup", {"size": 10}, rng.randrange(10, 60), rng)[0] for _ in range(40)]
    pictures = [
        {"state": state, "format": "png", "width": 2048, "palette": palette}
        for palette in ("default", "colorblind", "print")
        for state in positions
    ]
    play = {"state": call(base, "POST", "/v1/games/catchup/new", {"options": {"size": 10}})["state"], "move": "E5"}
    timed(base, play, mover, 20)  # warm up
    idle = timed(base, play, mover, count)
    painters = Painters(base, 8, pictures, polite)
    try:
        time.sleep(2)
        loaded = timed(base, play, mover, count)
        load = load_average()
    finally:
        painters.close()
    how = "waiting Retry-After after a 503" if polite else "asking again at once after a 503"
    how += f", renderers at nice {nice}"
    report(f"(a) 8 clients asking for 2048-px PNGs nonstop, {how} (PNG_RATE_LIMIT, RENDER_RATE_LIMIT off)", idle, loaded, 1.5)
    answers = ", ".join(f"{status}: {n}" for status, n in sorted(painters.answers.items()))
    print(f"picture answers during the run (timing and draining): {answers}; load average {load}")


# -- (b) slow bodies ------------------------------------------------------------------------


class SlowBodies:
    """``count`` connections from ``addresses`` sending headers, then a byte of the body every ``every`` s;
    one closed by the server is opened again.  One thread, one selector."""

    def __init__(self, port: int, count: int, addresses: list[str], every: float = 10.0) -> None:
        self.port, self.count, self.addresses, self.every = port, count, addresses, every
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.opened = self.closed_by_server = self.failed = 0
        self.statuses: Counter[str] = Counter()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self, k: int) -> None:
        source = self.addresses[k % len(self.addresses)]
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5, source_address=(source, 0))
            head = "POST /v1/games/catchup/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            sock.sendall((head + "Content-Length: 1000\r\n\r\n{").encode())
            sock.setblocking(False)
        except OSError:
            self.failed += 1
            return
        self.opened += 1
        self.sel.register(sock, selectors.EVENT_READ, k)

    def _run(self) -> None:
        for k in range(self.count):  # at about 1,000 a second
            if self.stop.is_set():
                return
            self._open(k)
            if k % 100 == 99:
                self._drain(0.05)
        next_byte = time.monotonic() + self.every
        while not self.stop.is_set():
            self._drain(0.2)
            if time.monotonic() >= next_byte:
                next_byte += self.every
                for key in list(self.sel.get_map().values()):
                    with contextlib.suppress(OSError):
                        key.fileobj.send(b" ")  # type: ignore[union-attr]

    def _drain(self, timeout: float) -> None:
        for key, _ in self.sel.select(timeout=timeout):
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = sock.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data.startswith(b"HTTP/"):
                self.statuses[data.split(b" ", 2)[1].decode()] += 1
            if not data:
                self.sel.unregister(sock)
                sock.close()
                self.closed_by_server += 1
                if not self.stop.is_set():
                    self._open(key.data)

    @property
    def held(self) -> int:
        return len(self.sel.get_map())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def case_slowbody(base: str, proc: Any, count: int, connections: int, via: str, work: Path) -> None:
    """The attack on ``base`` itself (``via`` direct) or on deploy/nginx.conf in front of it (``via`` nginx),
    plays and moves timed the same way as the attack comes."""
    with contextlib.ExitStack() as stack:
        front, proxy = base, None
        if via == "nginx":
            front, proxy = stack.enter_context(nginx(work / "nginx", base.removeprefix("http://")))
        _slowbody(front, proc, proxy, count, connections, via)


def _slowbody(base: str, proc: Any, proxy: Any, count: int, connections: int, via: str) -> None:
    mover = Mover(base, 5)
    empty = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
    play = {"state": empty, "move": "C3"}
    timed(base, play, mover, 20)
    idle = timed(base, play, mover, count)
    rss_before = workers_rss(proc.pid)
    proxy_before = 0.0 if proxy is None else proxy_rss(proxy.pid)
    port = int(base.rsplit(":", 1)[1])
    attack = SlowBodies(port, connections, [f"127.0.0.{k}" for k in range(10, 50)])
    try:
        time.sleep(8)  # the connections are open and the first bodies have timed out
        held = attack.held
        cpu_before = _cpu(proc, proxy)
        loaded_started = time.perf_counter()
        loaded = timed(base, play, mover, count)
        spent = time.perf_counter() - loaded_started
        cpu_used = [b - a for a, b in zip(cpu_before, _cpu(proc, proxy), strict=True)]
        rss_during = workers_rss(proc.pid)
        proxy_during = 0.0 if proxy is None else proxy_rss(proxy.pid)
        load = load_average()
        held_after = attack.held
    finally:
        attack.close()
    time.sleep(3)
    rss_after = workers_rss(proc.pid)
    where = "through nginx (deploy/nginx.conf)" if via == "nginx" else "direct to the app"
    report(f"(b) {connections} slow bodies from 40 addresses (a byte every 10 s), {where}", idle, loaded, 2.0)
    statuses = ", ".join(f"{s}: {n}" for s, n in sorted(attack.statuses.items()))
    print(
        f"attack: {attack.opened} connections opened ({attack.failed} could not), held {held} when the timing began, "
        f"{held_after} at its end; the server answered {statuses} and closed {attack.closed_by_server}"
    )
    print(f"workers' RSS: {rss_before:.1f} MiB before, {rss_during:.1f} during, {rss_after:.1f} after; load average {load}")
    who = ("app", "nginx", "this benchmark")
    shares = ", ".join(f"{name} {used / spent:.2f}" for name, used in zip(who, cpu_used, strict=True))
    print(f"CPU while timing under the attack ({spent:.1f} s), in cores: {shares} (the attacker is a thread of the benchmark)")
    if proxy is not None:
        print(f"nginx's RSS (master and workers): {proxy_before:.1f} MiB before, {proxy_during:.1f} during")


def _cpu(proc: Any, proxy: Any) -> list[float]:
    """CPU seconds so far of the app (service.run.serve and its children), of nginx, and of this process."""
    times = os.times()
    app = cpu_s([proc.pid]) or 0.0
    front = 0.0 if proxy is None else cpu_s([proxy.pid]) or 0.0
    return [app, front, times.user + times.system]


def proxy_rss(pid: int) -> float:
    return sum(rss_bytes(p) for p in [pid, *descendants(pid)]) / 2**20


# -- (c) spectators -------------------------------------------------------------------------


class Streams:
    """Event streams of one match, ``count`` of them from ``addresses``, drained by one thread."""

    def __init__(self, port: int, match_id: str, count: int, addresses: list[str]) -> None:
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.failed = self.ended = 0
        self.bytes = 0
        self.refused: Counter[str] = Counter()
        for k in range(count):
            try:
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=10, source_address=(addresses[k % len(addresses)], 0)
                )
                sock.sendall(f"GET /v1/matches/{match_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                sock.setblocking(False)
                self.sel.register(sock, selectors.EVENT_READ)
            except OSError:
                self.failed += 1
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 ") and not data.startswith(b"HTTP/1.1 200"):
                    self.refused[data[9:12].decode()] += 1
                self.bytes += len(data)
                if not data:
                    self.sel.unregister(sock)
                    sock.close()
                    self.ended += 1

    @property
    def open(self) -> int:
        return len(self.sel.get_map())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def case_spectators(base: str, proc: Any, count: int, listeners: int) -> None:
    size = 10  # 271 cells: the timed moves all fit in one match
    if count > 260:
        raise SystemExit("--requests is at most 260 for this case (one Catchup side-10 match)")
    empty = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
    play = {"state": empty, "move": "C3"}
    quiet = Mover(base, size)
    timed(base, play, quiet, 20)
    quiet.new()
    idle = timed(base, play, quiet, count)
    watched = Mover(base, size)
    port = int(base.rsplit(":", 1)[1])
    rss_before = workers_rss(proc.pid)
    opened = time.perf_counter()
    crowd = Streams(port, watched.match["match_id"], listeners, [f"127.0.1.{k}" for k in range(1, 51)])
    try:
        held = gauge_listeners(base, listeners)
        ready = time.perf_counter() - opened
        rss_during = workers_rss(proc.pid)
        loaded = timed(base, play, watched, count)
        load = load_average()
        still = crowd.open
    finally:
        crowd.close()
    report(f"(c) {listeners} event streams on the match being moved in (50 addresses)", idle, loaded, 1.5)
    refused = ", ".join(f"{s}: {n}" for s, n in sorted(crowd.refused.items())) or "none"
    print(
        f"listeners: the server counted {held} {ready:.1f} s after the first was opened; {still} streams open at the end "
        f"({crowd.failed} could not connect, refused: {refused}); {crowd.bytes / 2**20:.1f} MiB of events read"
    )
    print(f"workers' RSS: {rss_before:.1f} MiB before the streams, {rss_during:.1f} with them; load average {load}")


# -- (e) stalled webhooks (issue 34 item 1) --------------------------------------------------


def webhook_receivers(stall_hosts: int) -> tuple[Any, Any, dict[str, str]]:
    """The stalled-webhooks case's receivers (bench/bench_webhooks.py): one healthy, ``stall_hosts``
    stalling; and the server's settings that allow them."""
    from bench.bench_webhooks import Receiver, Stalls

    healthy, stalls = Receiver(), Stalls(stall_hosts)
    allow = ",".join(f"127.0.0.1:{p}" for p in [healthy.server_port, *stalls.ports])
    return healthy, stalls, {"WEBHOOK_ALLOW": allow, "CREATE_RATE_LIMIT": "off"}


def case_webhooks(base: str, healthy: Any, stalls: Any, matches: int) -> None:
    """``matches`` matches whose three webhooks stall (200, then a header byte every 3 s) on the
    stalling hosts, while a healthy match posts elsewhere: each healthy post within 2 s of its move."""
    from bench.bench_webhooks import stalled

    print(f"-- (e) {matches} matches whose webhooks stall, and a healthy match's posts")
    stalled(base, healthy, stalls, matches)


def gauge_listeners(base: str, want: int, wait_s: float = 60) -> int:
    """``umpire_listeners`` summed over ``/metrics``, once it reaches ``want`` (or after ``wait_s``)."""
    end = time.monotonic() + wait_s
    value = 0
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(base + "/metrics", timeout=10) as resp:
                text = resp.read().decode()
        except OSError:  # the workers are busy starting thousands of streams
            continue
        value = int(sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("umpire_listeners")))
        if value >= want:
            break
        time.sleep(0.5)
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench dos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=["png", "slowbody", "spectators", "webhooks", "all"], default="all")
    parser.add_argument("--requests", type=int, default=200, help="timed plays and moves, idle and loaded")
    parser.add_argument("--connections", type=int, default=8300, help="slow-body connections (the issue's 8,300)")
    parser.add_argument("--via", choices=["direct", "nginx", "both"], default="both", help="slowbody: at the app, or at nginx")
    parser.add_argument("--listeners", type=int, default=5000, help="event streams on the moved match")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--pace", type=float, default=0.0, help="seconds between timed play-and-move pairs (0: back to back)")
    parser.add_argument("--timeout", type=float, default=30.0, help="a timed request unanswered this long counts as failed")
    parser.add_argument("--impolite", action="store_true", help="png: the clients ignore Retry-After")
    parser.add_argument("--nice", default=None, help="png: RENDER_NICE (the service's default: 10)")
    parser.add_argument("--stalled", type=int, default=100, help="webhooks: matches whose webhooks stall")
    parser.add_argument("--stall-hosts", type=int, default=4, help="webhooks: receivers (ports) that stall")
    args = parser.parse_args(argv or [])
    cases = ["png", "slowbody", "spectators", "webhooks"] if args.case == "all" else [args.case]
    PACE[0] = args.pace
    global TIMEOUT_S
    TIMEOUT_S = args.timeout
    print(f"{args.workers} gevent workers, {os.cpu_count()} cpus; pace {args.pace} s; load average at the start {load_average()}")
    for case in cases:
        work = Path(tempfile.mkdtemp(prefix=f"bench-dos-{case}-"))
        redis = TcpRedis(work / "redis", free_port()).start()
        env = {"REDIS_URL": redis.url, "WEB_CONCURRENCY": args.workers, "EVENTS_LIFETIME_S": "600"}
        if case == "slowbody" and args.via != "direct":
            env["TRUSTED_PROXIES"] = "1"  # behind nginx, as deploy/nginx.conf says; direct, nobody sends X-Forwarded-For
        if case == "png":
            env["RENDER_RATE_LIMIT"] = env["PNG_RATE_LIMIT"] = "off"  # no budget: the pool alone holds the load
            if args.nice is not None:
                env["RENDER_NICE"] = args.nice
        hooks = webhook_receivers(args.stall_hosts) if case == "webhooks" else None
        if hooks is not None:
            env.update(hooks[2])
        proc, base = serve(env)
        try:
            if case == "png":
                case_png(base, proc, args.requests, not args.impolite, args.nice or "10")
            elif case == "slowbody":
                for via in ("direct", "nginx") if args.via == "both" else (args.via,):
                    case_slowbody(base, proc, args.requests, args.connections, via, work)
            elif case == "webhooks" and hooks is not None:
                case_webhooks(base, hooks[0], hooks[1], args.stalled)
            else:
                case_spectators(base, proc, args.requests, args.listeners)
        finally:
            stop(proc)
            if hooks is not None:
                hooks[0].shutdown()
                hooks[1].close()
            redis.stop()
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
