"""A yardstick of ``python -m bench overhead``: the app with none of what every request of the service pays by
promise (issue 20, "Cost per request"), served as the bare route is (``gunicorn bench.unplumbed:app``): no body
guard (service/web/guard.py: the deadline on a body, the reading slots), no request log, request id, metrics or
``nosniff`` (service/web/requestlog.py ``RequestLog``), no flask-limiter hooks.  Flask, the routes, the strict
parse, marshmallow and the engine are left: what a ``play`` costs with its plumbing at nothing.  Not a way to
serve the app (a slow body would hold a worker): a floor to measure against."""

from __future__ import annotations

from bench.cutview import make

app = make("play", "all")  # the whole play, none of the plumbing
