"""What the service costs a tournament: ``python -m bench tournament``.

In one run, ``random`` against ``random`` in Catchup (side 4 by default)
through ``umpire tournament``'s own game loop (umpire/tournament.py):

* through the full path: HTTP to ``python -m service.run.serve`` (gunicorn, the
  embedded Redis, a sweeper; started by umpire/server.py), every move a
  managed move with its ply and Idempotency-Key;
* on the engine alone (umpire/local.py): the same loop, the same bots, the
  same results file, no HTTP and no Redis.

Over HTTP with 1, 2 and 4 gunicorn workers, each with ``--concurrency`` 1,
4 and 16.  Printed: games per second and milliseconds per ply of each, the
ratio engine alone / HTTP (the service's overhead), HTTP calls per ply, the
server's CPU per ply (gunicorn, sweeper and the embedded Redis, from
``/proc``), and the harness's own CPU per ply and its share of the games'
time (issue 12's aim: under 10%).

Knobs (environment): ``BENCH_SIZE`` (4), ``BENCH_HTTP_GAMES`` (60 per
measurement, at least 4 per concurrent game), ``BENCH_ENGINE_GAMES`` (600).
Short on purpose: the machine is shared.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import cpu_s
from umpire.client import MatchClient
from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.play import MatchService
from umpire.server import EmbeddedServer
from umpire.tournament import run

WORKERS = (1, 2, 4)
CONCURRENCY = (1, 4, 16)


def _play(
    matches: MatchService, games: int, size: int, out: Path, concurrency: int, server_pid: int | None = None
) -> dict[str, Any]:
    settings = Settings("catchup", {"size": size}, ["random", "random"], games, seed=1)
    calls0 = matches.calls
    cpu0 = cpu_s([server_pid]) if server_pid else None
    own0 = time.process_time()
    start = time.perf_counter()
    outcome = run(settings, matches, out, concurrency=concurrency, progress=False)
    elapsed = time.perf_counter() - start
    own = time.process_time() - own0
    cpu1 = cpu_s([server_pid]) if server_pid else None
    assert not outcome.failures, outcome.failures
    plies = sum(line["plies"] for line in outcome.lines)
    return {
        "games": len(outcome.lines),
        "seconds": elapsed,
        "gps": len(outcome.lines) / elapsed,
        "plies": plies,
        "calls": matches.calls - calls0,
        "ms_per_ply": 1000 * elapsed / plies,
        "harness_ms": 1000 * own / plies,  # this process: the harness, its HTTP client and the (random) bots
        "bots_ms": 1000 * sum(sum(line["think_s"]) for line in outcome.lines) / plies,  # the bots' choosing (wall)
        "server_ms": None if cpu0 is None or cpu1 is None else 1000 * (cpu1 - cpu0) / plies,
    }


def main() -> None:
    size = int(os.environ.get("BENCH_SIZE", "4"))
    http_games = int(os.environ.get("BENCH_HTTP_GAMES", "60"))
    engine_games = int(os.environ.get("BENCH_ENGINE_GAMES", "600"))
    work = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    rows: list[tuple[int, int, dict[str, Any]]] = []
    try:
        engine = _play(LocalMatches(), engine_games, size, work / "engine.jsonl", 1)
        for workers in WORKERS:
            with EmbeddedServer(workers=workers) as server:
                assert server.process is not None
                client = MatchClient(server.url)
                _play(client, 4 * workers, size, work / f"warm{workers}.jsonl", workers)  # warm every worker up
                for concurrency in CONCURRENCY:
                    games = max(http_games, 4 * concurrency)
                    out = work / f"http-{workers}-{concurrency}.jsonl"
                    rows.append((workers, concurrency, _play(client, games, size, out, concurrency, server.process.pid)))
                client.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    one = next(r for w, c, r in rows if w == 2 and c == 1)
    print(f"catchup side {size}, random vs random, {one['plies'] / one['games']:.1f} plies a game; {os.cpu_count()} cpus")
    print(
        f"engine alone (umpire/local.py): {engine['games']} games, {engine['gps']:.1f} games/s, "
        f"{engine['ms_per_ply']:.3f} ms a ply"
    )
    print(
        f"{'workers':>7} {'concurrency':>11} {'games':>6} {'games/s':>8} {'ms/ply':>7} {'calls/ply':>9} "
        f"{'server CPU ms/ply':>17} {'client CPU ms/ply':>17} {'bots ms/ply':>11} {'harness share':>13}"
    )
    for workers, concurrency, r in rows:
        share = (r["harness_ms"] - r["bots_ms"]) / r["ms_per_ply"]  # of the time the games took
        print(
            f"{workers:>7} {concurrency:>11} {r['games']:>6} {r['gps']:>8.1f} {r['ms_per_ply']:>7.3f} "
            f"{r['calls'] / r['plies']:>9.3f} {r['server_ms']:>17.2f} {r['harness_ms']:>17.2f} {r['bots_ms']:>11.2f} "
            f"{100 * share:>12.1f}%"
        )
    print(f"service overhead: the engine alone is {engine['gps'] / one['gps']:.1f}x the HTTP path (2 workers, 1 game at a time)")
    print("client CPU: the harness process (its loop, HTTP client, results file, and the bots choosing); harness share:")
    print("that CPU less the bots' time, over the wall time of the games; the rest is the server, Redis, and waiting")


if __name__ == "__main__":
    main()
