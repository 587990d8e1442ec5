"""What the service costs a tournament: ``python -m bench tournament``.

In one run, ``random`` against ``random`` in Catchup (side 4 by default)
through ``umpire tournament``'s own game loop (umpire/tournament.py), twice:

* through the full path: HTTP to ``python -m service.serve`` (gunicorn, the
  embedded Redis, a sweeper; started by umpire/server.py), every move a
  managed move with its ply and Idempotency-Key;
* on the engine alone (umpire/local.py): the same loop, the same bots, the
  same results file, no HTTP and no Redis.

Printed: games per second of each (one game at a time, and over HTTP also
``BENCH_CONCURRENCY`` at a time), the ratio (the service's overhead), HTTP
calls per ply, and milliseconds per ply.

Knobs (environment): ``BENCH_SIZE`` (4), ``BENCH_HTTP_GAMES`` (60),
``BENCH_ENGINE_GAMES`` (600), ``BENCH_CONCURRENCY`` (4).  Short on purpose:
the machine is shared.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from umpire.client import MatchClient
from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.play import MatchService
from umpire.server import EmbeddedServer
from umpire.tournament import run


def _play(matches: MatchService, games: int, size: int, out: Path, concurrency: int) -> dict[str, Any]:
    settings = Settings("catchup", {"size": size}, ["random", "random"], games, seed=1)
    calls0 = matches.calls
    start = time.perf_counter()
    outcome = run(settings, matches, out, concurrency=concurrency, progress=False)
    elapsed = time.perf_counter() - start
    assert not outcome.failures, outcome.failures
    plies = sum(line["plies"] for line in outcome.lines)
    return {
        "games": len(outcome.lines),
        "seconds": elapsed,
        "gps": len(outcome.lines) / elapsed,
        "plies": plies,
        "calls": matches.calls - calls0,
        "ms_per_ply": 1000 * elapsed / plies,
    }


def main() -> None:
    size = int(os.environ.get("BENCH_SIZE", "4"))
    http_games = int(os.environ.get("BENCH_HTTP_GAMES", "60"))
    engine_games = int(os.environ.get("BENCH_ENGINE_GAMES", "600"))
    concurrency = int(os.environ.get("BENCH_CONCURRENCY", "4"))
    work = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    try:
        engine = _play(LocalMatches(), engine_games, size, work / "engine.jsonl", 1)
        with EmbeddedServer(workers=2, threads=16) as server:
            client = MatchClient(server.url)
            _play(client, 4, size, work / "warm.jsonl", 1)  # warm every worker up
            http = _play(client, http_games, size, work / "http.jsonl", 1)
            wide = _play(client, http_games, size, work / "wide.jsonl", concurrency)
            client.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    plies = http["plies"] / http["games"]
    print(f"catchup side {size}, random vs random, {plies:.1f} plies a game; {os.cpu_count()} cpus")
    print(f"{'path':<34} {'games':>6} {'games/s':>9} {'ms/ply':>8} {'calls/ply':>10}")
    for label, r in (
        ("engine alone (umpire/local.py)", engine),
        ("HTTP + Redis, 1 game at a time", http),
        (f"HTTP + Redis, {concurrency} games at a time", wide),
    ):
        calls = r["calls"] / r["plies"]
        print(f"{label:<34} {r['games']:>6} {r['gps']:>9.1f} {r['ms_per_ply']:>8.3f} {calls:>10.3f}")
    print(f"service overhead: the engine alone is {engine['gps'] / http['gps']:.1f}x the HTTP path one game at a time")
    print(f"HTTP calls per ply: {http['calls'] / http['plies']:.3f} (a move each, plus create and record per game)")


if __name__ == "__main__":
    main()
