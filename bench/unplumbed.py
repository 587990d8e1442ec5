"""A yardstick of ``python -m bench overhead``: the app with none of what every request of the service pays by
promise (issue 20, "Cost per request"), served as the bare route is (``gunicorn bench.unplumbed:app``): no body
guard (service/web/guard.py: the deadline on a body, the reading slots), no request log, request id, metrics or
``nosniff`` (service/web/requestlog.py ``RequestLog``), no flask-limiter hooks.  Flask, the routes, the strict
parse, marshmallow and the engine are left: what a ``play`` costs with its plumbing at nothing.  Not a way to
serve the app (a slow body would hold a worker): a floor to measure against."""

from __future__ import annotations

from service import create_app
from service.web.guard import BodyGuard
from service.web.requestlog import RequestLog

app = create_app({})
guard = app.wsgi_app
assert isinstance(guard, BodyGuard) and isinstance(guard.app, RequestLog), "create_app's wrapping changed"
app.wsgi_app = guard.app.app  # type: ignore[method-assign]  # Flask's own wsgi_app
for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs):
    hooks.pop(None, None)
