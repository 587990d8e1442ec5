"""What a sweeper costs when no clock runs (issue 20: ``make run``'s sweeper took 4.5-5.5% of a core doing
nothing, counted in the app's CPU in ``bench overhead``): ``python -m bench sweeper_idle``.

``flask --app service sweep`` (what ``make run`` starts beside gunicorn, ``SWEEP_INTERVAL_S`` 0.2) on an
embedded Redis with no match at all, ``BENCH_ROUNDS`` (3) rounds of ``BENCH_SECONDS`` (20) each after 3 s
of settling; printed: the sweeper's CPU and Redis's, in % of a core, each round's and the medians.  With
``BENCH_BEFORE`` naming a checkout of older code (a git worktree), its sweeper too, in turn within each
round, on the same Redis (a key prefix each), so that before and after are measured in one run."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, cpu_s, load_average
from service.run import embedded


def idle_cpu(checkout: Path, redis_url: str, redis_pid: int, prefix: str, seconds: float) -> tuple[float, float]:
    """The % of a core a sweeper of ``checkout`` and the Redis took over ``seconds`` with nothing to sweep."""
    env = {**os.environ, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix, "PYTHONPATH": str(checkout)}
    cmd = [sys.executable, "-m", "flask", "--app", "service", "sweep"]
    proc = subprocess.Popen(cmd, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        if proc.poll() is not None:
            raise SystemExit(f"bench_sweeper_idle: the sweeper of {checkout} stopped (exit {proc.returncode})")
        a, ra, start = cpu_s([proc.pid]), cpu_s([redis_pid]), time.monotonic()
        time.sleep(seconds)
        b, rb, took = cpu_s([proc.pid]), cpu_s([redis_pid]), time.monotonic() - start
    finally:
        proc.terminate()
        proc.wait(30)
    if None in (a, b, ra, rb):
        raise SystemExit("bench_sweeper_idle: needs /proc")
    return 100 * (b - a) / took, 100 * (rb - ra) / took  # type: ignore[operator]


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "20"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    checkouts = {"this": ROOT}
    if os.environ.get("BENCH_BEFORE"):
        checkouts["before"] = Path(os.environ["BENCH_BEFORE"]).resolve()
    work = Path(tempfile.mkdtemp(prefix="bench-sweeper-idle-"))
    redis = embedded.start(work / "redis")
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
    print(f"load average at the start {load_average()}; {rounds} rounds of {seconds:g} s", flush=True)
    try:
        assert redis.process is not None
        for r in range(rounds):
            for name, checkout in checkouts.items():
                sweeper, server = idle_cpu(checkout, redis.url, redis.process.pid, f"idle-{name}:", seconds)
                figures[name].append((sweeper, server))
                print(f"round {r + 1} {name:<7} sweeper {sweeper:5.2f}% of a core, Redis {server:5.2f}%", flush=True)
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    for name, rows in figures.items():
        sweeper = statistics.median(x for x, _ in rows)
        server = statistics.median(y for _, y in rows)
        print(f"{name}: medians sweeper {sweeper:.2f}% of a core, Redis {server:.2f}% ({checkouts[name]})")
    print(f"load average at the end {load_average()}")


if __name__ == "__main__":
    main()
