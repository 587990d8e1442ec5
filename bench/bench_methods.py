"""What made-up HTTP methods leave behind (issue 20, "Hold under attack"): ``python -m bench methods``.

gunicorn lets any method of 3 to 20 characters with no lower-case letter through, and the app answers it
``405``.  In one process as ``make run`` configures the app (JSON log, multiprocess metrics:
bench/bench_request_cpu.py), ``BENCH_METHODS`` (20,000) requests to ``/v1/games``, each with a new 12-letter
method; then one scrape of ``/metrics``.  Printed: the time they took, the size of the metrics files, how much
larger the process grew (its peak), the scrape's time and size.  Before service/web/metrics.py labelled a
method other than HTTP's own ``(other)``: 134.3 MB of files, 294 MB, an 8.4 s scrape of 34.8 MB
(RELIABILITY.md).

``python -m bench methods --served``: the same against ``python -m service.run.serve`` (what ``make run``
starts, on an embedded Redis in a folder of its own), over one keep-alive connection: the size of its metrics
folder, the gunicorn workers' memory and one scrape, after ``BENCH_METHODS`` (5,000 here) requests."""

from __future__ import annotations

import http.client
import os
import random
import resource
import shutil
import string
import tempfile
import time
from pathlib import Path

from bench.bench_request_cpu import as_make_run_configures, call
from bench.common import gunicorn_workers, rss_bytes, serve, stop


def made_up(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(12))


def main(options: list[str] | None = None) -> None:
    if options == ["--served"]:
        served(int(os.environ.get("BENCH_METHODS", "5000")))
        return
    if options:
        raise SystemExit("bench_methods: the only option is --served")
    count = int(os.environ.get("BENCH_METHODS", "20000"))
    with as_make_run_configures("methods"):
        from service import create_app

        app = create_app({})
        folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
        rng = random.Random(20)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        for _ in range(count):
            status = call(app, "/v1/games", b"", made_up(rng))
            if not status.startswith("405"):
                raise SystemExit(f"bench_methods: a made-up method answered {status}")
        took = time.perf_counter() - start
        files = sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder))
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) / 1024
        start = time.perf_counter()
        scraped = app.test_client().get("/metrics").data
        scrape = time.perf_counter() - start
    print(
        f"{count} made-up methods in {took:.1f} s: metrics files {files / 1e6:.1f} MB, the process {grown:.0f} MB "
        f"larger at its peak; a scrape {scrape:.2f} s, {len(scraped) / 1e6:.1f} MB"
    )


def served(count: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-methods-"))
    proc, base = serve({"DATA_DIR": str(work)})
    try:
        port = int(base.rsplit(":", 1)[1])
        rng = random.Random(20)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        start = time.perf_counter()
        for _ in range(count):
            connection.request(made_up(rng), "/v1/games")
            answer = connection.getresponse()
            answer.read()
            if answer.status != 405:
                raise SystemExit(f"bench_methods: a made-up method answered {answer.status}")
        took = time.perf_counter() - start
        time.sleep(1)  # the workers' kept timings written (service/web/metrics.py FLUSH_S)
        files = sum(f.stat().st_size for f in (work / "metrics").iterdir())
        memory = sum(rss_bytes(pid) for pid in gunicorn_workers(proc.pid)) / 2**20
        start = time.perf_counter()
        connection.request("GET", "/metrics")
        scraped = connection.getresponse().read()
        scrape = time.perf_counter() - start
    finally:
        stop(proc)
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"{count} made-up methods served in {took:.1f} s: metrics folder {files / 1e6:.2f} MB, the workers "
        f"{memory:.0f} MB; a scrape {scrape:.2f} s, {len(scraped) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
