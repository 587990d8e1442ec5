"""A soak under faults: ``python -m bench soak [--minutes 5] [--cluster]``.

Against the real thing - ``python -m service.run.serve`` (gunicorn's gevent
workers, ``--workers`` of them, and a sweeper) on a Redis of its own: one
``redis-server`` on a loopback port, or with ``--cluster`` a three-master
Redis Cluster on loopback (``service.run.embedded.start_cluster``), both
append-only with ``appendfsync everysec`` - it runs, in threads of this
process, for ``--minutes``:

* ``--players`` threads of stateless calls: ``POST /v1/games/{game}/play``
  and ``.../legal-moves`` on positions of every game (each answer must be 200);
* ``--bots`` bots, each playing managed matches to the end, one after the
  other, both seats, random legal moves (umpire/bots), every move with an
  ``Idempotency-Key``; half ask for ``?legal_moves=true``.  A move that fails
  (no answer, or 503) is sent again, same ply, same key, until it is answered.
  One match in eight is a Catchup match with a 1 s clock whose bot stops
  thinking after its second move: the sweeper flags it, and the bot's next
  move is refused 410 (expected, and the record says ``timeout``);
* ``--listeners`` waiting listeners on the bots' ongoing matches, in turn an
  event stream (``GET /v1/matches/{id}/events``, reconnecting with
  ``Last-Event-ID``; streams end every ``EVENTS_LIFETIME_S`` = 20 s here) and
  long-polls (``GET /v1/matches/{id}?wait_ply=N&timeout_s=10``), each
  following its match to the end;

while it injects faults on a schedule (fractions of the run): a gunicorn
worker killed (SIGKILL; gunicorn starts another), Redis slowed (``DEBUG
SLEEP 0.25`` every 0.5 s for 10 s), Redis frozen (SIGSTOP for 4 s, then
SIGCONT: requests time out), and a Redis master shut down for 5 s and started
again (from its append-only file).  On the cluster the faults hit one master.

Every answer is counted by kind and status (and error code); an error (no
answer, a 5xx, or a status the kind never expects) is attributed to the
fault whose window (its duration and a grace after it for recovery) it
overlaps, else it is unexplained.  It prints latency percentiles by kind,
the workers' RSS and Redis's ``used_memory`` at start and end, and at the
end checks every match created: its record replays (``POST
/v1/games/{game}/replay`` with the record's ``replay``) to its stored state,
and every move acknowledged (a 200 the bot saw) is in the record at its ply.

Everything is bounded: loops stop at the deadline (bots finish the match in
hand, at most a few minutes more, then stop), every request has a timeout,
and only 127.0.0.1 is spoken to.  ``--out FILE`` writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import signal
import socket
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.common import TcpRedis, free_port, gunicorn_workers, rss_bytes, serve, stop
from engine.registry import GAMES
from service.run import embedded
from umpire.bots.moves import random_move

GAMES_PLAYED: list[tuple[str, dict[str, Any]]] = [
    ("catchup", {"size": 4}),
    ("bug", {"size": 3}),
    ("crystal", {}),
    ("plur", {"size": 4}),
    ("too", {"size": 4}),
]
LONG_CLOCK = {"turn_s": 120, "bank_s": 120}  # no flag while a bot plays, faults and all
SHORT_CLOCK = {"turn_s": 1, "bank_s": 0}
EXPECTED = {  # the statuses each kind of request may answer when nothing is wrong
    "play": {200},
    "legal-moves": {200},
    "create": {201},
    "move": {200},
    "move (flagged)": {410},
    "long-poll": {200},
    "stream": {200},
}
# How long after a fault its errors may still come.  A frozen cluster master is marked failed by
# the others (past cluster-node-timeout, 2 s) and the cluster is down until they clear the flag,
# no sooner than twice that timeout after setting it: 1.5 to 4.5 s after the SIGCONT was seen.
GRACE_S = {
    "worker killed": 5.0,
    "Redis slowed": 3.0,
    "Redis frozen": 8.0,
    "Redis stopped": 8.0,
    # --replicas: a failover takes cluster-node-timeout (2 s) and an election; a shard whose new
    # master has no replica yet refuses writes (min-replicas-to-write) until the old one is back
    # as its replica; outages past 3 s are credited to the clocks (RULES R-T3).
    "replica lagging": 8.0,
    "master paused": 10.0,
    "master killed": 10.0,
}


# -- HTTP over one keep-alive connection per thread ----------------------------------------


class Http:
    """A client's one connection, kept alive between requests, but not past ``IDLE_S``: gunicorn
    closes a kept-alive connection after ``--keep-alive`` (2 s) of quiet, and a request sent on
    it then finds it closed (``RemoteDisconnected``).  Clients' pools do the same."""

    IDLE_S = 1.0

    def __init__(self, port: int, timeout: float = 35.0) -> None:
        self.port, self.timeout = port, timeout
        self.conn: http.client.HTTPConnection | None = None
        self.idle_since = 0.0  # when the kept-alive connection last answered

    def __call__(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON body, headers); status 0 when no answer came (the error's name in the body,
        and "(a kept-alive connection)" when it broke on one used before)."""
        if self.conn is not None and time.monotonic() - self.idle_since > self.IDLE_S:
            self.close()  # the server may be closing it now
        reused = self.conn is not None
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            resp = self.conn.getresponse()
            raw = resp.read()
            answer = json.loads(raw) if raw else None
            self.idle_since = time.monotonic()
            return resp.status, answer, {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException, ValueError) as e:
            self.close()
            return 0, type(e).__name__ + (" (a kept-alive connection)" if reused else ""), {}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# -- what was seen -------------------------------------------------------------------------


@dataclass
class Seen:
    kind: str
    start: float
    end: float
    status: int
    code: str  # the error code, or what broke the connection


@dataclass
class Fault:
    name: str
    start: float
    end: float = 0.0

    def explains(self, seen: Seen) -> bool:
        return seen.end >= self.start and seen.start <= self.end + GRACE_S[self.name]


def culprit(faults: list[Fault], seen: Seen) -> Fault | None:
    """The latest fault whose window (with its grace) the request overlaps."""
    return max((f for f in faults if f.explains(seen)), key=lambda f: f.start, default=None)


@dataclass
class MatchLog:
    match_id: str
    game: str
    flagged: bool
    acknowledged: dict[int, str] = field(default_factory=dict)  # ply -> the move as the 200 wrote it back
    finished: bool = False
    note: str = ""


class Book:
    """Everything the threads saw, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[Seen] = []
        self.matches: list[MatchLog] = []
        self.ongoing: list[MatchLog] = []  # what listeners pick from
        self.stream_events = 0
        self.stream_reconnects = 0
        self.order_errors: list[str] = []
        self.followed = Counter[str]()  # listeners: followed to the end / gave up
        self.flags_late: list[float] = []  # ms from a flag's deadline to the sweeper applying it
        self.flags_credited = 0  # flags whose deadline an outage credit moved (R-T3)
        self.redis: Any = None  # a client of the soak's Redis, to watch the deadlines without settling them
        self.began = time.monotonic()  # the load's start: times are printed from it

    def add(self, kind: str, start: float, status: int, body: Any) -> None:
        code = ""
        if status == 0:
            code = str(body)
        elif status >= 400 and isinstance(body, dict):
            error = body.get("error") or {}
            code = str(error.get("code", ""))
            redis_said = (error.get("details") or {}).get("redis") if isinstance(error.get("details"), dict) else None
            code += f" ({redis_said})" if redis_said else ""
        with self.lock:
            self.seen.append(Seen(kind, start, time.monotonic(), status, code))


