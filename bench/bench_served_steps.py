"""Where a served ``play``'s CPU goes, step by step and piece by piece (issue 20, "Cost per request"):
``python -m bench served_steps``.

``bench overhead`` compares whole requests through gunicorn and wrk sharing both cores, whose figures move by a
tenth from round to round; ``bench play_parts`` and ``bench request_cpu`` time the parts in one process, where
each part runs again and again with its code and data in the processor's caches, which a served request, after
gunicorn, gevent and other requests have run, does not find (measured below: several times cheaper).  Here each
server runs one gevent worker pinned to the second core (``taskset``) and wrk one thread of 8 connections pinned
to the first, so that the server's CPU a request (user and system, from /proc) is its own; the servers are the
bare route (``GET`` and ``POST`` of ``play``'s body) and ``bench/cutview.py``'s app with ``play`` cut after each of
its steps, and with each piece of its plumbing taken out, all taken in turn within each of ``BENCH_ROUNDS`` (5)
rounds of ``BENCH_SECONDS`` (4).  Printed: each server's median CPU a request, what each step adds to the one
before, and what each piece of plumbing costs (the whole app beside it without that piece); then, in one
process, each of ``play``'s engine steps warm (run again at once) and cold (after 8 MB of other memory was
touched), the difference that makes a served step cost more than ``bench play_parts`` says."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.bench_http import SCRIPT
from bench.common import ROOT, call, cpu_s, free_port, load_average, stop, wait_up
from service.run.serve import gunicorn_command

STEPS = (
    ("body", "the body read, nothing parsed"),
    ("parse", "json_body: strict parse, limits, schema"),
    ("load", "signature read, the game's load"),
    ("rules", "the move played"),
    ("answer", "dumped, signed, the verdict made"),
    ("play", "the announcements: the whole play"),
)
PIECES = (("guard", "the body guard"), ("log", "the request log, all of it"), ("line", "its line only"),
          ("metrics", "its metrics only"), ("all", "all the plumbing"))  # fmt: skip


def pinned(cores: int) -> tuple[list[str], list[str]]:
    """taskset's prefixes for the server and for wrk: apart when there are two cores or more."""
    if cores < 2 or shutil.which("taskset") is None:
        return [], []
    return ["taskset", "-c", "1"], ["taskset", "-c", "0"]


