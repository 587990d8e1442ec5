"""Prometheus metrics at ``GET /metrics`` (prometheus_client).

* ``umpire_http_request_duration_seconds{method, route, status}``: requests
  and their latency, by route (the URL rule, so one series per endpoint, not
  one per match) and status; a method other than HTTP's own is ``(other)``,
  so that a client making methods up cannot make series without end;
* ``umpire_moves_total{game, verdict}``: moves judged in managed matches
  (``accepted``, ``illegal``, ``forfeit``);
* ``umpire_flags_total{game}``: flags applied (R-T1, R-X6), by sweepers and reads;
* ``umpire_redis_seconds{op}``: how long each kind of Redis script took;
* ``umpire_redis_errors_total{reason}``: Redis failures answered 503;
* ``umpire_listeners``: requests waiting on a match now (event streams, long-polls).

``METRICS_TOKEN`` set, ``/metrics`` answers only ``Authorization: Bearer
<METRICS_TOKEN>`` (``401 unauthorized`` otherwise); unset, anyone may read
it (keep it from the public at the proxy then: it tells the load and the
error rate).

Under gunicorn with several workers (and the sweeper, a process of its own)
each process writes its figures to ``PROMETHEUS_MULTIPROC_DIR`` and any
worker answers ``/metrics`` with the sum of all of them: prometheus_client's
multiprocess mode, as its documentation sets it up (``make run`` sets the
folder; service/run/gunicorn_conf.py's ``child_exit`` calls
``mark_process_dead`` for a dead worker, so its live gauges are dropped).
Without the variable, one process's own figures.

The Flask side is one observer of the request log's middleware (:func:`time_answer`: every answer, timed, one
``observe``) and one view, registered on every app the factory makes (prometheus-flask-exporter hooks only the first app of a
process, which a test run or a tool making several apps defeats).
"""

from __future__ import annotations

import functools
import hmac
import os
from typing import Any

from flask import Blueprint, Response, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from werkzeug.exceptions import Unauthorized
from werkzeug.routing import Rule

# The methods a request's series is labelled with; any other is OTHER.  gunicorn lets through any method of 3 to
# 20 characters with no lower-case letter, and each made a series that lived as long as the process, in memory
# and in the metrics file every scrape reads: 20,000 made-up methods made 134 MB of files, 294 MB more in the
# worker and an 8 s scrape (issue 20, "Hold under attack"; bench/bench_methods.py, tests/test_metrics_batching.py).
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"))
OTHER = "(other)"
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5)

REQUESTS = Histogram(
    "umpire_http_request_duration_seconds", "HTTP requests, by route and status.", ["method", "route", "status"], buckets=BUCKETS
)
MOVES = Counter("umpire_moves_total", "Moves judged in managed matches.", ["game", "verdict"])
FLAGS = Counter("umpire_flags_total", "Flags applied (R-T1, R-X6).", ["game"])
REDIS_SECONDS = Histogram("umpire_redis_seconds", "Redis scripts, by kind.", ["op"], buckets=BUCKETS)
REDIS_ERRORS = Counter("umpire_redis_errors_total", "Redis failures answered 503.", ["reason"])
LISTENERS = Gauge("umpire_listeners", "Requests waiting on a match.", multiprocess_mode="livesum")


@functools.cache  # a fixed few (scripts; games and verdicts): prometheus_client's ``labels`` builds and locks every call
def _labelled(metric: Any, *values: str) -> Any:
    return metric.labels(*values)


def redis_time(op: str, seconds: float) -> None:
    _labelled(REDIS_SECONDS, op).observe(seconds)


def count_move(game: str, verdict: str) -> None:
    """A judged move of ``game`` in a managed match: ``verdict`` accepted, illegal or forfeit."""
    _labelled(MOVES, game, verdict).inc()


def _scrape() -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # every process's files, summed
        return generate_latest(registry)
    return generate_latest()


SERIES_MEMO = 4096  # the series of REQUESTS kept at hand, by (method, route, status): a bound, however many a client makes
_series: dict[tuple[str, str, int], Any] = {}


def time_answer(method: str, rule: Rule | None, status: int, seconds: float) -> None:
    """One answer timed, as the request log's middleware tells it (service/web/requestlog.py ``RequestLog``, which
    times every answer; create_app registers this with it): no hook or clock of its own.  A scrape of
    ``/metrics`` is not counted.  Each series is looked up once and kept (prometheus_client's ``labels`` builds
    and locks on every call)."""
    if rule is not None and rule.endpoint == "metrics.metrics":
        return
    key = (method if method in METHODS else OTHER, rule.rule if rule is not None else "(none)", status)
    series = _series.get(key)
    if series is None:
        series = REQUESTS.labels(key[0], key[1], str(status))
        if len(_series) < SERIES_MEMO:
            _series[key] = series
    series.observe(seconds)


bp = Blueprint("metrics", __name__)


@bp.get("/metrics")
def metrics() -> Any:
    """The counters of every worker; with METRICS_TOKEN set, only for its bearer."""
    token = current_app.config.get("METRICS_TOKEN")
    if token:
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), str(token).encode()):
            raise Unauthorized()  # 401 unauthorized in the one error shape (service/web/errors.py; metrics sits below it)
    return Response(_scrape(), mimetype=CONTENT_TYPE_LATEST.split(";")[0])