# -- the load ------------------------------------------------------------------------------


def stateless_pool(rng: random.Random) -> list[tuple[str, Any, str]]:
    """(game, state, a legal move) from random games of every game, a few plies in."""
    pool = []
    for name, options in GAMES_PLAYED:
        game = GAMES[name]
        for _ in range(6):
            position = game.new(options)
            for _ in range(rng.randrange(0, 8)):
                if game.is_over(position):
                    break
                position = game.play(position, random_move(game, position, rng)).state
            if not game.is_over(position):
                pool.append((name, game.dump(position), random_move(game, position, rng)))
    return pool


def player(port: int, book: Book, until: float, seed: int) -> None:
    rng, http = random.Random(seed), Http(port)
    pool = stateless_pool(rng)
    while time.monotonic() < until:
        game, state, move = rng.choice(pool)
        for kind, body in (("play", {"state": state, "move": move}), ("legal-moves", {"state": state})):
            start = time.monotonic()
            status, answer, _ = http("POST", f"/v1/games/{game}/{kind}", body)
            book.add(kind, start, status, answer)
        time.sleep(0.005)
    http.close()


def bot(port: int, book: Book, until: float, seed: int, hard_stop: float) -> None:
    rng, http = random.Random(seed), Http(port)
    with_legal = "?legal_moves=true" if seed % 2 else ""
    while time.monotonic() < until:
        flagged = rng.random() < 1 / 8
        name, options = ("catchup", {"size": 4}) if flagged else rng.choice(GAMES_PLAYED)
        body = {"game": name, "options": options, "clock": SHORT_CLOCK if flagged else LONG_CLOCK}
        start = time.monotonic()
        status, created, _ = http("POST", "/v1/matches", body)
        book.add("create", start, status, created)
        if status != 201:
            time.sleep(0.2)
            continue
        log = MatchLog(created["match_id"], name, flagged)
        with book.lock:
            book.matches.append(log)
            book.ongoing.append(log)
        play_match(http, book, log, created, rng, with_legal, hard_stop)
        with book.lock:
            book.ongoing.remove(log)
    http.close()