def start(app: str, env: dict[str, str], path: str, prefix: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    full = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "ACCESS_LOG": "", "WORKER_CLASS": "gevent",
            "WEB_CONCURRENCY": "1", "LOG_FORMAT": "json", **env}  # fmt: skip
    proc = subprocess.Popen([*prefix, *gunicorn_command(full)[:-1], app], cwd=ROOT, env=full,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    wait_up(base, proc, path=path)
    return proc, base


def wrk(base: str, args: list[str], seconds: int, pid: int, prefix: list[str]) -> dict[str, float]:
    cmd = [*prefix, "wrk", "-t1", "-c8", f"-d{seconds}s", "-s", str(SCRIPT), base, "--", *args]
    before = cpu_s([pid])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = cpu_s([pid])
    f = json.loads(next(line for line in reversed(out.splitlines()) if line.startswith("{")))
    if f["non2xx"] or f["socket_errors"]:
        raise SystemExit(f"bench_served_steps: {base} answered {f['non2xx']} non-2xx, {f['socket_errors']} socket errors")
    cpu = float("nan") if before is None or after is None else (after - before) * 1e6 / f["requests"]
    return {"rps": f["requests"] / (f["duration_us"] / 1e6), "cpu_us": cpu}


def warm_and_cold() -> None:
    """``play``'s engine steps in this process, warm and cold (medians of 300 each)."""
    import views
    from engine.registry import get_game

    g = get_game("catchup")
    state = g.new({"size": 5})
    for move in ("E5", "D4 D5", "F5 F6 E6"):
        state = g.play(state, move).state
    sent = g.dump(state)
    loaded = g.load(sent)
    verdict = g.play(loaded, "A1 A2")
    after = g.dump(verdict.state)
    other = bytearray(8 * 1024 * 1024)

    def touch_other_memory() -> None:
        for i in range(0, len(other), 64):
            other[i] ^= 1

    steps = {
        "load": lambda: g.load(sent),
        "rules": lambda: g.play(loaded, "A1 A2"),
        "dump": lambda: g.dump(verdict.state),
        "announcements": lambda: views.announcements(sent, verdict.events, after),
    }
    print("\nin one process, µs (medians of 300): warm (again at once) and cold (after 8 MB of other memory was touched)")
    for name, step in steps.items():
        warm, cold = [], []
        for _ in range(300):
            t = time.perf_counter_ns()
            step()
            warm.append(time.perf_counter_ns() - t)
        for _ in range(300):
            touch_other_memory()
            t = time.perf_counter_ns()
            step()
            cold.append(time.perf_counter_ns() - t)
        w, c = statistics.median(warm) / 1000, statistics.median(cold) / 1000
        print(f"  {name:14} warm {w:6.1f}  cold {c:6.1f}  ({c / w:.1f}x)")


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("bench_served_steps: wrk is not installed (apt-get install wrk)")
    seconds = int(os.environ.get("BENCH_SECONDS", "4"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "5"))
    server, client = pinned(os.cpu_count() or 1)
    print(f"load average at the start {load_average()}; server pinned {server[2:] or 'no'}, wrk {client[2:] or 'no'}; "
          f"{rounds} rounds of {seconds} s", flush=True)  # fmt: skip
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-served-steps-{os.getpid()}.json"
    procs: dict[str, tuple[subprocess.Popen[bytes], str, list[str]]] = {}
    runs: dict[str, list[dict[str, float]]] = {}
    try:
        proc, base = start("bench.bare:app", {}, "/bare", server)
        procs["bare GET"] = (proc, base, ["get", "/bare"])
        for cut, _ in STEPS:
            proc, base = start(f"bench.cutview:make({cut!r})", {}, "/v1/games", server)
            procs[cut] = (proc, base, ["play", str(work)])
        for piece, _ in PIECES:
            proc, base = start(f"bench.cutview:make('body', {piece!r})", {}, "/v1/games", server)
            procs[f"body, no {piece}"] = (proc, base, ["play", str(work)])
        bare_proc, bare_base, _ = procs["bare GET"]
        procs["bare POST"] = (bare_proc, bare_base, ["play", str(work), "/bare"])
        base = procs["play"][1]
        state = call(base, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        for move in ("E5", "D4 D5", "F5 F6 E6"):
            state = call(base, "POST", "/v1/games/catchup/play", {"state": state, "move": move})["state"]
        work.write_text(json.dumps({"state": state, "move": "A1 A2"}))
        for proc, base, args in procs.values():
            wrk(base, args, 1, proc.pid, client)
        for r in range(rounds):
            for name, (proc, base, args) in procs.items():
                runs.setdefault(name, []).append(wrk(base, args, seconds, proc.pid, client))
            print(f"round {r + 1}: " + " ".join(f"{n} {v[-1]['cpu_us']:.0f}" for n, v in runs.items()), flush=True)
    finally:
        for proc, _, _ in procs.values():
            stop(proc)
        work.unlink(missing_ok=True)
    cpu = {name: statistics.median(r["cpu_us"] for r in rs) for name, rs in runs.items()}
    rps = {name: statistics.median(r["rps"] for r in rs) for name, rs in runs.items()}
    print(f"\nmedians of {rounds} rounds; load average at the end {load_average()}")
    print(f"{'server':32} {'CPU µs a request':>17} {'req/s':>7} {'of bare GET':>11}")
    for name in runs:
        print(f"{name:32} {cpu[name]:>17.1f} {rps[name]:>7.0f} {rps[name] / rps['bare GET']:>11.2f}")
    print("\nwhat each step of play adds, µs of CPU a served request:")
    last = "bare POST"
    for cut, what in STEPS:
        note = "  (the plumbing, beside the bare POST)" if cut == "body" else ""
        print(f"  {cut:8} {cpu[cut] - cpu[last]:+7.1f}  {what}{note}")
        last = cut
    print(f"  play's own work (parse to the end) {cpu['play'] - cpu['body']:.1f}; the whole play {cpu['play']:.1f}, "
          f"bare GET {cpu['bare GET']:.1f}: {cpu['bare GET'] / cpu['play']:.2f} in CPU (aim 0.65 in throughput)")  # fmt: skip
    print("\nwhat each piece of the plumbing costs, µs (the app's body cut beside it without the piece):")
    for piece, what in PIECES:
        print(f"  {piece:8} {cpu['body'] - cpu[f'body, no {piece}']:+7.1f}  {what}")
    warm_and_cold()


if __name__ == "__main__":
    sys.exit(main())
