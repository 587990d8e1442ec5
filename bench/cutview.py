"""A yardstick of ``python -m bench served_steps``: the app as ``create_app`` makes it, with ``play`` cut short after
one of its steps, or a piece of its plumbing taken out (served as the bare route is, through gunicorn's call of
a factory: ``gunicorn 'bench.cutview:make("body", "guard")'``).  What each step and each piece costs a served
request is the difference between two of these, measured side by side (issue 20, "Cost per request").  Not a
way to serve the app: a floor to measure against.

``cut`` (the steps of service/api/games.py ``play``, each including those before it):

* ``body``: the body read (as the bare route's ``POST``), nothing parsed;
* ``parse``: ``json_body``: the strict parse, the limits and the schema;
* ``load``: the state's signature read and the game's ``load`` of it;
* ``rules``: the move played;
* ``answer``: the new state dumped and signed, the verdict made (no announcements);
* ``play``: the whole of ``play``, announcements included (the app's own view).

Every cut before ``answer`` answers ``{"ok": true}``.  ``unplumb`` takes out ``guard`` (the body guard),
``log`` (the request log, with its id, line and metrics), ``line`` (the request log's line only: the access
logger off), ``metrics`` (the metrics observer only), or ``all`` (nothing of it: bench/unplumbed.py's app).
bench/emptyview.py and bench/unplumbed.py, ``bench overhead``'s yardsticks, are two of these."""

from __future__ import annotations

import logging
from typing import Any

from flask import request

import views
from engine.registry import get_game
from service import create_app
from service.api import games
from service.web import requestlog, schemas, signing
from service.web.guard import BodyGuard
from service.web.http import json_body
from service.web.requestlog import OBSERVERS, RequestLog
from service.web.signing import signed

CUTS = ("body", "parse", "load", "rules", "answer", "play")
UNPLUMBS = ("", "guard", "log", "line", "metrics", "all")


def make(cut: str, unplumb: str = "") -> Any:
    """The app with ``play`` cut after ``cut`` and ``unplumb``'s piece of the plumbing out."""
    if cut not in CUTS or unplumb not in UNPLUMBS:
        raise ValueError(f"cut is one of {CUTS}, unplumb one of {UNPLUMBS}")
    app = create_app({})
    step = CUTS.index(cut)

    def cut_short(game: str) -> Any:
        if step == 0:
            request.get_data()
            return {"ok": True}
        g = get_game(game)
        body = json_body(schemas.play_request)
        if step == 1:
            return {"ok": True}
        sent, origin = signing.read(body["state"])
        state = g.load(sent)
        if step == 2:
            return {"ok": True}
        verdict = g.play(state, body["move"])
        if step == 3:
            return {"ok": True}
        after = signed(g.dump(verdict.state), origin)
        said = views.announcements(sent, verdict.events, after) if step == 5 else []
        return schemas.verdict_json(True, after, move=verdict.move, events=verdict.events, announcements=said)

    if cut != "play":
        app.view_functions["games.play"] = cut_short
    else:
        assert app.view_functions["games.play"] is games.play
    guard = app.wsgi_app
    assert isinstance(guard, BodyGuard) and isinstance(guard.app, RequestLog), "create_app's wrapping changed"
    if unplumb == "guard":
        app.wsgi_app = guard.app  # type: ignore[method-assign]
    elif unplumb == "log":
        guard.app = guard.app.app
    elif unplumb == "line":
        requestlog.access.setLevel(logging.WARNING)
    elif unplumb == "metrics":
        app.extensions[OBSERVERS].clear()
    elif unplumb == "all":
        app.wsgi_app = guard.app.app  # type: ignore[method-assign]
        for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs):
            hooks.pop(None, None)
    return app