def play_match(http: Http, book: Book, log: MatchLog, created: Any, rng: random.Random, query: str, hard_stop: float) -> None:
    game = GAMES[log.game]
    seats, state = created["seats"], created["state"]
    clock = created["clock"]
    while state["status"] == "ongoing" and time.monotonic() < hard_stop:
        ply = state["ply"]
        if log.flagged and ply == 2:  # the sweeper flags this seat: how late?
            watch_flag(book, log.match_id, clock["deadline"])
        move = random_move(game, game.load(state), rng)
        headers = {"Authorization": f"Bearer {seats[str(state['to_move'])]}", "Idempotency-Key": uuid.uuid4().hex}
        for _ in range(600):  # a move is sent again (same ply, same key) until answered; at most a few minutes
            start = time.monotonic()
            status, answer, _ = http("POST", f"/v1/matches/{log.match_id}/moves{query}", {"move": move, "ply": ply}, headers)
            kind = "move (flagged)" if log.flagged and ply >= 2 else "move"
            book.add(kind, start, status, answer)
            if status == 0 or status >= 500:
                time.sleep(0.2 + rng.random() * 0.3)
                continue
            break
        else:
            log.note = f"no answer for ply {ply}"
            return
        if status == 200:
            log.acknowledged[ply] = answer["move"]
            state, clock = answer["state"], answer["clock"]
        elif status == 410 and log.flagged:
            log.finished = True
            return
        else:
            log.note = f"ply {ply}: {status} {answer}"
            return
    log.finished = state["status"] == "finished"


def watch_flag(book: Book, match_id: str, deadline: str) -> None:
    """Wait (at most 20 s) for the sweeper to apply the flag due at ``deadline``, watching the
    shard's deadlines in Redis (a read through the API would apply it itself); note how late
    after the deadline (the last one seen: an outage credit moves it later) it was applied."""
    from datetime import datetime

    key = f"soak:{{s{match_id[:2]}}}:deadlines"
    last = datetime.fromisoformat(deadline.replace("Z", "+00:00")).timestamp() * 1000
    first, end = last, time.monotonic() + 20
    while time.monotonic() < end:
        try:
            score = book.redis.zscore(key, match_id)
        except (redis.RedisError, OSError, redis.exceptions.RedisClusterException):
            time.sleep(0.05)
            continue
        if score is None:
            with book.lock:
                book.flags_late.append(time.time() * 1000 - last)
                book.flags_credited += last != first
            return
        last = float(score)
        time.sleep(0.02)
    time.sleep(max(0.0, last / 1000 - time.time()) + 0.6)  # not applied: the move below still comes late


