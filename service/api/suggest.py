"""``POST /v1/games/{game}/suggest``: a built-in bot's move for a state, so a
front end can offer a computer opponent (issue 23).

The body is ``{"state", "bot", "budget_s"}``: a state as ``play`` takes it
(signed when the server signs states), one of the built-in bots of the
tournament harness (``random``, ``greedy``, ``mcts``, ``strong``: umpire/bots/),
and at most how many seconds it may think (``budget_s``, more than 0 and at
most ``SUGGEST_MAX_BUDGET_S``, 2 s by default, else ``422 budget_too_large``;
left out, ``DEFAULT_BUDGET_S`` or the maximum if lower).  The answer is
``{"move", "bot", "spent_s"}``: a legal move in the game's notation and the
seconds the bot spent on it.  ``mcts`` and ``strong`` use their whole budget;
``random`` and ``greedy`` answer as soon as they have chosen (``greedy``
stops judging moves when the budget is spent).

The answer comes within ``budget_s`` plus ``searcher.MARGIN_S`` (0.05 s) of
the moment this view starts, always: the budget counts the wait for a
searcher and its thinking alike, and what cannot be done in time is ``503
search_busy`` with ``Retry-After`` (service/api/searcher.py says how).

The search runs in a searcher process (service/api/searcher.py), never in the
worker's event loop: a full queue is ``503 search_busy`` with
``Retry-After``.  ``SUGGEST_WARM`` (on, except in a TESTING app) has each
worker start its searchers as it boots (:func:`warm`, called by
service/run/gunicorn_conf.py ``post_worker_init``), so that a first
suggestion does not wait for a process to start, and no request pays a hook
for it.  Searches have a rate limit of their own,
``SUGGEST_RATE_LIMIT`` per client address (service/web/ratelimit.py), besides
``RATE_LIMIT``.  No game is named here: the bots play any registered game.
"""

from __future__ import annotations

import math
import os
from typing import Any

from flask import Blueprint, Flask

from engine.registry import ROOMS, get_game
from service.api import searcher
from service.web import schemas
from service.web.appref import this_app
from service.web.errors import ApiError
from service.web.http import json_body
from service.web.signing import verified

bp = Blueprint("suggest", __name__, url_prefix="/v1")

DEFAULT_BUDGET_S = 0.5
MOST_BUDGET_S = 60.0  # SUGGEST_MAX_BUDGET_S is at most this (the spec's maximum of budget_s)

SETTINGS: dict[str, Any] = {
    "SUGGEST_MAX_BUDGET_S": 2.0,  # the longest a bot may think for one suggestion (seconds)
    "SUGGEST_PROCESSES": 1,  # searcher processes per app process
    "SUGGEST_QUEUE": 2,  # requests per app process that may wait for a searcher; one more is 503 search_busy
    "SUGGEST_NICE": 10,  # the searchers' CPU priority (nice), below the workers'
    "SUGGEST_RATE_LIMIT": "30/minute",  # per client address, flask-limiter syntax; off: none (service/web/ratelimit.py)
    "SUGGEST_WARM": None,  # searchers started as a worker boots (1) or by the first search (0); unset: 1 unless TESTING
}


def _flag(raw: str) -> bool:
    if raw.lower() in ("1", "true", "on", "yes"):
        return True
    if raw.lower() in ("0", "false", "off", "no"):
        return False
    raise ValueError(raw)


ENV_TYPES: dict[str, Any] = {
    "SUGGEST_MAX_BUDGET_S": float,
    "SUGGEST_PROCESSES": int,
    "SUGGEST_QUEUE": int,
    "SUGGEST_NICE": int,
    "SUGGEST_WARM": _flag,
}


def search_pool(app: Flask) -> searcher.Pool:
    """The app process's searchers (each started on its first search)."""
    pool: searcher.Pool | None = app.extensions.get("umpire.searchers")
    if pool is None:
        cfg = app.config
        made = searcher.Pool(
            max(1, int(cfg["SUGGEST_PROCESSES"])),
            max(0, int(cfg["SUGGEST_QUEUE"])),
            wait_s=float(cfg["SUGGEST_MAX_BUDGET_S"]),
            nice=int(cfg["SUGGEST_NICE"]),
            warm=True,  # the pool is made when it is first needed: its searchers start then, replaced at once when one fails
        )
        pool = app.extensions.setdefault("umpire.searchers", made)
    return pool


def _busy(message: str, budget_s: float) -> ApiError:
    retry = str(max(1, math.ceil(budget_s)))
    return ApiError("search_busy", f"{message} Try again in a moment.", None, {"Retry-After": retry})


@bp.post("/games/<game>/suggest")
def suggest(game: str) -> Any:
    started = searcher.clock()  # the budget runs from here: reading the state and waiting for a searcher count
    g = get_game(game)
    body = json_body(schemas.suggest_request)
    app: Flask = this_app()
    most = float(app.config["SUGGEST_MAX_BUDGET_S"])
    budget_s = body["budget_s"]
    if budget_s is None:
        budget_s = min(DEFAULT_BUDGET_S, most)
    elif budget_s > most:  # the spec allows up to MOST_BUDGET_S: this server's bound is a setting
        message = f"budget_s is at most {most:g} seconds on this server (SUGGEST_MAX_BUDGET_S)."
        raise ApiError("budget_too_large", message, {"field": "budget_s", "fields": {"budget_s": [message]}, "max": most})
    state = g.load(verified(body["state"]))
    if g.is_over(state):
        raise ApiError("game_over", f"This {g.title} game is over: there is no move to suggest.")
    bot = body["bot"]
    room = ROOMS[g.name]
    if (bot == "greedy" and room.evaluation is None) or (bot == "strong" and room.guide is None):
        needs = "a position evaluation" if bot == "greedy" else "a guide (a value of positions and priors over steps)"
        raise ApiError("bot_unavailable", f"The {bot} bot needs {needs}, which {g.title} does not declare.", {"bot": bot})
    pool = search_pool(app)
    try:
        found = pool.suggest(g.name, g.dump(state), bot, budget_s, started)
    except searcher.Busy as e:
        raise _busy(str(e), budget_s) from None
    return schemas.suggest_response.dump({"move": found.move, "bot": bot, "spent_s": found.spent_s})


def configure(app: Flask) -> None:
    """The settings, from the environment unless the app's config says otherwise (create_app registers the route)."""
    for name, default in SETTINGS.items():
        if name in app.config:
            continue
        raw = os.environ.get(name)
        if not raw:  # empty is unset, as for every setting
            app.config[name] = default
            continue
        try:
            app.config[name] = ENV_TYPES.get(name, str)(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not a valid setting") from None
    most = float(app.config["SUGGEST_MAX_BUDGET_S"])
    if not 0 < most <= MOST_BUDGET_S:
        raise ValueError(f"SUGGEST_MAX_BUDGET_S must be more than 0 and at most {MOST_BUDGET_S:g} seconds, not {most!r}")
    if app.config["SUGGEST_WARM"] is None:
        app.config["SUGGEST_WARM"] = not app.testing


def warm(app: Flask) -> None:
    """Start ``app``'s searchers now when ``SUGGEST_WARM`` is on (a worker as it boots, after the fork:
    service/run/gunicorn_conf.py); the pool, made, starts them."""
    if app.config["SUGGEST_WARM"]:
        search_pool(app)
