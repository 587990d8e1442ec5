"""The app itself, where a proxy will not do.

``flask.current_app`` is a proxy, good only while its context is pushed; work handed to another
thread (a renderer's, a searcher's, Discord's lanes) or kept past the request needs the app
object.  ``create_app`` keeps it among the app's extensions (Flask's documented place for what
belongs to one app), and :func:`this_app` reads it back through the proxy: no private name of
Werkzeug's proxies is needed."""

from __future__ import annotations

from flask import Flask, current_app

KEY = "umpire.app"


def remember(app: Flask) -> None:
    """Keep ``app`` where :func:`this_app` finds it (create_app, first thing)."""
    app.extensions[KEY] = app


def this_app() -> Flask:
    """The app of the context pushed now (RuntimeError outside one, as ``current_app`` raises)."""
    app: Flask = current_app.extensions[KEY]
    return app