def listener(port: int, book: Book, until: float, seed: int) -> None:
    rng, http = random.Random(seed), Http(port)
    turn = 0
    while time.monotonic() < until:
        with book.lock:
            candidates = list(book.ongoing)
        if not candidates:
            time.sleep(0.2)
            continue
        log = rng.choice(candidates)
        turn += 1
        outcome = stream(port, book, log, until) if turn % 2 else long_poll(http, book, log, until)
        with book.lock:
            book.followed[outcome] += 1
    http.close()


def long_poll(http: Http, book: Book, log: MatchLog, until: float) -> str:
    ply = 0
    while time.monotonic() < until:
        start = time.monotonic()
        status, answer, _ = http("GET", f"/v1/matches/{log.match_id}?wait_ply={ply}&timeout_s=10")
        book.add("long-poll", start, status, answer)
        if status != 200:
            time.sleep(0.3)
            continue
        if answer["state"]["status"] == "finished":
            return "long-poll: followed to the end"
        ply = answer["ply"]
    return "long-poll: stopped at the deadline"


def _event_key(event_id: str) -> tuple[int, int]:
    ply, _, sub = event_id.partition(".")
    return int(ply), int(sub or 0)


def stream(port: int, book: Book, log: MatchLog, until: float) -> str:
    """Follow the match's event stream to its end, reconnecting with Last-Event-ID (a stream
    ends every EVENTS_LIFETIME_S, and when its worker or Redis fails)."""
    last: str | None = None
    while time.monotonic() < until:
        start, fresh = time.monotonic(), 0
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=12)  # heartbeats every 5 s
        except OSError as e:
            book.add("stream", start, 0, type(e).__name__)
            time.sleep(0.3)
            continue
        header = f"Last-Event-ID: {last}\r\n" if last is not None else ""
        request = f"GET /v1/matches/{log.match_id}/events HTTP/1.0\r\nAccept: text/event-stream\r\n{header}\r\n"
        buffer, status, ended = b"", None, False
        try:
            sock.sendall(request.encode())
            while not ended and time.monotonic() < until:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                if status is None and b"\r\n\r\n" in buffer:
                    head, _, buffer = buffer.partition(b"\r\n\r\n")
                    status = int(head.split(b" ", 2)[1])
                    body: Any = None
                    if status != 200:  # an error's JSON body, to its end (HTTP/1.0: the server closes)
                        for _ in range(100):
                            more = sock.recv(65536)
                            if not more:
                                break
                            buffer += more
                        with contextlib.suppress(ValueError):
                            body = json.loads(buffer or b"null")
                    book.add("stream", start, status, body)
                    if status != 200:
                        break
                while status == 200 and b"\n\n" in buffer:
                    block, _, buffer = buffer.partition(b"\n\n")
                    fields = dict(ln.split(": ", 1) for ln in block.decode().split("\n") if ": " in ln and ln[0] != ":")
                    if "id" not in fields:
                        continue
                    name = fields.get("event")
                    if last is not None and name != "state" and _event_key(fields["id"]) <= _event_key(last):
                        with book.lock:
                            book.order_errors.append(f"{log.match_id}: {fields['id']} after {last}")
                    last, fresh = fields["id"], fresh + 1
                    with book.lock:
                        book.stream_events += 1
                    # the end, or a match already over when the stream began (its state says so)
                    ended = name == "end" or (name == "state" and json.loads(fields["data"])["state"]["status"] == "finished")
        except OSError as e:
            if status is None:
                book.add("stream", start, 0, type(e).__name__)
        finally:
            sock.close()
        if ended:
            return "stream: followed to the end"
        if status is None:
            book.add("stream", start, 0, "closed before the headers")
        elif status == 200 and fresh == 0 and log.finished:
            return "stream: followed to the end"  # reconnected after the last event of a finished match: nothing more
        with book.lock:
            book.stream_reconnects += 1
        time.sleep(0.2)
    return "stream: stopped at the deadline"


