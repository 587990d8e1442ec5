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
worker answers ``/metrics`` with the sum of all of them (``make run`` sets the
folder; service/run/gunicorn_conf.py drops a dead worker's live gauges).  Without
the variable, one process's own figures.  A gevent worker keeps its answers'
timings and writes them together within ``FLUSH_S`` (``batch_timings``).

The Flask side is one observer of the request log's (every answer, timed) and one view, registered on
every app the factory makes (prometheus-flask-exporter hooks only the first
app of a process, which a test run or a tool making several apps defeats).
"""

from __future__ import annotations

import atexit
import hmac
import math
import os
from bisect import bisect_left
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)
from werkzeug.exceptions import Unauthorized
from werkzeug.routing import Rule

from service.web import requestlog

SERIES_MEMO = 4096  # series kept at hand per app
# The methods a request's series is labelled with; any other is OTHER.  gunicorn lets through any method of 3 to
# 20 characters with no lower-case letter, and each made a series that lived as long as the process, in memory
# and in the metrics file every scrape reads: 20,000 made-up methods made 134 MB of files, 294 MB more in the
# worker and an 8 s scrape (issue 20, "Hold under attack"; bench/bench_methods.py, tests/test_metrics_batching.py).
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"))
OTHER = "(other)"
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5)

_pid = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _pid.__setitem__(0, os.getpid()))


def process_id() -> int:
    """This process's id, as os.getpid() gives it, without a system call each time: kept, and taken again in a
    forked child."""
    return _pid[0]


# In multiprocess mode (PROMETHEUS_MULTIPROC_DIR) every change of a value asks whether the process has forked, by
# default with os.getpid(): a system call, two for each request timed, 3.5% of a worker's time serving
# GET /v1/games (issue 20, "Cost per request"; py-spy, BENCHMARKS.md).  prometheus_client takes a function of
# our own (its ``process_identifier``): distinct in processes running at once, as process_id() is.  Set before
# any metric is made (each value is made by ValueClass); tests/test_request_cost.py forks to hold it to that.
MULTIPROCESS_VALUE: Any = None
if values.ValueClass is not values.MutexValue:
    MULTIPROCESS_VALUE = values.ValueClass = values.MultiProcessValue(process_identifier=process_id)  # type: ignore[no-untyped-call]

REQUESTS = Histogram(
    "umpire_http_request_duration_seconds", "HTTP requests, by route and status.", ["method", "route", "status"], buckets=BUCKETS
)
MOVES = Counter("umpire_moves_total", "Moves judged in managed matches.", ["game", "verdict"])
FLAGS = Counter("umpire_flags_total", "Flags applied (R-T1, R-X6).", ["game"])
REDIS_SECONDS = Histogram("umpire_redis_seconds", "Redis scripts, by kind.", ["op"], buckets=BUCKETS)
REDIS_ERRORS = Counter("umpire_redis_errors_total", "Redis failures answered 503.", ["reason"])
LISTENERS = Gauge("umpire_listeners", "Requests waiting on a match.", multiprocess_mode="livesum")


def redis_time(op: str, seconds: float) -> None:
    REDIS_SECONDS.labels(op).observe(seconds)


def _scrape() -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # every process's files, summed
        return generate_latest(registry)
    return generate_latest()


# The answers' timings kept in memory and written to their series together (batch_timings): what each series of
# REQUESTS has been told since the last write, as [its sum, its count in each bucket...], and what writes them
# in FLUSH_S (gevent.spawn_later), or None while each timing is written as it comes.
FLUSH_S = 0.5
_BOUNDS = (*map(float, BUCKETS), math.inf)  # a series' buckets as prometheus_client makes them (+Inf last)
_later: requestlog.Later | None = None
_pending: list[Any] = []  # what the calls of _later gave (greenlets) and may be waiting still: stop_batching cancels them
_kept: dict[Any, list[float]] = {}


def can_batch(series: Any) -> bool:
    """Whether a series of REQUESTS is made as :func:`flush_timings` writes it: a sum, and one count for each
    of :data:`_BOUNDS` in that order (prometheus_client's Histogram, whose parts these are)."""
    bounds = getattr(series, "_upper_bounds", None)
    buckets = getattr(series, "_buckets", None)
    return hasattr(series, "_sum") and bounds is not None and tuple(bounds) == _BOUNDS and len(buckets or ()) == len(_BOUNDS)


def batch_timings(later: requestlog.Later) -> None:
    """From now on the answers' timings are kept in memory and written to their series at most
    :data:`FLUSH_S` after the first of them (``later(FLUSH_S, flush_timings)``: gevent.spawn_later in a gevent
    worker), each series' sum once and each bucket it reached once, however many answers came: in
    multiprocess mode each ``observe`` was two writes to a shared file under a lock, about a tenth of a
    ``GET /v1/games`` (issue 20, "Cost per request"; BENCHMARKS.md).  A scrape writes this process's first;
    service/run/gunicorn_conf.py calls this after a gevent worker starts, and :func:`flush_timings` as it
    exits.  Should prometheus_client make a series otherwise (:func:`can_batch`), the first series says so
    and each timing is written as it comes again."""
    global _later
    _later = later
    atexit.register(flush_timings)


def stop_batching() -> None:
    """Each timing written as it comes again, the kept ones first."""
    global _later
    flush_timings()
    _later = None
    requestlog.cancel(_pending)


def flush_timings() -> None:
    """The timings kept since the last write, written now, as as many ``observe`` calls would have left the
    series (the sums added up first, so a sum may differ from one added to each time in its last bits)."""
    global _kept
    kept, _kept = _kept, {}
    for series, (total, *counts) in kept.items():
        series._sum.inc(total)
        for bucket, n in zip(series._buckets, counts, strict=True):
            if n:
                bucket.inc(n)


def init_app(app: Flask) -> None:
    """Every answer of this app timed, told by the request log's middleware (service/web/requestlog.py
    ``RequestLog``, which times it): no hook, clock or request lookup of its own (issue 20, "Cost per
    request"); under :func:`batch_timings`, written together, within :data:`FLUSH_S`.  A scrape of
    ``/metrics`` is not counted."""
    series: dict[tuple[str, str, int], Any] = {}  # each (method, route, status)'s histogram, looked up once

    def _done(method: str, rule: Rule | None, status: int, seconds: float) -> None:
        if rule is not None and rule.endpoint == "metrics.metrics":
            return
        key = (method if method in METHODS else OTHER, rule.rule if rule is not None else "(none)", status)
        child = series.get(key)
        if child is None:
            child = REQUESTS.labels(key[0], key[1], str(status))
            if _later is not None and not can_batch(child):
                stop_batching()
            if len(series) < SERIES_MEMO:
                series[key] = child
        if _later is None:
            child.observe(seconds)
            return
        kept = _kept.get(child)
        if kept is None:
            if not _kept:  # the first timing since the last write: the next write, FLUSH_S from now
                requestlog.schedule(_pending, _later, FLUSH_S, flush_timings)
            kept = _kept[child] = [0.0] * (1 + len(_BOUNDS))
        kept[0] += seconds
        kept[1 + bisect_left(_BOUNDS, seconds)] += 1  # observe's bucket: the first bound the time is within

    requestlog.observe(app, _done)


bp = Blueprint("metrics", __name__)


@bp.get("/metrics")
def metrics() -> Any:
    """The counters of every worker; with METRICS_TOKEN set, only for its bearer."""
    token = current_app.config.get("METRICS_TOKEN")
    if token:
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), str(token).encode()):
            raise Unauthorized()  # 401 unauthorized in the one error shape (service/web/errors.py; metrics sits below it)
    requestlog.flush_lines()  # the answers this process has kept, told to their observers (these timings)
    flush_timings()  # and its kept timings written, so that what it answers counts all it has seen
    return Response(_scrape(), mimetype=CONTENT_TYPE_LATEST.split(";")[0])
