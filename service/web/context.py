"""The app and the request being answered, without Flask's proxies.

``flask.current_app`` and ``flask.request`` are proxies: each use of one goes through werkzeug's ``LocalProxy``
(a descriptor, a bound function, the context variable, the attribute), about 0.6 µs, where the context
variable itself answers in a twentieth of that.  A ``play`` asked for the app's settings three times (issue 20,
"Cost per request": 1.6% of its instructions, cachegrind).  These read Flask's context variables
(``flask.globals``, as its proxies do); outside a context they fall back to the proxies, which raise as Flask
does."""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, current_app, request
from flask.config import Config
from flask.globals import _cv_app, _cv_request


def app() -> Flask:
    """``current_app``'s app."""
    ctx = _cv_app.get(None)
    return ctx.app if ctx is not None else current_app._get_current_object()  # type: ignore[attr-defined]


def config() -> Config:
    """``current_app.config``."""
    return app().config


def current_request() -> Request:
    """``request``'s request."""
    ctx: Any = _cv_request.get(None)
    return ctx.request if ctx is not None else request._get_current_object()  # type: ignore[attr-defined,no-any-return]