# -- Redis, one server or a cluster, and the faults ----------------------------------------------


class Backend:
    def __init__(self, work: Path, cluster: bool, replicas: int = 0) -> None:
        self.cluster = cluster or replicas > 0
        self.replicas = replicas
        if self.cluster:
            self.nodes = embedded.start_cluster(work / "cluster", appendfsync="everysec", replicas=replicas)
            self.url = self.nodes.url
        else:
            self.single = TcpRedis(work / "redis", free_port()).start()
            self.url = self.single.url

    def victim_url(self) -> str:
        return self.nodes.nodes[1].url if self.cluster else self.single.url

    def victim_pid(self) -> int:
        proc = self.nodes.nodes[1].process if self.cluster else self.single.process
        assert proc is not None
        return proc.pid

    def urls(self) -> list[str]:
        return [n.url for n in self.nodes.nodes] if self.cluster else [self.single.url]

    def pids(self) -> list[int]:
        procs = [n.process for n in self.nodes.nodes] if self.cluster else [self.single.process]
        return [p.pid for p in procs if p is not None and p.poll() is None]

    def restart_victim(self, down_s: float) -> None:
        if self.cluster:
            self.nodes.stop_node(1)
            time.sleep(down_s)
            self.nodes.start_node(1)
            self.nodes.wait_ok(60)
        else:
            self.single.stop()
            time.sleep(down_s)
            self.single.start()

    def master(self, n: int = 0) -> int:
        """The index of the n-th node that is a master now."""
        return [i for i, (role, _) in enumerate(self.nodes.roles()) if role == "master"][n]

    def pid(self, i: int) -> int:
        proc = self.nodes.nodes[i].process
        assert proc is not None
        return proc.pid

    def lag_replica(self, seconds: float) -> None:
        """A replica stops reading its master's stream (SIGSTOP) for less than min-replicas-max-lag."""
        freeze(self.pid(self.nodes.replica_of(self.master(0))), seconds)

    def pause_master(self, seconds: float) -> None:
        """A master silent past cluster-node-timeout: its replica takes over; it comes back as a replica."""
        freeze(self.pid(self.master(1)), seconds)
        self.nodes.wait_ok(60)

    def kill_master(self, down_s: float) -> None:
        """kill -9 a master; its replica takes over; the node is started again (it rejoins as a replica)."""
        victim = self.master(2)
        self.nodes.stop_node(victim, kill=True)
        time.sleep(down_s)
        self.nodes.start_node(victim)
        self.nodes.wait_role(victim, "slave", 60)
        self.nodes.wait_ok(60)

    def used_memory(self) -> list[int]:
        out = []
        for url in self.urls():
            client = redis.Redis.from_url(url, socket_timeout=5)
            try:
                out.append(int(client.info("memory")["used_memory"]))
            finally:
                client.close()
        return out

    def stop(self) -> None:
        self.nodes.stop() if self.cluster else self.single.stop()


def slow(url: str, seconds: float) -> None:
    client = redis.Redis.from_url(url, socket_timeout=5)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            client.execute_command("DEBUG", "SLEEP", "0.25")
            time.sleep(0.25)
    finally:
        client.close()


def freeze(pid: int, seconds: float) -> None:
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


