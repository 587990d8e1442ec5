"""What a ply of a managed match costs, before and after the match API for
programs (issues 11 and 12): ``python -m bench ply``.

Before, a harness needed three HTTP calls per ply and the server spent about
6.5 ms of CPU on them (issue 12's figure).  In one run, on one
``redis-server`` (loopback TCP, append-only), with one gunicorn worker each:

* ``before``: the old design (commit ``ebaaecd``, checked out in a temporary
  git worktree) played by the harness a program had to write then, per ply:
  ``GET /v1/matches/{id}`` (whose turn, the state), ``POST
  /v1/games/catchup/legal-moves`` (the legal cells) and the move;
* ``after``, the same three calls, so the server's own change shows alone;
* ``after``, two calls: a seat's program waits for its turn with the legal
  moves (``GET /v1/matches/{id}?wait_turn=S&legal_moves=true``), then moves;
* ``after``, one call: a harness holding both seats (as ``umpire
  tournament`` does) moves with ``?legal_moves=true`` and reads the next
  seat's legal moves from the answer.

Every move is a random legal cell (one stone: always legal in Catchup,
R-C1) of a side-4 Catchup match played to its end, with an
``Idempotency-Key``, over one keep-alive connection.  Printed per ply: HTTP
calls, the app's CPU (gunicorn and the sweeper, from ``/proc``), Redis's CPU,
and wall time; and the ratio against ``before``.  Knob: ``BENCH_GAMES`` (40
a pattern).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import ROOT, TcpRedis, cpu_s, free_port, old_tree, serve, stop

SIZE = 4
CLOCK = {"turn_s": 600, "bank_s": 0}
Json = dict[str, Any]


class Client:
    """One keep-alive connection; counts its calls."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.calls = 0

    def __call__(self, method: str, path: str, body: Any = None, token: str | None = None, key: bool = False) -> Json:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        self.calls += 1
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        resp = self.conn.getresponse()
        data = json.loads(resp.read())
        if resp.status >= 300:
            raise RuntimeError(f"{method} {path}: {resp.status} {data}")
        answer: Json = data
        return answer

    def close(self) -> None:
        self.conn.close()


def three_calls(c: Client, rng: random.Random) -> int:
    """The old harness: read the match, ask for the legal moves, move."""
    m = c("POST", "/v1/matches", {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK})
    plies = 0
    while True:
        state = c("GET", f"/v1/matches/{m['match_id']}")["state"]
        if state["status"] != "ongoing":
            return plies
        cells = c("POST", "/v1/games/catchup/legal-moves", {"state": state})["moves"]
        move = {"move": rng.choice(cells), "ply": state["ply"]}
        c("POST", f"/v1/matches/{m['match_id']}/moves", move, m["seats"][str(state["to_move"])], key=True)
        plies += 1


def two_calls(c: Client, rng: random.Random) -> int:
    """A seat's program: wait for my turn (with the legal moves), then move."""
    m = c("POST", "/v1/matches", {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK})
    plies, seat = 0, 0
    while True:
        token = m["seats"][str(seat)]
        got = c("GET", f"/v1/matches/{m['match_id']}?wait_turn={seat}&timeout_s=30&legal_moves=true", token=token)
        state = got["state"]
        if state["status"] != "ongoing":
            return plies
        move = {"move": rng.choice(got["legal_moves"]["moves"]), "ply": state["ply"]}
        c("POST", f"/v1/matches/{m['match_id']}/moves", move, token, key=True)
        plies, seat = plies + 1, 1 - seat


def one_call(c: Client, rng: random.Random) -> int:
    """A harness with both seats: each move's answer carries the next legal moves."""
    m = c("POST", "/v1/matches?legal_moves=true", {"game": "catchup", "options": {"size": SIZE}, "clock": CLOCK})
    state, legal, plies = m["state"], m["legal_moves"]["moves"], 0
    while state["status"] == "ongoing":
        move = {"move": rng.choice(legal), "ply": state["ply"]}
        path = f"/v1/matches/{m['match_id']}/moves?legal_moves=true"
        answer = c("POST", path, move, m["seats"][str(state["to_move"])], key=True)
        state, plies = answer["state"], plies + 1
        legal = answer["legal_moves"]["moves"] if answer["legal_moves"] else []
    return plies


def measure(base: str, serve_pid: int, redis_pid: int, pattern: Callable[[Client, random.Random], int], games: int) -> Json:
    c = Client(base)
    rng = random.Random(7)
    pattern(c, rng)  # warm up
    calls0, app0, redis0 = c.calls, cpu_s([serve_pid]), cpu_s([redis_pid])
    start = time.perf_counter()
    plies = sum(pattern(c, rng) for _ in range(games))
    wall = time.perf_counter() - start
    app1, redis1 = cpu_s([serve_pid]), cpu_s([redis_pid])
    c.close()
    assert app0 is not None and app1 is not None and redis0 is not None and redis1 is not None
    return {
        "plies": plies,
        "calls": (c.calls - calls0) / plies,
        "app_ms": 1000 * (app1 - app0) / plies,
        "redis_ms": 1000 * (redis1 - redis0) / plies,
        "wall_ms": 1000 * wall / plies,
    }


def main() -> None:
    games = int(os.environ.get("BENCH_GAMES", "40"))
    work = Path(tempfile.mkdtemp(prefix="bench-ply-"))
    redis = TcpRedis(work / "redis", free_port()).start()
    assert redis.process is not None
    rows: list[tuple[str, Json]] = []
    try:
        with old_tree() as tree:
            if tree is None:
                print("the old design (ebaaecd) could not be checked out: no before figures")
            else:
                env = {"REDIS_URL": redis.url, "REDIS_PREFIX": "plyold:", "WEB_CONCURRENCY": "1", "PYTHONPATH": str(tree)}
                proc, base = serve(env, cwd=tree)
                try:
                    rows.append(
                        (
                            "before: 3 calls (read, legal-moves, move)",
                            measure(base, proc.pid, redis.process.pid, three_calls, games),
                        )
                    )
                finally:
                    stop(proc)
        env = {"REDIS_URL": redis.url, "REDIS_PREFIX": "plynew:", "WEB_CONCURRENCY": "1"}
        proc, base = serve(env, cwd=ROOT)
        try:
            for label, pattern in (
                ("after: the same 3 calls", three_calls),
                ("after: 2 calls (wait_turn, move)", two_calls),
                ("after: 1 call (move, legal_moves)", one_call),
            ):
                rows.append((label, measure(base, proc.pid, redis.process.pid, pattern, games)))
        finally:
            stop(proc)
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"catchup side {SIZE}, random single-stone moves, {games} games a pattern, one gunicorn worker; {os.cpu_count()} cpus")
    print(f"{'pattern':<44} {'calls':>6} {'app ms':>7} {'redis ms':>9} {'wall ms':>8} {'app+redis vs before':>20}")
    base_cost = rows[0][1]["app_ms"] + rows[0][1]["redis_ms"] if rows and rows[0][0].startswith("before") else None
    for label, r in rows:
        cost = r["app_ms"] + r["redis_ms"]
        ratio = f"{cost / base_cost:.2f}x" if base_cost else "-"
        print(f"{label:<44} {r['calls']:>6.2f} {r['app_ms']:>7.2f} {r['redis_ms']:>9.2f} {r['wall_ms']:>8.2f} {ratio:>20}")
    print("(per ply; app: gunicorn master, worker and sweeper; the client's own time is in wall ms only)")


if __name__ == "__main__":
    main()
