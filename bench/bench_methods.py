"""What made-up HTTP methods leave behind (issue 20, "Hold under attack"): ``python -m bench methods``.

gunicorn lets any method of 3 to 20 characters with no lower-case letter through, and the app answers it
``405``.  In one process as ``make run`` configures the app (JSON log, multiprocess metrics:
bench/bench_request_cpu.py), ``BENCH_METHODS`` (20,000) requests to ``/v1/games``, each with a new 12-letter
method; then one scrape of ``/metrics``.  Printed: the time they took, the size of the metrics files, how much
larger the process grew (its peak), the scrape's time and size.  Before service/web/metrics.py labelled a
method other than HTTP's own ``(other)``: 134.3 MB of files, 294 MB, an 8.4 s scrape of 34.8 MB
(RELIABILITY.md)."""

from __future__ import annotations

import os
import random
import resource
import string
import time

from bench.bench_request_cpu import as_make_run_configures, call


def main() -> None:
    count = int(os.environ.get("BENCH_METHODS", "20000"))
    with as_make_run_configures("methods"):
        from service import create_app

        app = create_app({})
        folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
        rng = random.Random(20)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        for _ in range(count):
            status = call(app, "/v1/games", b"", "".join(rng.choice(string.ascii_uppercase) for _ in range(12)))
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


if __name__ == "__main__":
    main()