def faults(backend: Backend, serve_pid: int, began: float, minutes: float, done: list[Fault], stop_flag: threading.Event) -> None:
    rng = random.Random(14)
    slow_s = min(10.0, minutes * 60 * 0.1)  # faults 20% of the run apart: a short run slows Redis for less
    schedule: list[tuple[float, str, Callable[[], None]]] = [
        (0.15, "worker killed", lambda: os.kill(rng.choice(gunicorn_workers(serve_pid)), signal.SIGKILL)),
        (0.35, "Redis slowed", lambda: slow(backend.victim_url(), slow_s)),
        (0.55, "Redis frozen", lambda: freeze(backend.victim_pid(), 4)),
        (0.75, "Redis stopped", lambda: backend.restart_victim(5)),
    ]
    if backend.replicas:
        schedule = [
            (0.15, "worker killed", schedule[0][2]),
            (0.35, "replica lagging", lambda: backend.lag_replica(6)),
            (0.55, "master paused", lambda: backend.pause_master(5)),
            (0.75, "master killed", lambda: backend.kill_master(5)),
        ]
    for at, name, act in schedule:
        if stop_flag.wait(max(0.0, began + at * minutes * 60 - time.monotonic())):
            return
        fault = Fault(name, time.monotonic())
        act()
        fault.end = time.monotonic()
        done.append(fault)
        print(f"soak: {name} at {fault.start - began:.0f} s, {fault.end - fault.start:.1f} s", flush=True)


# -- the end: every match checked ------------------------------------------------------------


def check(port: int, book: Book) -> dict[str, Any]:
    http = Http(port, timeout=60)
    out: Counter[str] = Counter()
    problems: list[str] = []
    for log in book.matches:
        status, got, _ = http("GET", f"/v1/matches/{log.match_id}")
        status_rec, rec, _ = http("GET", f"/v1/matches/{log.match_id}/moves")
        if status != 200 or status_rec != 200:
            problems.append(f"{log.match_id}: {status} {status_rec}")
            continue
        _, replayed, _ = http("POST", f"/v1/games/{log.game}/replay", rec["replay"])
        if not replayed.get("valid") or replayed.get("state") != got["state"]:
            problems.append(f"{log.match_id}: the record does not replay to the stored state")
            continue
        moves = {e["ply"]: e["move"] for e in rec["moves"] if e["kind"] == "move"}
        lost = [p for p, m in log.acknowledged.items() if moves.get(p) != m]
        if lost:
            problems.append(f"{log.match_id}: acknowledged plies {lost} not in the record")
            continue
        out["replayed to the stored state"] += 1
        out["acknowledged moves found"] += len(log.acknowledged)
        out[f"{got['state']['status']} ({got['state'].get('end') or 'on'})"] += 1
    http.close()
    return {"counts": dict(out), "problems": problems}


# -- the run ---------------------------------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)

    def at(q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))] * 1000

    return {"n": len(values), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": values[-1] * 1000}


def memory(backend: Backend, serve_pid: int) -> dict[str, Any]:
    workers = gunicorn_workers(serve_pid)
    return {
        "workers_rss_mb": [round(rss_bytes(p) / 2**20, 1) for p in workers],
        "redis_used_memory_mb": [round(b / 2**20, 2) for b in backend.used_memory()],
        "redis_rss_mb": [round(rss_bytes(p) / 2**20, 1) for p in backend.pids()],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    import shutil
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="soak-"))
    try:
        backend = Backend(work, args.cluster, args.replicas)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    env = {
        "REDIS_URL": backend.url,
        "REDIS_CLUSTER": "1" if backend.cluster else "0",
        "REDIS_DURABILITY": args.durability,
        "WEB_CONCURRENCY": str(args.workers),
        "REDIS_PREFIX": "soak:",
        "DATA_DIR": str(work / "data"),
        "EVENTS_LIFETIME_S": "20",
        "EVENTS_HEARTBEAT_S": "5",
        "LOG_FORMAT": "json",
    }
    try:
        proc, base = serve(env, log=work / "app.log")
    except BaseException:  # Redis is not left running; the app's log stays for a look
        backend.stop()
        print(f"soak: the app did not start; its log is {work / 'app.log'}", flush=True)
        raise
    port = int(base.rsplit(":", 1)[1])
    book, done_faults, stop_flag = Book(), list[Fault](), threading.Event()
    book.redis = (
        redis.RedisCluster.from_url(backend.url, socket_timeout=1, socket_connect_timeout=1, require_full_coverage=False)
        if backend.cluster
        else redis.Redis.from_url(backend.url, socket_timeout=1, socket_connect_timeout=1)
    )
    try:
        start_memory = memory(backend, proc.pid)
        began = book.began = time.monotonic()
        until = began + args.minutes * 60
        hard_stop = until + 240
        threads = [threading.Thread(target=player, args=(port, book, until, 100 + i)) for i in range(args.players)]
        threads += [threading.Thread(target=bot, args=(port, book, until, 200 + i, hard_stop)) for i in range(args.bots)]
        threads += [threading.Thread(target=listener, args=(port, book, until, 300 + i)) for i in range(args.listeners)]
        threads.append(threading.Thread(target=faults, args=(backend, proc.pid, began, args.minutes, done_faults, stop_flag)))
        for t in threads:
            t.daemon = True
            t.start()
        for t in threads:
            t.join(max(0.0, hard_stop + 60 - time.monotonic()))
        stop_flag.set()
        load_s = time.monotonic() - began
        end_memory = memory(backend, proc.pid)
        checked = check(port, book)
    finally:
        stop(proc)
        backend.stop()
    errors = log_excerpt(work / "app.log")
    if args.keep:
        print(f"soak: the app's log, Redis's logs and data are in {work}", flush=True)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return summarize(args, book, done_faults, load_s, start_memory, end_memory, checked, errors)


