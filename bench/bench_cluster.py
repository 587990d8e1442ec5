"""Managed moves per second with 1, 2 and 4 app processes, on one Redis and on
a three-master Redis Cluster, in one run: ``python -m bench cluster``.

The app is what ``make run`` starts (``python -m service.run.serve``: gunicorn's
gevent workers, ``WEB_CONCURRENCY`` of them, and a sweeper), pointed at

* one ``redis-server`` on a loopback port, append-only (``appendfsync
  everysec``), and
* a three-master cluster on loopback (``service.run.embedded.start_cluster``,
  ``appendfsync everysec``, no replicas) with ``REDIS_CLUSTER=1``,

both the redis-server binary the embedded Redis uses, both over TCP.  The
load is wrk (``bench/wrk_umpire.lua``'s ``move`` mode: each connection
submits the next legal move of a fresh side-5 Catchup match, a seat token
and the ply in each request), ``BENCH_CONNECTIONS`` (16) connections on
``BENCH_THREADS`` (2) wrk threads for ``BENCH_SECONDS`` (5) per measurement,
on the same two cores as the app and Redis.  The six set-ups are measured
in turn, ``BENCH_ROUNDS`` (3) times over, and medians reported, so a busy
moment of the machine weighs on them alike.  Beside moves per second, the
server side's CPU time per move (gunicorn, sweeper and every Redis process,
from ``/proc``) is steadier on a shared machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.bench_http import new_matches, wrk
from bench.common import TcpRedis, free_port, serve, stop
from service.run import embedded

PROCESSES = (1, 2, 4)


def measure(
    redis_url: str, cluster: bool, processes: int, redis_pids: list[int], work: Path, load: dict[str, int]
) -> dict[str, Any]:
    env = {
        "REDIS_URL": redis_url,
        "REDIS_CLUSTER": "1" if cluster else "0",
        "WEB_CONCURRENCY": str(processes),
        "REDIS_PREFIX": f"bc{free_port()}:",
        "DATA_DIR": str(work / "data"),
    }
    proc, base = serve(env)
    try:
        wrk(base, "health", load["connections"], load["threads"], 1)  # every worker up and connected
        matches = work / "matches.txt"
        new_matches(base, matches, load["seconds"] * 60 + 2 * load["connections"])
        args = (load["connections"], load["threads"], load["seconds"], str(matches), str(load["threads"]))
        return wrk(base, "move", *args, server=[proc.pid, *redis_pids])
    finally:
        stop(proc)


def main() -> None:
    if shutil.which("wrk") is None:
        print("bench_cluster: wrk is not installed (apt-get install wrk); skipped")
        return
    load = {
        "connections": int(os.environ.get("BENCH_CONNECTIONS", "16")),
        "threads": int(os.environ.get("BENCH_THREADS", "2")),
        "seconds": int(os.environ.get("BENCH_SECONDS", "5")),
    }
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    single = TcpRedis(work / "single", free_port()).start()
    cluster = embedded.start_cluster(work / "cluster", appendfsync="everysec")
    backends: list[tuple[str, str, bool, list[int]]] = [
        ("one Redis", single.url, False, [single.process.pid] if single.process else []),
        ("cluster (3 masters)", cluster.url, True, [n.process.pid for n in cluster.nodes if n.process]),
    ]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {(b[0], n): [] for b in backends for n in PROCESSES}
    try:
        for _ in range(rounds):
            for name, url, is_cluster, pids in backends:
                for n in PROCESSES:
                    runs[(name, n)].append(measure(url, is_cluster, n, pids, work, load))
    finally:
        single.stop()
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"wrk -t{load['threads']} -c{load['connections']} -d{load['seconds']}s, move mode (fresh side-5 Catchup matches); "
        f"{rounds} rounds, medians; {os.cpu_count()} cpus shared by wrk, the app and Redis"
    )
    print(f"{'Redis':<20} {'processes':>9} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'server CPU ms/move':>19}")
    base_rps: dict[str, float] = {}
    for (name, n), found in runs.items():
        rps = statistics.median(r["rps"] for r in found)
        p50, p99 = (statistics.median(r[k] for r in found) for k in ("p50_ms", "p99_ms"))
        cpu = statistics.median(r["cpu_ms"] for r in found)
        errors = sum(r["socket_errors"] + r["non2xx"] for r in found)
        base_rps.setdefault(name, rps)
        print(f"{name:<20} {n:>9} {rps:>8.0f} {p50:>7.1f} {p99:>7.1f} {errors:>6} {cpu:>19.2f}  ({rps / base_rps[name]:.2f}x)")
    for n in PROCESSES:
        one, many = (statistics.median(r["rps"] for r in runs[(b[0], n)]) for b in backends)
        print(f"{n} process(es): cluster / one Redis = {many / one:.2f}")


if __name__ == "__main__":
    main()
