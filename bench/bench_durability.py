"""What ``REDIS_DURABILITY=replica`` costs a commit: ``python -m bench durability``.

A master and its replica (``redis-server`` on loopback, append-only), 40 Plur matches, and the
store's commit (commit.lua; with ``replica``, ``WAIT 1`` in the same pipeline) timed 1,500 times
at each level, each level twice in turn.  On one host the replica is a loopback hop away: across
machines add the network's round trip.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import redis

from bench.common import free_port
from service import create_app
from service.matches.db import close, get_store
from service.run import embedded


def start(folder: Path, *extra: str) -> tuple[int, subprocess.Popen[bytes]]:
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", "", "--appendonly", "yes"]
    proc = embedded.launch(*args, *extra)
    client = redis.Redis(port=port, socket_timeout=1)
    for _ in range(200):
        try:
            if client.ping():
                return port, proc
        except (redis.RedisError, OSError):
            time.sleep(0.05)
    raise RuntimeError(f"redis-server on {port} did not start")


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="durability-"))
    master, mproc = start(work / "m")
    replica, sproc = start(work / "s", "--replicaof", "127.0.0.1", str(master))
    try:
        follower = redis.Redis(port=replica, decode_responses=True)
        for _ in range(200):
            if follower.info("replication").get("master_link_status") == "up":
                break
            time.sleep(0.05)
        results: dict[str, list[tuple[float, float]]] = {}
        for durability in ("none", "replica", "none", "replica"):
            app = create_app({"TESTING": True, "REDIS_URL": f"redis://127.0.0.1:{master}", "REDIS_PREFIX": f"b{durability}:",
                              "REDIS_DURABILITY": durability})  # fmt: skip
            client, store = app.test_client(), get_store(app)
            made = [client.post("/v1/matches", json={"game": "plur", "options": {"size": 6}}).get_json() for _ in range(40)]
            ids = [str(m["match_id"]) for m in made]
            took = []
            for i in range(1500):
                match_id = ids[i % len(ids)]
                snap = store.read(match_id)
                start_at = time.perf_counter()
                store.commit(match_id, snap.rev, snap.live, None, [])
                took.append((time.perf_counter() - start_at) * 1000)
            took.sort()
            results.setdefault(durability, []).append((took[len(took) // 2], took[int(len(took) * 0.99)]))
            close(app)
        for durability, runs in results.items():
            said = ", ".join(f"p50 {p50:.3f} ms, p99 {p99:.3f} ms" for p50, p99 in runs)
            print(f"commit with REDIS_DURABILITY={durability:<8} {said}")
    finally:
        for proc in (mproc, sproc):
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
