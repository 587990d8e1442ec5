"""What webhooks cost a move, how soon a post follows it, and how the deliverer holds against
receivers that misbehave (issues 22 and 34): ``python -m bench webhooks [--case NAME|all]``.

One ``python -m service.run.serve`` (what ``make run`` starts: one gunicorn
worker, the embedded Redis, its deliverer since ``WEBHOOK_ALLOW`` names the
receivers) and receivers on loopback.  Each case in one run:

* ``latency``: alternately, side-4 Catchup matches without webhooks (the
  baseline) and with a ``json`` webhook (a PNG rendered and sent per change),
  each played to its end by one keep-alive client with random single stones
  (always legal, R-C1).  Printed: each move's answer time with and without
  webhooks and their ratio, how fast the posts of those back-to-back moves
  drain, and, a move every second, how long after a move's answer its post
  arrived.  Knob: ``BENCH_GAMES`` (8 of each).
* ``stalled`` (issue 34 item 1): ``--stalled`` (100) matches whose three
  webhooks each stall, on ``--stall-hosts`` (4) receivers that answer
  ``HTTP/1.1 200 OK`` and then one header byte every 3 s (the issue's); then a
  healthy match, a move every 0.5 s, posting to a receiver that answers at
  once: how long after each move's answer its post arrived, measured first
  with nobody stalling (the baseline), then with the stalled matches.  Goal:
  every healthy post within 2 s of its move.
* ``memory`` (item 2): a webhook stuck on the first change (500 on every try)
  and a working one, then ``--changes`` (1,200) changes (the umpire pausing
  and resuming, each with its picture): the deliverer's resident memory
  before and after.
* ``refusals`` (item 6): ``--attempts`` (1,500) refused attempts as fast as one
  client makes them, in a match with three webhooks (Discord, Slack,
  ``json``): the posts and bytes the receiver got.

``--tree PATH`` serves another checkout of the project (an older commit, for
before/after figures in one run; this bench never makes one itself).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import selectors
import socket
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.common import ROOT, call, descendants, free_port, request, rss_bytes, serve, stop

SIZE = 4
CLOCK = {"turn_s": 600, "bank_s": 0}
PAUSE_S = 1.0
GOAL_S = 2.0  # issue 34: with 100 matches whose webhooks stall, a healthy post within 2 s of its change


class Receiver(ThreadingHTTPServer):
    """A receiver that answers 204 at once and notes when each post arrived, how many it got and their bytes."""

    daemon_threads = True

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        self.posts = 0
        self.bytes = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/hook"


class Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(size)
        with self.server.lock:
            self.server.arrived.setdefault(self.headers["X-Umpire-Delivery"], time.perf_counter())
            self.server.posts += 1
            self.server.bytes += size
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Stalls:
    """``hosts`` receivers (one port each) that read a post, answer ``HTTP/1.1 200 OK`` and then one
    header byte every ``every_s`` for as long as the client stays: one thread, one selector."""

    def __init__(self, hosts: int, every_s: float = 3.0) -> None:
        self.every_s = every_s
        self.sel = selectors.DefaultSelector()
        self.listeners = [socket.create_server(("127.0.0.1", 0)) for _ in range(hosts)]
        for s in self.listeners:
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, "accept")
        self.heads: dict[socket.socket, bytes] = {}  # connections still sending their request
        self.held: dict[socket.socket, int] = {}  # connections answered in part: port
        self.posts = 0
        self.most: dict[int, int] = {}  # per port, the most connections held at once
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @property
    def ports(self) -> list[int]:
        return [s.getsockname()[1] for s in self.listeners]

    def url(self, k: int) -> str:
        return f"http://127.0.0.1:{self.ports[k % len(self.ports)]}/stall"

    def run(self) -> None:
        drip = time.monotonic() + self.every_s
        while not self.stopping.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if key.data == "accept":
                    try:
                        conn, _ = sock.accept()
                    except OSError:
                        continue
                    conn.setblocking(False)
                    self.heads[conn] = b""
                    self.sel.register(conn, selectors.EVENT_READ, "read")
                    continue
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.drop(sock)
                    continue
                if sock in self.heads:
                    self.heads[sock] += chunk
                    head, sep, body = self.heads[sock].partition(b"\r\n\r\n")
                    size = content_length(head)
                    if sep and len(body) >= size:
                        del self.heads[sock]
                        port = sock.getsockname()[1]
                        self.held[sock] = port
                        self.posts += 1
                        now_held = sum(1 for p in self.held.values() if p == port)
                        self.most[port] = max(self.most.get(port, 0), now_held)
                        sock.send(b"HTTP/1.1 200 OK\r\n")
            if time.monotonic() >= drip:
                drip = time.monotonic() + self.every_s
                for sock in list(self.held):
                    try:
                        sock.send(b"X")  # a header's name that never ends
                    except OSError:
                        self.drop(sock)

    def drop(self, sock: socket.socket) -> None:
        self.heads.pop(sock, None)
        self.held.pop(sock, None)
        self.sel.unregister(sock)
        sock.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        for sock in [*self.heads, *self.held, *self.listeners]:
            sock.close()


def content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def json_call(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    except BrokenPipeError:  # the server closed the kept connection (its keep-alive) before this was sent: again
        conn.close()
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    resp = conn.getresponse()
    data = json.loads(resp.read())
    if resp.status >= 300:
        raise RuntimeError(f"{method} {path}: {resp.status} {data}")
    return data


def play(
    conn: http.client.HTTPConnection, rng: random.Random, hook: str | None, pause_s: float = 0.0
) -> tuple[str, list[tuple[int, float, float]]]:
    """A match to its end, ``pause_s`` between moves: its id, and each move's (record entry, start, answered) times."""
    body: dict[str, Any] = {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK}
    if hook:
        body["webhooks"] = [{"url": hook, "format": "json"}]
    made = json_call(conn, "POST", "/v1/matches?legal_moves=true", body)
    match_id, seats = made["match_id"], made["seats"]
    state, legal = made["state"], made["legal_moves"]
    out: list[tuple[int, float, float]] = []
    while state["status"] != "finished":
        cell = rng.choice(sorted({m.split()[0] for m in legal["moves"]}))
        start = time.perf_counter()
        answer = json_call(
            conn, "POST", f"/v1/matches/{match_id}/moves?legal_moves=true", {"move": cell, "ply": state["ply"]},
            seats[str(state["to_move"])],
        )  # fmt: skip
        out.append((len(out) + 1, start, time.perf_counter()))
        state, legal = answer["state"], answer["legal_moves"]
        time.sleep(pause_s)
    return match_id, out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def wait_all(receiver: Receiver, answered: dict[str, float], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while set(answered) - set(receiver.arrived) and time.monotonic() < deadline:
        time.sleep(0.02)


def connect(base: str) -> http.client.HTTPConnection:
    host, port = base.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=30)


