"""Prometheus metrics at ``GET /metrics`` (prometheus-flask-exporter).

Requests and their latency by route (the URL rule, so one series per
endpoint, not per match) and status come from the exporter
(``umpire_http_request_duration_seconds``); beside them:

* ``umpire_moves_total{game, verdict}``: moves judged in managed matches
  (``accepted``, ``illegal``, ``forfeit``);
* ``umpire_flags_total{game}``: flags applied (R-T1, R-X6), by sweepers and reads;
* ``umpire_redis_seconds{op}``: how long each kind of Redis script took;
* ``umpire_redis_errors_total{reason}``: Redis failures answered 503;
* ``umpire_listeners``: requests waiting on a match now (event streams, long-polls).

Under gunicorn with several workers (and the sweeper, a process of its own)
each process writes its figures to ``PROMETHEUS_MULTIPROC_DIR`` and any
worker answers ``/metrics`` with the sum of all of them (``make run`` sets the
folder; service/gunicorn_conf.py drops a dead worker's live gauges).  Without
the variable, one process's own figures.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask
from prometheus_client import Counter, Gauge, Histogram
from prometheus_flask_exporter import PrometheusMetrics
from prometheus_flask_exporter.multiprocess import GunicornInternalPrometheusMetrics

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

_exporter: Any = (GunicornInternalPrometheusMetrics if MULTIPROCESS else PrometheusMetrics).for_app_factory(
    group_by="url_rule", defaults_prefix="umpire", excluded_paths=["^/metrics$"]
)

MOVES = Counter("umpire_moves_total", "Moves judged in managed matches.", ["game", "verdict"])
FLAGS = Counter("umpire_flags_total", "Flags applied (R-T1, R-X6).", ["game"])
REDIS_SECONDS = Histogram(
    "umpire_redis_seconds",
    "Redis scripts, by kind.",
    ["op"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 2),
)
REDIS_ERRORS = Counter("umpire_redis_errors_total", "Redis failures answered 503.", ["reason"])
LISTENERS = Gauge("umpire_listeners", "Requests waiting on a match.", multiprocess_mode="livesum")


def init_app(app: Flask) -> None:
    """``GET /metrics`` on this app."""
    _exporter.init_app(app)


def redis_time(op: str, seconds: float) -> None:
    REDIS_SECONDS.labels(op).observe(seconds)