def log_excerpt(path: Path) -> dict[str, int]:
    """The app's log lines of level WARNING and above, counted by logger and message, match ids,
    ports and other numbers blotted out (the JSON lines; gunicorn's master writes plain ones)."""
    found: Counter[str] = Counter()
    with contextlib.suppress(OSError):
        for line in path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                entry = None
            if isinstance(entry, dict):
                level = str(entry.get("level", "")).upper()
                if level in ("WARNING", "ERROR", "CRITICAL"):
                    found[f"{level} {entry.get('logger')}: {_blot(str(entry.get('message')))[:100]}"] += 1
            elif re.search(r"\[(WARNING|ERROR|CRITICAL)\]|Traceback", line) and not re.match(r"\d{4}-\d\d-\d\d \d", line):
                found[_blot(line.split("] ", 3)[-1])[:100]] += 1  # gunicorn's; the sweeper's plain copies are left out
    return dict(found.most_common(15))


def _blot(message: str) -> str:
    return re.sub(r"\d+", "N", re.sub(r"\b[0-9a-f]{2}[A-Za-z0-9_-]{16}\b", "<match>", message))


def summarize(
    args: argparse.Namespace,
    book: Book,
    done_faults: list[Fault],
    load_s: float,
    start_memory: dict[str, Any],
    end_memory: dict[str, Any],
    checked: dict[str, Any],
    app_log: dict[str, int],
) -> dict[str, Any]:
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    latency: dict[str, list[float]] = defaultdict(list)
    steady: dict[str, list[float]] = defaultdict(list)  # outside every fault's window
    explained: dict[str, Counter[str]] = {f.name: Counter() for f in done_faults}
    last_error: dict[str, float] = {}  # a fault's last error, seconds after the fault began (its recovery)
    unexplained: list[str] = []
    for s in book.seen:
        label = str(s.status) + (f" {s.code}" if s.code else "")
        by_kind[s.kind][label] += 1
        if s.status in EXPECTED[s.kind]:
            latency[s.kind].append(s.end - s.start)
            if culprit(done_faults, s) is None:
                steady[s.kind].append(s.end - s.start)
            continue
        fault = culprit(done_faults, s)
        if fault is None:
            unexplained.append(f"{s.kind} {label} at {s.start - book.began:.1f} s")
        else:
            explained[fault.name][f"{s.kind} {label}"] += 1
            last_error[fault.name] = max(last_error.get(fault.name, 0.0), s.end - fault.start)
    return {
        "redis": f"three-master cluster, {args.replicas} replica(s) each"
        if args.replicas
        else "three-master cluster"
        if args.cluster
        else "one Redis",
        "durability": args.durability,
        "minutes": args.minutes,
        "load_s": round(load_s, 1),
        "threads": {"players": args.players, "bots": args.bots, "listeners": args.listeners, "workers": args.workers},
        "answers": {k: dict(v.most_common()) for k, v in sorted(by_kind.items())},
        "latency_ms": {k: {q: round(x, 1) for q, x in percentiles(v).items()} for k, v in sorted(latency.items()) if v},
        "latency_ms_outside_faults": {
            k: {q: round(x, 1) for q, x in percentiles(v).items()} for k, v in sorted(steady.items()) if v
        },
        "faults": [
            {
                "fault": f.name,
                "lasted_s": round(f.end - f.start, 1),
                "last_error_after_s": round(last_error[f.name], 1) if f.name in last_error else None,
                "errors seen": dict(explained[f.name]),
            }
            for f in done_faults
        ],
        "unexplained": unexplained,
        "streams": {"events": book.stream_events, "reconnects": book.stream_reconnects, "out of order": book.order_errors},
        "listeners": dict(book.followed),
        "flags": {
            "applied by the sweeper": len(book.flags_late),
            "credited an outage first": book.flags_credited,
            "late_ms": {q: round(x, 1) for q, x in percentiles([v / 1000 for v in book.flags_late]).items()}
            if book.flags_late
            else {},
        },
        "matches": {
            "created": len(book.matches),
            "played to the end": sum(m.finished for m in book.matches),
            "flag matches": sum(m.flagged for m in book.matches),
            "moves acknowledged": sum(len(m.acknowledged) for m in book.matches),
            "bots' notes": [f"{m.match_id}: {m.note}" for m in book.matches if m.note],
        },
        "check": checked,
        "memory_start": start_memory,
        "memory_end": end_memory,
        "app_log_warnings": app_log,
    }