def deliverer_rss(serve_pid: int) -> float:
    """The resident MiB of the deliverer (``flask ... deliver``) under ``serve_pid``."""
    for pid in descendants(serve_pid):
        try:
            if b"deliver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return rss_bytes(pid) / 2**20
        except OSError:
            continue
    return float("nan")


# -- latency --------------------------------------------------------------------------------


def case_latency(base: str, receiver: Receiver, games: int) -> None:
    conn = connect(base)
    rng = random.Random(22)
    plain: list[float] = []
    hooked: list[float] = []
    answered: dict[str, float] = {}
    play(conn, rng, None)  # warm up
    for _ in range(games):
        _, moves = play(conn, rng, None)
        plain += [end - start for _, start, end in moves]
        match_id, moves = play(conn, rng, receiver.url)
        hooked += [end - start for _, start, end in moves]
        answered.update({f"{match_id}:{k}": end for k, _, end in moves})
    first = min(answered.values())
    wait_all(receiver, answered)
    backlog_s = max(receiver.arrived[k] for k in answered if k in receiver.arrived) - first
    backlog = [receiver.arrived[k] - t for k, t in answered.items() if k in receiver.arrived]
    missing = len(answered) - len(backlog)
    conn.close()  # idle past gunicorn's keep-alive while the posts drained
    conn = connect(base)
    paced: dict[str, float] = {}
    for _ in range(2):  # a brisk game: a move every PAUSE_S, so no post waits for another
        match_id, moves = play(conn, rng, receiver.url, PAUSE_S)
        paced.update({f"{match_id}:{k}": end for k, _, end in moves})
    wait_all(receiver, paced)
    late = [receiver.arrived[k] - t for k, t in paced.items() if k in receiver.arrived]
    missing += len(paced) - len(late)
    ms = 1000
    print(
        f"-- latency: moves: {len(plain)} without webhooks, {len(hooked)} with a json webhook ({games} matches each, side {SIZE})"
    )
    print(
        f"move answer, median: {statistics.median(plain) * ms:.2f} ms without, {statistics.median(hooked) * ms:.2f} ms with"
        f" (ratio {statistics.median(hooked) / statistics.median(plain):.2f})"
    )
    print(
        f"move answer, p95:    {pct(plain, 0.95) * ms:.2f} ms without, {pct(hooked, 0.95) * ms:.2f} ms with"
        f" (ratio {pct(hooked, 0.95) / pct(plain, 0.95):.2f})"
    )
    print(
        f"posts of those {len(backlog)} moves, made back to back: all arrived {backlog_s:.1f} s after the first move"
        f" ({len(backlog) / backlog_s:.0f} posts/s), the last {max(backlog):.1f} s after its move's answer"
    )
    print(
        f"a move every {PAUSE_S:g} s ({len(late)} moves): its post arrived a median {statistics.median(late) * ms:.0f} ms,"
        f" p95 {pct(late, 0.95) * ms:.0f} ms, at most {max(late) * ms:.0f} ms after the move's answer; {missing} never arrived"
    )


