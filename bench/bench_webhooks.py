"""What webhooks cost a move, and how soon a post follows it (issue 22): ``python -m bench webhooks``.

One ``python -m service.run.serve`` (what ``make run`` starts: one gunicorn
worker, the embedded Redis, its deliverer since ``WEBHOOK_ALLOW`` names the
receiver) and a receiver on loopback that answers 204 and notes when each
post arrived.  In the same run, alternately: side-4 Catchup matches without
webhooks (the baseline) and with a ``json`` webhook (a PNG rendered and sent
per change), each played to its end by one keep-alive client with random
single stones (always legal, R-C1).  Printed: each move's answer time
(median, 95th percentile) with and without webhooks and their ratio, and how
how fast the posts of those back-to-back moves drain (each renders a PNG), and,
in matches with a move every second, how long after a move's answer its
post arrived (median, 95th percentile, most).  Knob: ``BENCH_GAMES`` (8 of each).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.common import free_port, serve, stop

SIZE = 4
CLOCK = {"turn_s": 600, "bank_s": 0}
PAUSE_S = 1.0


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        super().__init__(("127.0.0.1", free_port()), Handler)


class Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.arrived[self.headers["X-Umpire-Delivery"]] = time.perf_counter()
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def call(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
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
    made = call(conn, "POST", "/v1/matches?legal_moves=true", body)
    match_id, seats = made["match_id"], made["seats"]
    state, legal = made["state"], made["legal_moves"]
    out = []
    while state["status"] != "finished":
        cell = rng.choice(sorted({m.split()[0] for m in legal["moves"]}))
        start = time.perf_counter()
        answer = call(
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


def main() -> None:
    games = int(os.environ.get("BENCH_GAMES", "8"))
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{receiver.server_port}/hook"
    with tempfile.TemporaryDirectory() as folder:
        env = {
            "DATA_DIR": str(Path(folder) / "data"),
            "WEB_CONCURRENCY": "1",
            "SWEEPER": "0",
            "WEBHOOK_ALLOW": f"127.0.0.1:{receiver.server_port}",
            "CREATE_RATE_LIMIT": "off",
        }
        proc, base = serve(env)
        try:
            host, port = base.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            rng = random.Random(22)
            plain: list[float] = []
            hooked: list[float] = []
            answered: dict[str, float] = {}
            play(conn, rng, None)  # warm up
            for _ in range(games):
                _, moves = play(conn, rng, None)
                plain += [end - start for _, start, end in moves]
                match_id, moves = play(conn, rng, hook)
                hooked += [end - start for _, start, end in moves]
                answered.update({f"{match_id}:{k}": end for k, _, end in moves})
            first = min(answered.values())
            wait_all(receiver, answered)
            backlog_s = max(receiver.arrived.values()) - first
            backlog = [receiver.arrived[k] - t for k, t in answered.items() if k in receiver.arrived]
            missing = len(answered) - len(backlog)
            conn.close()  # idle past gunicorn's keep-alive while the posts drained
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            paced: dict[str, float] = {}
            for _ in range(2):  # a brisk game: a move every PAUSE_S, so no post waits for another
                match_id, moves = play(conn, rng, hook, PAUSE_S)
                paced.update({f"{match_id}:{k}": end for k, _, end in moves})
            wait_all(receiver, paced)
            late = [receiver.arrived[k] - t for k, t in paced.items() if k in receiver.arrived]
            missing += len(paced) - len(late)
        finally:
            stop(proc)
            receiver.shutdown()
    ms = 1000
    print(f"moves: {len(plain)} without webhooks, {len(hooked)} with a json webhook ({games} matches each, side {SIZE})")
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


def wait_all(receiver: Receiver, answered: dict[str, float], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while set(answered) - set(receiver.arrived) and time.monotonic() < deadline:
        time.sleep(0.02)


if __name__ == "__main__":
    main()