def show(result: dict[str, Any]) -> None:
    t = result["threads"]
    print(
        f"\nsoak on {result['redis']}: {result['load_s']:.0f} s of load; {t['workers']} gunicorn workers; "
        f"{t['players']} stateless players, {t['bots']} bots, {t['listeners']} listeners"
    )
    print(f"{'kind':<15} {'answers':>8} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses")
    for kind, counts in result["answers"].items():
        lat = result["latency_ms"].get(kind, {})
        figures = " ".join(f"{lat.get(q, float('nan')):>8.1f}" for q in ("p50", "p90", "p99", "max"))
        print(f"{kind:<15} {sum(counts.values()):>8} {figures}  {counts}")
    print("the same outside the faults' windows (p50 / p99 / max ms):")
    for kind, lat in result["latency_ms_outside_faults"].items():
        print(f"  {kind:<15} {lat['n']:>8} {lat['p50']:>8.1f} {lat['p99']:>8.1f} {lat['max']:>8.1f}")
    for f in result["faults"]:
        last = f["last_error_after_s"]
        print(f"fault: {f['fault']} ({f['lasted_s']} s, last error at +{last} s): {f['errors seen'] or 'no errors'}")
    print(f"unexplained errors: {len(result['unexplained'])} {result['unexplained'][:10]}")
    print(f"streams: {result['streams']}; listeners: {result['listeners']}")
    print(f"flags: {result['flags']}")
    print(f"matches: {result['matches']}")
    print(f"check: {result['check']}")
    print(f"memory at start: {result['memory_start']}")
    print(f"memory at end:   {result['memory_end']}")
    print(f"app log, warnings and errors: {result['app_log_warnings']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--cluster", action="store_true", help="a three-master Redis Cluster instead of one Redis")
    parser.add_argument(
        "--replicas", type=int, default=0, help="a cluster with this many replicas per master (faults: failovers)"
    )
    parser.add_argument("--durability", choices=["none", "replica"], default="none", help="the app's REDIS_DURABILITY")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--listeners", type=int, default=8)
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the app's log, Redis's data and logs)")
    args = parser.parse_args(argv or [])
    result = run(args)
    show(result)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    if result["unexplained"] or result["check"]["problems"] or result["streams"]["out of order"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