# -- stalled receivers (issue 34 item 1) ------------------------------------------------------


def healthy_delays(
    base: str, receiver: Receiver, games: int, pause_s: float = 0.5, wait_s: float = 150
) -> tuple[list[float], int]:
    """``games`` healthy matches, a move every ``pause_s``: how long after each move's answer its post
    arrived, and how many never arrived within ``wait_s`` (counted in the delays as ``wait_s``)."""
    conn = connect(base)
    rng = random.Random(34)
    answered: dict[str, float] = {}
    for _ in range(games):
        match_id, moves = play(conn, rng, receiver.url, pause_s)
        answered.update({f"{match_id}:{k}": end for k, _, end in moves})
    conn.close()
    wait_all(receiver, answered, wait_s)
    delays = [receiver.arrived[k] - t if k in receiver.arrived else wait_s for k, t in answered.items()]
    return delays, sum(1 for k in answered if k not in receiver.arrived)


def stalled_crowd(base: str, stalls: Stalls, matches: int) -> None:
    """``matches`` matches whose three webhooks are on the stalling receivers, each with a move to post."""
    for k in range(matches):
        hooks = [{"url": stalls.url(3 * k + j), "format": f} for j, f in enumerate(("json", "discord", "slack"))]
        body = {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK, "webhooks": hooks}
        made = call(base, "POST", "/v1/matches", body)
        status, answer = request(
            base, "POST", f"/v1/matches/{made['match_id']}/moves", {"move": "C3", "ply": 0},
            {"Authorization": f"Bearer {made['seats']['0']}"},
        )  # fmt: skip
        if status != 200:
            raise RuntimeError(f"move: {status} {answer}")


def stalled(base: str, receiver: Receiver, stalls: Stalls, matches: int, games: int = 2) -> bool:
    """The stalled-webhooks case, printed; True when every healthy post met the goal."""
    healthy_delays(base, receiver, 1)  # warm up: the renderers start, the deliverer has walked once
    idle, idle_missing = healthy_delays(base, receiver, games)
    started = time.monotonic()
    stalled_crowd(base, stalls, matches)
    made_s = time.monotonic() - started
    time.sleep(1.0)  # their first tries are under way
    loaded, missing = healthy_delays(base, receiver, games)
    ms = 1000
    print(
        f"-- stalled: {matches} matches x 3 webhooks on {len(stalls.ports)} receivers that answer 200 then a header byte"
        f" every {stalls.every_s:g} s (made in {made_s:.1f} s); a healthy match, a move every 0.5 s"
    )
    for name, got, lost in (("idle", idle, idle_missing), ("stalled", loaded, missing)):
        print(
            f"{name:<8} {len(got)} posts: median {statistics.median(got) * ms:.0f} ms, p95 {pct(got, 0.95) * ms:.0f} ms,"
            f" most {max(got) * ms:.0f} ms after the move's answer; {lost} never arrived"
        )
    most = max(loaded)
    met = most <= GOAL_S and not missing
    print(f"goal: every healthy post within {GOAL_S:g} s of its move: {'met' if met else 'NOT met'} (most {most:.2f} s)")
    print(
        f"stalling receivers: {stalls.posts} posts read, at most {max(stalls.most.values(), default=0)} held at once by one"
        f" host ({sum(stalls.most.values())} summed over the {len(stalls.ports)} hosts)"
    )
    return met


# -- memory (issue 34 item 2) ---------------------------------------------------------------


def case_memory(base: str, proc: Any, receiver: Receiver, stuck: str, changes: int) -> None:
    body = {
        "game": "catchup", "options": {"size": SIZE}, "clock": CLOCK,
        "webhooks": [{"url": stuck, "format": "discord"}, {"url": receiver.url, "format": "discord"}],
    }  # fmt: skip
    made = call(base, "POST", "/v1/matches", body)
    match_id, umpire = made["match_id"], {"Authorization": f"Bearer {made['umpire']}"}
    time.sleep(2)
    before = deliverer_rss(proc.pid)
    started = time.monotonic()
    for k in range(changes):
        call(base, "POST", f"/v1/matches/{match_id}/{'pause' if k % 2 == 0 else 'resume'}", {}, umpire)
    wanted = {f"{match_id}:{k}" for k in range(1, changes + 1)}
    end = time.monotonic() + 600
    while wanted - set(receiver.arrived) and time.monotonic() < end:
        time.sleep(0.2)
    after = deliverer_rss(proc.pid)
    got = len(wanted & set(receiver.arrived))
    print(
        f"-- memory: a webhook stuck on the first change (500 on every try) and a working one (discord, a PNG each),"
        f" {changes} changes (pause/resume) in {time.monotonic() - started:.0f} s: {got} posted to the working one"
    )
    print(f"deliverer RSS: {before:.1f} MiB before, {after:.1f} MiB after ({after - before:+.1f} MiB)")


