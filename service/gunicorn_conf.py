"""gunicorn's settings beside the command line (service/serve.py passes
``--config python:service.gunicorn_conf``): when a worker exits, its live
gauges (``umpire_listeners``) leave the metrics every worker reports
(service/metrics.py), so a restarted worker's listeners are not counted twice."""

from __future__ import annotations

from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_flask_exporter.multiprocess import GunicornInternalPrometheusMetrics

    GunicornInternalPrometheusMetrics.mark_process_dead_on_child_exit(worker.pid)
