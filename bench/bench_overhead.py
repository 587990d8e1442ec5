"""What the service costs per request beside a bare Flask route, and its latency tail (issue 20, "Cost
per request"): ``python -m bench overhead``.

In one run, three servers side by side on the same two cores, each on a port of its own:

* ``bare/gevent``: ``bench/bare.py`` (a Flask app with one route and nothing else) under the gunicorn
  command ``make run`` uses (service/run/serve.py ``gunicorn_command``: 2 gevent workers);
* ``bare/sync``: the same app under gunicorn's ``sync`` workers (2), the tail's yardstick;
* ``bare/gevent POST /bare``: the bare app reading ``play``'s body and answering as its GET does, the floor
  under any ``play`` (gunicorn and Werkzeug reading a body);
* ``unplumbed``: the app without its plumbing (``bench/unplumbed.py``: no body guard, request log, metrics or
  limiter hooks), served as the bare route is: how near a ``play`` could come with that plumbing at nothing;
* ``empty view``: the app with all its plumbing and a ``play`` view that only takes its body
  (``bench/emptyview.py``), served as the bare route is: how near a ``play`` could come if its own work (the
  body's parse and schema, the rules, the answer) cost nothing;
* ``managed move floor``: the app with all its plumbing and a managed move that only makes its two Redis round
  trips, the read and the compare-and-set commit, and judges nothing (``bench/movefloor.py``), served as the bare
  route is, on the app's Redis: the most any managed move could reach while it reads, decides in Python and
  commits (issue 33);
* with ``BENCH_BEFORE`` naming a checkout of older code (a git worktree), that code served as ``make run`` serves
  it, for ``GET /v1/games`` and ``play``: before and after measured in one run, the same bare route beside both;
* ``app``: ``python -m service.run.serve`` (what ``make run`` starts: gunicorn, the sweeper, its
  logging defaults) on an embedded Redis, its output thrown away; and the same with ``KEEP_ALIVE_S=0``
  (one request a connection), for the tail.

wrk (2 threads) asks ``GET /bare`` of both bare servers, and ``GET /v1/games``, a stateless Catchup
``POST /v1/games/catchup/play`` and a managed move (``POST /v1/matches/{id}/moves``) of the app, at 4 and
at 16 connections; ``BENCH_ROUNDS`` (3) rounds of ``BENCH_SECONDS`` (5) each, the loads taken in turn within
a round so that a busy moment of the shared machine weighs on all alike.  The managed moves: before each run,
enough fresh Catchup matches (side 5, 60 moves each; created with the umpire token, so no creation budget
applies) that wrk (bench/wrk_umpire.lua ``move``) always has a match not in flight to move in: each answer's
ply tells it the next, so every move is accepted, a real move in a real match, stored in Redis by its script.
Printed: each load's median over the rounds (requests/s, p50, p99, the servers' CPU per request) and the
ratios issue 33 sets aims for: ``GET /v1/games`` at least 0.7, ``play`` at least 0.45 and a managed move at
least 0.35 of the bare route's throughput (gevent, as served); ``play``'s p99 at 16 connections within 3x of
the bare route's on sync workers.  Every round's figures are printed too.
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

from bench.bench_http import SIZE, new_matches, wrk
from bench.common import ROOT, call, free_port, load_average, serve, stop, wait_up
from service.run import embedded
from service.run.serve import gunicorn_command

UMPIRE_TOKEN = "bench-overhead-umpire"  # creates the managed moves' matches at any pace (no CREATE_RATE_LIMIT)
MOVES_PER_S = 4000  # more than the app answers on these two cores: the matches made for a run never run short


def bare(
    worker_class: str, log: Any, app: str = "bench.bare:app", path: str = "/bare", extra: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, **(extra or {}), "HOST": "127.0.0.1", "PORT": str(port), "ACCESS_LOG": "", "WORKER_CLASS": worker_class}
    cmd = [*gunicorn_command(env)[:-1], app]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    wait_up(base, proc, path=path)
    return proc, base


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("bench_overhead: wrk is not installed (apt-get install wrk)")
    seconds = int(os.environ.get("BENCH_SECONDS", "5"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    levels = [int(c) for c in os.environ.get("BENCH_CONNECTIONS", "4,16").split(",")]
    work = Path(tempfile.mkdtemp(prefix="bench-overhead-"))
    redis = embedded.start(work / "redis")
    procs: list[subprocess.Popen[bytes]] = []
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    print(f"load average at the start {load_average()}; {os.cpu_count()} cpus; {rounds} rounds of {seconds} s", flush=True)
    try:
        with open(os.devnull, "wb") as devnull:
            sync_proc, sync_base = bare("sync", devnull)
            procs.append(sync_proc)
            gevent_proc, gevent_base = bare("gevent", devnull)
            procs.append(gevent_proc)
            floor_proc, floor_base = bare("gevent", devnull, "bench.unplumbed:app", "/v1/games")
            procs.append(floor_proc)
            empty_proc, empty_base = bare("gevent", devnull, "bench.emptyview:app", "/v1/games")
            procs.append(empty_proc)
        umpire = {"Authorization": f"Bearer {UMPIRE_TOKEN}"}
        app_env = {"REDIS_URL": redis.url, "DATA_DIR": str(work / "data"), "REDIS_PREFIX": "bench:", "UMPIRE_TOKEN": UMPIRE_TOKEN}
        with open(os.devnull, "wb") as devnull:  # the floor under a managed move, on the app's Redis (its own prefix)
            floor_env = {**app_env, "REDIS_PREFIX": "bench-floor:", "DATA_DIR": str(work / "data-floor")}
            move_floor_proc, move_floor_base = bare("gevent", devnull, "bench.movefloor:app", "/v1/games", floor_env)
            procs.append(move_floor_proc)
        if os.environ.get("ACCESS_LOG"):
            app_env["ACCESS_LOG"] = os.environ["ACCESS_LOG"]  # else make run's default (none but the request log)
        app_proc, app_base = serve(app_env)
        procs.append(app_proc)
        # The same app with KEEP_ALIVE_S=0: one request a connection (the tail's trade, docs/SETTINGS.md).
        once_proc, once_base = serve({**app_env, "DATA_DIR": str(work / "data-once"), "KEEP_ALIVE_S": "0"})
        procs.append(once_proc)
        before = os.environ.get("BENCH_BEFORE")  # a checkout of older code (a git worktree), served beside
        if before:
            before_env = {**app_env, "DATA_DIR": str(work / "data-before"), "REDIS_PREFIX": "bench-before:"}
            before_proc, before_base = serve(before_env, cwd=Path(before))
            procs.append(before_proc)
        state = call(app_base, "POST", "/v1/games/catchup/new", {"options": {"size": 5}})["state"]
        for move in ("E5", "D4 D5", "F5 F6 E6"):
            state = call(app_base, "POST", "/v1/games/catchup/play", {"state": state, "move": move})["state"]
        (work / "play.json").write_text(json.dumps({"state": state, "move": "A1 A2"}))
        loads = {
            "bare/sync GET /bare": (sync_base, sync_proc, ["get", "/bare"]),
            "bare/gevent GET /bare": (gevent_base, gevent_proc, ["get", "/bare"]),
            "bare/gevent POST /bare": (gevent_base, gevent_proc, ["play", str(work / "play.json"), "/bare"]),
            "app GET /v1/games": (app_base, app_proc, ["get", "/v1/games"]),
            "app POST play": (app_base, app_proc, ["play", str(work / "play.json")]),
            "app managed move": (app_base, app_proc, ["move", str(work / "matches.txt"), "2"]),
            "app KEEP_ALIVE_S=0 play": (once_base, once_proc, ["play", str(work / "play.json")]),
            "unplumbed play": (floor_base, floor_proc, ["play", str(work / "play.json")]),
            "empty view play": (empty_base, empty_proc, ["play", str(work / "play.json")]),
            "managed move floor": (move_floor_base, move_floor_proc, ["move", str(work / "matches.txt"), "2"]),
        }
        if before:
            loads["before GET /v1/games"] = (before_base, before_proc, ["get", "/v1/games"])
            loads["before POST play"] = (before_base, before_proc, ["play", str(work / "play.json")])
            loads["before managed move"] = (before_base, before_proc, ["move", str(work / "matches.txt"), "2"])

        def run(base: str, proc: subprocess.Popen[bytes], args: list[str], c: int, seconds: int) -> dict[str, Any]:
            if args[0] == "move":  # fresh matches, enough that no thread runs short (MOVES_PER_S at most)
                new_matches(base, work / "matches.txt", seconds * MOVES_PER_S // (SIZE * 3 * (SIZE - 1)) + 2 * c, umpire)
            figures = wrk(base, args[0], c, 2, seconds, *args[1:], server=[proc.pid])
            if figures.get("fallbacks"):
                print(f"  warning: {figures['fallbacks']} requests of this run were no move (matches ran short)")
            return figures

        for base, proc, args in loads.values():  # warm every worker
            run(base, proc, args, 4, 2)
        for r in range(rounds):
            for c in levels:
                for name, (base, proc, args) in loads.items():
                    figures = run(base, proc, args, c, seconds)
                    figures["load"] = load_average()
                    runs.setdefault((name, c), []).append(figures)
                    print(
                        f"round {r + 1} c={c:<3} {name:<24} {figures['rps']:>7.0f} req/s  p50 {figures['p50_ms']:7.2f}  "
                        f"p99 {figures['p99_ms']:8.2f}  max {figures['max_ms']:8.2f} ms  cpu {figures['cpu_ms']:.3f} ms/req  "
                        f"errors {figures['socket_errors'] + figures['non2xx']}  load {figures['load']}",
                        flush=True,
                    )
    finally:
        for proc in reversed(procs):
            stop(proc)
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nmedians over {rounds} rounds; load average at the end {load_average()}")
    print(f"{'connections':>11} {'load':<24} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'cpu ms/req':>10}")
    med: dict[tuple[str, int], dict[str, float]] = {}
    for (name, c), rs in runs.items():
        med[name, c] = {k: statistics.median(x[k] for x in rs) for k in ("rps", "p50_ms", "p99_ms", "cpu_ms")}
        m = med[name, c]
        print(f"{c:>11} {name:<24} {m['rps']:>8.0f} {m['p50_ms']:>8.2f} {m['p99_ms']:>8.2f} {m['cpu_ms']:>10.3f}")
    for c in levels:
        base = med["bare/gevent GET /bare", c]["rps"]
        games = med["app GET /v1/games", c]["rps"] / base
        play = med["app POST play", c]["rps"] / base
        move = med["app managed move", c]["rps"] / base
        # Per round too: the spread the shared machine gives.
        per_round = [
            f"{g['rps'] / b['rps']:.2f}/{p['rps'] / b['rps']:.2f}/{m['rps'] / b['rps']:.2f}"
            for b, g, p, m in zip(
                runs["bare/gevent GET /bare", c],
                runs["app GET /v1/games", c],
                runs["app POST play", c],
                runs["app managed move", c],
                strict=True,
            )
        ]
        print(
            f"c={c}: GET /v1/games {games:.2f} of the bare route (aim >= 0.7), play {play:.2f} (aim >= 0.45), "
            f"managed move {move:.2f} (aim >= 0.35); rounds (games/play/move): {' '.join(per_round)}"
        )
        cpu = med["bare/gevent GET /bare", c]["cpu_ms"]
        print(
            f"c={c}: in the servers' CPU a request (what a busy shared machine moves least): GET /v1/games "
            f"{cpu / med['app GET /v1/games', c]['cpu_ms']:.2f}, play {cpu / med['app POST play', c]['cpu_ms']:.2f}, "
            f"managed move {cpu / med['app managed move', c]['cpu_ms']:.2f} of the bare route's (the move's CPU "
            f"counts the app's processes, not Redis)"
        )
        unplumbed = med["unplumbed play", c]
        print(
            f"c={c}: play with its plumbing at nothing (bench/unplumbed.py) {unplumbed['rps'] / base:.2f} of the bare "
            f"route, {cpu / unplumbed['cpu_ms']:.2f} in CPU a request: the most the plumbing's cost could give back"
        )
        empty = med["empty view play", c]
        print(
            f"c={c}: play's view doing nothing, its plumbing whole (bench/emptyview.py) {empty['rps'] / base:.2f} of the "
            f"bare route, {cpu / empty['cpu_ms']:.2f} in CPU a request: the most play's own work could give back"
        )
        if ("before POST play", c) in med:
            old_games, old_play = med["before GET /v1/games", c], med["before POST play", c]
            old_move = med["before managed move", c]
            print(
                f"c={c}: BENCH_BEFORE's code: GET /v1/games {old_games['rps'] / base:.2f}, play {old_play['rps'] / base:.2f}, "
                f"managed move {old_move['rps'] / base:.2f} of the bare route; in CPU a request "
                f"{cpu / old_games['cpu_ms']:.2f}, {cpu / old_play['cpu_ms']:.2f}, {cpu / old_move['cpu_ms']:.2f}"
            )
        move_floor = med["managed move floor", c]
        print(
            f"c={c}: a managed move that judges nothing, its two Redis round trips and its plumbing whole "
            f"(bench/movefloor.py) {move_floor['rps'] / base:.2f} of the bare route, {cpu / move_floor['cpu_ms']:.2f} in CPU "
            f"a request: the most any managed move could reach with this design (aim >= 0.35); the move "
            f"{move / (move_floor['rps'] / base):.2f} of it"
        )
        floor = med["bare/gevent POST /bare", c]["rps"] / base
        print(
            f"c={c}: the bare route's POST of play's body (read, not parsed) {floor:.2f} of its GET; "
            f"play {med['app POST play', c]['rps'] / med['bare/gevent POST /bare', c]['rps']:.2f} of that POST"
        )
        tail = med["app POST play", c]["p99_ms"] / med["bare/sync GET /bare", c]["p99_ms"]
        pairs = zip(runs["bare/sync GET /bare", c], runs["app POST play", c], strict=True)
        rounds_tail = [f"{p['p99_ms'] / s['p99_ms']:.1f}" for s, p in pairs]
        print(f"c={c}: play p99 {tail:.1f}x the bare sync route's p99 (aim <= 3 at 16); rounds: {' '.join(rounds_tail)}")
        once = med["app KEEP_ALIVE_S=0 play", c]
        pairs = zip(runs["bare/sync GET /bare", c], runs["app KEEP_ALIVE_S=0 play", c], strict=True)
        once_rounds = " ".join(f"{p['p99_ms'] / s['p99_ms']:.1f}" for s, p in pairs)
        print(
            f"c={c}: with KEEP_ALIVE_S=0, play {once['rps'] / base:.2f} of the bare route, p99 "
            f"{once['p99_ms'] / med['bare/sync GET /bare', c]['p99_ms']:.1f}x the bare sync route's; "
            f"rounds: {once_rounds}"
        )


if __name__ == "__main__":
    sys.exit(main())
