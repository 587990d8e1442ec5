"""HTTP load: requests per second and p50/p99 latency, in one run, of

* ``GET /v1/health``                      (a Redis PING)
* ``POST /v1/games/catchup/play``         (a stateless verdict: load, play, dump)
* ``POST /v1/matches/{id}/moves``         (a managed move: read, engine, atomic Lua commit)

against the real thing: ``python -m service.run.serve`` (gunicorn, its gevent workers unless ``WORKER_CLASS``)
on a real Redis - ``REDIS_URL`` when set, else the embedded ``redis-server``
in a temporary folder - with a sweeper running, driven by ``wrk`` (apt-get
install wrk) and ``bench/wrk_umpire.lua``.

Aims (issue): a managed move at no less than half the throughput of
``health``; p99 under 20 ms at 16 connections on two cores.

Beside requests per second, each load reports the CPU time the server side
spent per request (gunicorn's processes, the sweeper, the embedded Redis; from
``/proc``, so Linux only): on a machine other work shares, a steadier figure
than throughput, which also moves with how wrk's connections happened to fall
on the workers.

Knobs (environment): ``BENCH_CONNECTIONS`` (16), ``BENCH_THREADS`` (2, wrk's),
``BENCH_SECONDS`` (5) and ``BENCH_ROUNDS`` (3; medians are reported),
``WEB_CONCURRENCY`` (2) and ``THREADS`` (32) for gunicorn.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import HERE, ROOT, call, cpu_s, free_port, wait_up
from service.run import embedded

SCRIPT = HERE / "wrk_umpire.lua"
SIZE = 5  # Catchup at its default side: 61 cells, so a match gives 60 one-stone moves


def wrk(base: str, mode: str, connections: int, threads: int, seconds: int, *args: str, server: list[int] = ()) -> dict[str, Any]:
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", str(SCRIPT), base, "--", mode, *args]
    before = cpu_s(list(server))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = cpu_s(list(server))
    line = next(ln for ln in reversed(out.splitlines()) if ln.startswith("{"))
    figures: dict[str, Any] = json.loads(line)
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    figures["cpu_ms"] = float("nan") if before is None or after is None else (after - before) * 1000 / figures["requests"]
    return figures


def new_matches(base: str, path: Path, count: int, headers: dict[str, str] | None = None) -> None:
    """``count`` fresh Catchup matches for one wrk run of moves, and the cells to play in them (``headers``: the
    umpire token's, say, which creates matches at any pace)."""
    empty = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": SIZE}})["state"]
    cells = call(base, "POST", "/v1/games/catchup/legal-moves", {"state": empty})["moves"]
    lines = [" ".join(cells)]
    body = {"game": "catchup", "options": {"size": SIZE}, "clock": {"turn_s": 600, "bank_s": 0}}
    for _ in range(count):
        m = call(base, "POST", "/v1/matches", body, headers)
        lines.append(f"{m['match_id']} {m['seats']['0']} {m['seats']['1']}")
    path.write_text("\n".join(lines) + "\n")


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    if shutil.which("wrk") is None:
        print("bench_http: wrk is not installed (apt-get install wrk); skipped")
        return
    connections = int(os.environ.get("BENCH_CONNECTIONS", "16"))
    threads = int(os.environ.get("BENCH_THREADS", "2"))
    seconds = int(os.environ.get("BENCH_SECONDS", "5"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    work = Path(tempfile.mkdtemp(prefix="bench-http-"))
    server = None
    env = dict(os.environ)
    if not env.get("REDIS_URL"):
        server = embedded.start(work / "redis")
        env["REDIS_URL"] = server.url
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env.update(HOST="127.0.0.1", PORT=str(port), ACCESS_LOG="", REDIS_PREFIX=f"bench:{port}:")
    proc = subprocess.Popen([sys.executable, "-m", "service.run.serve"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    runs: dict[str, list[dict[str, Any]]] = {"health": [], "play": [], "move": []}
    try:
        wait_up(base, proc)
        # The stateless play: the same question each time, a legal move in mid-game.
        state = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        for move in ("E5", "D4 D5", "F5 F6 E6"):
            state = call(base, "POST", "/v1/games/catchup/play", {"state": state, "move": move})["state"]
        (work / "play.json").write_text(json.dumps({"state": state, "move": "A1 A2"}))
        wrk(base, "health", connections, threads, 2)  # warm up every worker
        # The server side: service.run.serve's processes, and the embedded Redis when it is ours.
        pids = [proc.pid] + ([server.process.pid] if server is not None and server.process is not None else [])
        # Rounds of the three, one after the other, so that a busy moment of the machine
        # weighs on all three alike; the medians are reported.
        for r in range(rounds):
            matches = work / f"matches-{r}.txt"
            # Enough fresh matches (60 moves each) that no wrk thread runs short.
            new_matches(base, matches, int(seconds * 5000 / (3 * SIZE * (SIZE - 1))) + 2 * connections)
            runs["health"].append(wrk(base, "health", connections, threads, seconds, server=pids))
            runs["play"].append(wrk(base, "play", connections, threads, seconds, str(work / "play.json"), server=pids))
            runs["move"].append(wrk(base, "move", connections, threads, seconds, str(matches), str(threads), server=pids))
    finally:
        proc.terminate()
        proc.wait(30)
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    results = {name: _median(r) for name, r in runs.items()}
    workers, kind = env.get("WEB_CONCURRENCY") or "2", env.get("WORKER_CLASS") or "gevent"
    load = f"wrk -t{threads} -c{connections}, {rounds} rounds of {seconds} s (medians)"
    print(f"gunicorn {kind}, {workers} workers; {load}; {os.cpu_count()} cpus")
    print(
        f"{'endpoint':<10} {'req/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7} {'cpu ms/req':>11}"
    )
    for name, res in results.items():
        errors = sum(x["socket_errors"] + x["non2xx"] for x in runs[name])
        times = " ".join(f"{res[k]:>8.2f}" for k in ("p50_ms", "p90_ms", "p99_ms", "max_ms"))
        print(f"{name:<10} {res['rps']:>9.0f} {times} {errors:>7} {res['cpu_ms']:>11.3f}")
    ratio = results["move"]["rps"] / results["health"]["rps"]
    print(f"managed move / health throughput: {ratio:.2f} (aim >= 0.5); move p99 {results['move']['p99_ms']:.1f} ms (aim < 20)")
    cpu_ratio = results["health"]["cpu_ms"] / results["move"]["cpu_ms"]
    print(f"server CPU per request, health / managed move: {cpu_ratio:.2f} (the throughput ratio a CPU-bound server tends to)")


if __name__ == "__main__":
    main()