class Failing(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


# -- refused attempts (issue 34 item 6) -----------------------------------------------------


def case_refusals(base: str, receiver: Receiver, attempts: int) -> None:
    hooks = [{"url": receiver.url, "format": f} for f in ("discord", "slack", "json")]
    made = call(base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK, "webhooks": hooks})
    match_id, seats = made["match_id"], made["seats"]
    call(base, "POST", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, {"Authorization": f"Bearer {seats['0']}"})
    time.sleep(2)
    posts, sent = receiver.posts, receiver.bytes
    conn = connect(base)
    started = time.monotonic()
    statuses: dict[int, int] = {}
    for _ in range(attempts):
        conn.request(
            "POST", f"/v1/matches/{match_id}/moves", body=json.dumps({"move": "C3", "ply": 1}),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {seats['1']}"},
        )  # fmt: skip
        resp = conn.getresponse()
        resp.read()
        statuses[resp.status] = statuses.get(resp.status, 0) + 1
    took = time.monotonic() - started
    conn.close()
    record = call(base, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    refused = sum(1 for e in record if e["kind"] == "illegal")
    time.sleep(25)  # the posts that wait for WEBHOOK_REFUSALS_S (10 s) go out meanwhile
    got, size = receiver.posts - posts, receiver.bytes - sent
    umpire = {"Authorization": f"Bearer {made['umpire']}"}
    counted = [w["delivered"] for w in call(base, "GET", f"/v1/matches/{match_id}/webhooks", None, umpire)["webhooks"]]
    print(
        f"-- refusals: {attempts} refused attempts in {took:.1f} s by one client (answers {statuses}; {refused} in the record),"
        f" a match with 3 webhooks (discord, slack, json)"
    )
    print(
        f"the receiver got {got} posts, {size / 2**20:.2f} MiB, in the {took + 25:.0f} s after the first attempt;"
        f" changes delivered per webhook: {counted} of {len(record)}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench webhooks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=["latency", "stalled", "memory", "refusals", "all"], default="all")
    parser.add_argument("--stalled", type=int, default=100, help="matches whose webhooks stall")
    parser.add_argument("--stall-hosts", type=int, default=4, help="receivers (ports) that stall")
    parser.add_argument("--changes", type=int, default=1200, help="memory: changes posted")
    parser.add_argument("--attempts", type=int, default=1500, help="refusals: refused attempts")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the project checkout to serve")
    args = parser.parse_args(argv or [])
    cases = ["latency", "stalled", "memory", "refusals"] if args.case == "all" else [args.case]
    games = int(os.environ.get("BENCH_GAMES", "8"))
    print(f"{os.cpu_count()} cpus; serving {args.tree}")
    for case in cases:
        receiver = Receiver()
        stalls = Stalls(args.stall_hosts) if case == "stalled" else None
        failing = ThreadingHTTPServer(("127.0.0.1", free_port()), Failing) if case == "memory" else None
        if failing is not None:
            threading.Thread(target=failing.serve_forever, daemon=True).start()
        ports = [receiver.server_port, *(stalls.ports if stalls else []), *([failing.server_port] if failing else [])]
        with tempfile.TemporaryDirectory() as folder:
            env = {
                "DATA_DIR": str(Path(folder) / "data"),
                "WEB_CONCURRENCY": "1",
                "SWEEPER": "0",
                "WEBHOOK_ALLOW": ",".join(f"127.0.0.1:{p}" for p in ports),
                "CREATE_RATE_LIMIT": "off",
            }
            proc, base = serve(env, cwd=args.tree)
            try:
                if case == "latency":
                    case_latency(base, receiver, games)
                elif case == "stalled" and stalls is not None:
                    stalled(base, receiver, stalls, args.stalled)
                elif case == "memory" and failing is not None:
                    case_memory(base, proc, receiver, f"http://127.0.0.1:{failing.server_port}/stuck", args.changes)
                else:
                    case_refusals(base, receiver, args.attempts)
            finally:
                stop(proc)
                receiver.shutdown()
                if stalls is not None:
                    stalls.close()
                if failing is not None:
                    failing.shutdown()


if __name__ == "__main__":
    main()
