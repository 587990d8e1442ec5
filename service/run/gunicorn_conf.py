"""gunicorn's settings beside the command line (service/run/serve.py passes
``--config python:service.run.gunicorn_conf``).

* When a worker exits, ``child_exit`` tells prometheus_client's multiprocess mode
  (``multiprocess.mark_process_dead``, as its documentation for gunicorn says): its live gauges
  (``umpire_listeners``) leave the metrics every worker reports (service/web/metrics.py), so a restarted
  worker's listeners are not counted twice.
* Under the gevent worker, each request ends with a cooperative yield (``post_request``): a greenlet
  whose keep-alive connection already holds its client's next request would otherwise read it at once
  and never give the event loop a turn, so one busy connection served request after request while the
  others' requests waited in their sockets.  Measured (BENCHMARKS.md "Cost per request"): a bare Flask
  route at 16 connections, p99 77-153 ms without the yield, 18-20 ms with it; tested, counted rather
  than timed, by tests/test_fairness.py.
* The yield waits for the loop's next turn (:func:`next_turn`), not ``gevent.sleep(0)``, which resumes
  the greenlet before the loop polls again (gevent's own documentation says so).  Measured (issue 20,
  ``bench overhead``; the same code otherwise, alternated): a Catchup ``play``'s p99 at 16 connections
  13-27 ms with ``sleep(0)``, 9-10 ms with the turn, at the same throughput, against 4.6-5.5 ms for a
  bare route on sync workers.  tests/test_gunicorn_conf.py holds the turn.
* After the app is loaded, ``gc.freeze()`` (``post_worker_init``), and the worker's liveness beats start
  (service/matches/liveness.py: a worker that serves keeps every shard's beat fresh, RULES R-T3), and its
  bots' searchers (service/api/suggest.py ``warm``: processes of their own, started after the fork).
* The request line may be up to 8190 bytes (``limit_request_line``, the most gunicorn's documentation allows
  but for 0, no limit): the app answers a target over 4096 bytes itself, ``414 uri_too_long`` in the error
  shape (service/web/requestlog.py ``MAX_TARGET_BYTES``), where gunicorn's own 414 below 4094 was a page of HTML.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from typing import Any

from flask import Flask

from service.api import suggest
from service.matches import liveness

limit_request_line = 8190  # gunicorn's setting (its most, but for 0: no limit); the app refuses targets over 4096

_yield: Callable[[], Any] | None = None  # next_turn in a gevent worker, else None
TURN_S = 1e-6  # any time above 0 makes gevent.sleep wait for the loop's next turn


def next_turn() -> None:
    """Give the current greenlet up until the event loop has gone round once (polled its sockets and run
    what they woke): ``gevent.sleep`` with a time above 0 waits on a timer, which the loop runs only on its
    next turn, where ``gevent.sleep(0)`` may resume the greenlet in the same turn."""
    import gevent  # type: ignore[import-untyped]

    gevent.sleep(TURN_S)


def post_worker_init(worker: Any) -> None:
    """After the app is loaded: its objects (modules, tables, the games) move to the collector's permanent
    generation, so that a full collection no longer walks them all (measured: 22 ms a full collection
    before, none after), and the gevent worker's yield is set up."""
    global _yield
    gc.freeze()
    app = getattr(worker, "wsgi", None)
    # Not gunicorn's stand-in for an app that failed to load, nor another Flask app served with these settings
    # (bench/bare.py, bench overhead's yardstick): only the umpire's app has beats to keep.
    if isinstance(app, Flask) and "BEAT_S" in app.config:
        liveness.keep(app)
        suggest.warm(app)  # the bots' searchers, started after the fork (SUGGEST_WARM)
    if type(worker).__module__ == "gunicorn.workers.ggevent":
        _yield = next_turn


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    if _yield is not None:
        _yield()  # the other connections' requests get their turn before this one's next


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
