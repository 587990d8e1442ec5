"""Server CPU per request, in one process, beside a bare Flask route (issue 20, "Cost per request"):
``python -m bench request_cpu``.

``bench overhead`` measures through gunicorn and wrk, whose figures on the shared two cores move by a
factor of two from round to round.  This calls the WSGI apps directly (no sockets, no wrk) and counts
the process's own CPU time (``time.process_time``), which waiting for a core does not inflate: the
bare route of ``bench/bare.py``, and the app as ``make run`` configures it (``LOG_FORMAT=json`` to a
discarded stream, metrics in ``PROMETHEUS_MULTIPROC_DIR``) answering ``GET /v1/games`` and a stateless
Catchup ``play``, in turn, ``BENCH_BATCHES`` (20) batches of ``BENCH_BATCH`` (300) requests each.
Printed: each load's best and median batch (µs of CPU a request) and the ratios bare / app (the
issue's aims, in throughput: ``GET /v1/games`` at least 0.8, ``play`` at least 0.65; a CPU-bound
server's throughput is the inverse of its CPU per request)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from bench.common import load_average

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def environ(path: str, body: bytes = b"", method: str = "GET") -> dict[str, Any]:
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def call(app: WsgiApp, path: str, body: bytes = b"", method: str = "GET") -> str:
    status: list[str] = []
    answer = app(environ(path, body, method), lambda s, h, e=None: status.append(s))
    b"".join(answer)
    close = getattr(answer, "close", None)
    if close is not None:
        close()
    return status[0]


@contextlib.contextmanager
def as_make_run_configures(name: str) -> Iterator[tuple[int, int]]:
    """Apps made inside are configured as ``make run`` configures them (``LOG_FORMAT=json``, metrics in
    ``PROMETHEUS_MULTIPROC_DIR``), their request log discarded; yields ``BENCH_BATCHES`` (20) and
    ``BENCH_BATCH`` (300)."""
    os.environ["LOG_FORMAT"] = "json"
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix=f"bench-{name}-"))
    real_stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # noqa: SIM115  # the request log, discarded
    try:
        yield int(os.environ.get("BENCH_BATCHES", "20")), int(os.environ.get("BENCH_BATCH", "300"))
    finally:
        sys.stderr.close()
        sys.stderr = real_stderr


def main() -> None:
    with as_make_run_configures("request-cpu") as (batches, size):
        from bench.bare import app as bare
        from service import create_app

        app = create_app({})
        client = app.test_client()
        state = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
        state = client.post("/v1/games/catchup/play", json={"state": state, "move": "E5"}).get_json()["state"]
        play = json.dumps({"state": state, "move": "D4 F6"}).encode()
        loads: dict[str, tuple[WsgiApp, str, bytes, str]] = {
            "bare route": (bare, "/bare", b"", "GET"),
            "GET /v1/games": (app, "/v1/games", b"", "GET"),
            "Catchup play": (app, "/v1/games/catchup/play", play, "POST"),
        }
        for name, (wsgi, path, body, method) in loads.items():
            status = call(wsgi, path, body, method)
            if not status.startswith("200"):
                raise SystemExit(f"bench_request_cpu: {name} answered {status}")
        took: dict[str, list[float]] = {name: [] for name in loads}
        for _ in range(batches):
            for name, (wsgi, path, body, method) in loads.items():
                start = time.process_time()
                for _ in range(size):
                    call(wsgi, path, body, method)
                took[name].append((time.process_time() - start) / size * 1e6)
    load = load_average()
    print(f"{batches} batches of {size} requests each, load average at the end {load}")
    best = {name: min(v) for name, v in took.items()}
    median = {name: statistics.median(v) for name, v in took.items()}
    for name in loads:
        print(f"{name:16} CPU a request: best {best[name]:6.1f} µs, median {median[name]:6.1f} µs")
    for name, aim in (("GET /v1/games", 0.8), ("Catchup play", 0.65)):
        b, m = best["bare route"] / best[name], median["bare route"] / median[name]
        print(f"{name}: bare / app {b:.2f} (best), {m:.2f} (median); aim >= {aim}")


if __name__ == "__main__":
    main()
