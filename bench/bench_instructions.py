"""What a ``play`` costs in instructions and first-level cache misses, the same on every run (issue 20, "Cost per
request"): ``python -m bench instructions``.

``bench overhead`` and ``bench served_steps`` time requests, and their figures move by several per cent from run to
run, more than most single changes to the request path are worth.  Here valgrind's cachegrind counts, in one
process, the instructions run and the misses of its simulated first-level caches (instructions and data) of the
app's part of a request: the WSGI stack ``make run`` serves (the body guard, the request log, Flask, the view),
called as gunicorn calls it, with the body in a gunicorn ``Body``, one log line written per answer (code before
issue 33 kept them as its gevent worker did, and took them together every 50 answers), in ``LOG_FORMAT=json``
with ``PYTHONHASHSEED=0``.  Each
figure is a run of ``BENCH_REQUESTS`` (300) requests after 200 to warm up, less a run of the 200 alone, divided
by ``BENCH_REQUESTS``: the same to a tenth of a per cent from run to run.  gunicorn's own part (parsing the
request, writing the answer) and the system's are not counted; they are the same for every server here.

The servers: the bare route's ``POST`` of ``play``'s body (bench/bare.py), the app with ``play`` cut after each
of its steps (bench/cutview.py), and the whole ``play``; with ``BENCH_BEFORE`` (a checkout of older code, as
``bench overhead`` takes it) the whole ``play`` of that code beside it.  Needs valgrind (``apt-get install
valgrind``); a run takes about a minute a server, two at a time."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # this checkout (bench.common's, not imported: a child may run older code)
WARM = 200
FLUSH_EVERY = 50
FIGURES = (("Ir", "I   refs"), ("I1", "I1  misses"), ("D1", "D1  misses"))


def child(kind: str, count: int) -> None:
    """In the process cachegrind watches: ``WARM`` requests, then ``count`` more, of ``kind`` (``bare``, a cut of
    bench/cutview.py, or ``play``)."""
    import json

    import werkzeug.test
    from gunicorn.http.body import Body, LengthReader
    from gunicorn.http.unreader import IterUnreader

    from engine.registry import get_game
    from service.web import metrics, requestlog

    g = get_game("catchup")
    state = g.new({"size": 5})
    for move in ("E5", "D4 D5", "F5 F6 E6"):  # bench overhead's position
        state = g.play(state, move).state
    body = json.dumps({"state": g.dump(state), "move": "A1 A2"}).encode()
    if kind == "bare":
        from bench.bare import app

        path = "/bare"
    else:
        from bench.cutview import make
        from service import create_app

        app = create_app({}) if kind == "play" else make(kind)
        path = "/v1/games/catchup/play"
    # Older code (BENCH_BEFORE) kept its lines and timings in a gevent worker and took them together: so here.
    batched = hasattr(requestlog, "batch_lines")
    if batched:
        requestlog.batch_lines(lambda seconds, then: None)
        metrics.batch_timings(lambda seconds, then: None)
    environ = werkzeug.test.EnvironBuilder(path=path, method="POST", data=body, content_type="application/json").get_environ()
    wsgi: Any = app.wsgi_app
    statuses: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    def one() -> None:
        env = dict(environ)
        held = IterUnreader([])
        held.unread(body)  # all of it came with the headers, as a client sends a small body
        env["wsgi.input"] = Body(LengthReader(held, len(body)))
        b"".join(wsgi(env, start_response))

    for i in range(WARM + count):
        one()
        if batched and i % FLUSH_EVERY == 0:
            requestlog.flush_lines()
            metrics.flush_timings()
    if set(statuses) != {"200 OK"}:
        raise SystemExit(f"bench_instructions: {kind} answered {sorted(set(statuses))}")


def counted(kind: str, count: int, tree: Path) -> dict[str, int]:
    """cachegrind's totals for a child of ``kind`` making ``count`` requests after its warm-up, in ``tree``."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "LOG_FORMAT": "json", "PYTHONPATH": str(tree)}
    # This file run by its path, the code measured from ``tree`` (PYTHONPATH): an older checkout need not have it.
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null",
           sys.executable, str(Path(__file__).resolve()), "--child", kind, str(count)]  # fmt: skip
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_instructions: {kind} in {tree} failed:\n{done.stderr[-2000:]}")
    out = {}
    for name, label in FIGURES:
        found = re.search(rf"{re.escape(label)}:\s+([\d,]+)", done.stderr)
        if found is None:
            raise SystemExit(f"bench_instructions: no {label!r} in cachegrind's summary")
        out[name] = int(found.group(1).replace(",", ""))
    return out


def per_request(kind: str, count: int, tree: Path) -> dict[str, float]:
    warm, more = counted(kind, 0, tree), counted(kind, count, tree)
    return {name: (more[name] - warm[name]) / count for name, _ in FIGURES}


def main(argv: list[str] | None = None) -> None:
    if argv and argv[0] == "--child":
        child(argv[1], int(argv[2]))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("bench_instructions: valgrind is not installed (apt-get install valgrind)")
    count = int(os.environ.get("BENCH_REQUESTS", "300"))
    runs: list[tuple[str, str, Path]] = [
        ("bare POST", "bare", ROOT),
        *((f"play cut after {cut}", cut, ROOT) for cut in ("body", "parse", "load", "rules", "answer")),
        ("play", "play", ROOT),
    ]
    before = os.environ.get("BENCH_BEFORE")
    if before:
        runs.append(("play, BENCH_BEFORE", "play", Path(before)))
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        figures = list(pool.map(lambda run: per_request(run[1], count, run[2]), runs))
    print(f"per request, {count} requests after {WARM} (cachegrind, {time.monotonic() - started:.0f} s):")
    print(f"{'':30} {'instructions':>12} {'I1 misses':>10} {'D1 misses':>10}")
    bare = figures[0]
    for (label, _, _), f in zip(runs, figures, strict=True):
        print(f"{label:30} {f['Ir']:>12,.0f} {f['I1']:>10,.0f} {f['D1']:>10,.0f}   {f['Ir'] / bare['Ir']:.2f}x the bare POST")
    steps = [f for (label, _, tree), f in zip(runs, figures, strict=True) if tree == ROOT][1:]
    names = ["body (the plumbing)", "parse", "load", "rules", "answer", "announcements"]
    print("\nwhat each step adds, instructions (L1 misses):")
    prev = bare
    for name, f in zip(names, steps, strict=True):
        print(f"  {name:22} {f['Ir'] - prev['Ir']:>+10,.0f} ({f['I1'] + f['D1'] - prev['I1'] - prev['D1']:+,.0f})")
        prev = f
    if before:
        now, then = figures[-2], figures[-1]
        print(f"\nplay against BENCH_BEFORE: instructions {now['Ir'] / then['Ir'] - 1:+.1%}, "
              f"L1 misses {(now['I1'] + now['D1']) / (then['I1'] + then['D1']) - 1:+.1%}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
