"""Pictures and posts over HTTP: the service side of ``views/`` (API.md
"Pictures, posts and the page").

Stateless, from a state a client sends (validated by the engine like every
state):

    POST /v1/games/{game}/render   svg, png or text of a position
    POST /v1/games/{game}/post     the umpire's post (Markdown, Discord's, BBCode or plain text)
    GET  /v1/games/{game}/board    the board's geometry, for front ends that draw their own

A managed match's pictures and posts (``GET /v1/matches/{id}/board.svg``,
``board.png``, ``post``) are service/matches/pictures.py's views, on this
module's blueprint; they render their PNGs with :func:`png` and the pool here.

PNG pictures cost CPU (tens of milliseconds, about a second at the largest
width, ``MAX_WIDTH`` 2048 pixels), so (issue 20, service/web/guard.py):

* they are rendered by a small pool of processes of their own
  (service/api/renderer.py), never in the worker's event loop; a full queue is
  ``503 render_busy`` with ``Retry-After`` at once;
* each process keeps its last pictures (16 MiB);
* a rendering is charged to the client's address on a budget of its own,
  ``PNG_RATE_LIMIT`` (``429 rate_limited``); a cached picture is free.

The views hold no rules and no HTTP; this module holds neither pictures nor
rules: it reads requests, has the engine check what it is given, and calls
``views``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Blueprint, Flask, Response, request

import views
from engine.errors import BadState
from engine.registry import get_game
from service.api import renderer
from service.web import ratelimit, schemas
from service.web.appref import this_app
from service.web.errors import ApiError, field_details
from service.web.http import json_body, whole_number
from service.web.signing import verified
from views import posts

log = logging.getLogger(__name__)

bp = Blueprint("pictures", __name__, url_prefix="/v1")

Json = dict[str, Any]
T = TypeVar("T")

SVG = "image/svg+xml"
PNG = "image/png"
TEXT = "text/plain"


def _unprocessable(field: str, message: str) -> ApiError:
    """What was sent with a state to draw it does not fit it: ``bad_state``
    naming the field (a schema cannot tell, as it cannot tell an impossible state)."""
    return ApiError("bad_state", message, field_details({field: [message]}))


@dataclass(frozen=True)
class Position:
    """A validated position with what led to it: the states as the engine
    dumps them, the move's events and its notation (when known).
    ``sent_events``: the events are the client's, not the engine's own."""

    state: Json
    before: Json | None
    events: list[Json]
    move: str | None
    sent_events: bool = False

    def draw(self, make: Callable[[], T], clock: Json | None = None) -> T:
        """``make()``, the views' drawing of this position.  The views read
        events and clocks as the engine and the matches write them; what a
        client sent in their place and the views cannot read is a 422 naming
        it, not a failure of the server."""
        try:
            return make()
        except (TypeError, KeyError, IndexError, ValueError, AttributeError) as err:
            if self.sent_events:
                why = f"{type(err).__name__}: {err}"
                raise _unprocessable("events", f"The events are not a move's events as the engine writes them ({why}).") from None
            if clock is not None:
                raise _unprocessable("clock", f"The clock is not a match's clock as the server writes it ({err}).") from None
            raise


def _load(g: Any, data: Mapping[str, Any], field: str) -> Any:
    """A client's state under ``field`` (``state``, ``before``), checked by the
    engine: BadState naming the field from the body's root.  A picture judges
    nothing, so an unsigned state is drawn even when the server signs states
    (a managed match's are never signed); a ``sig`` that is sent must be right."""
    try:
        return g.load(verified(data, field, required=False))
    except BadState as err:
        if field == "state":
            raise
        raise BadState(field + err.field.removeprefix("state"), err.message, err.code) from None


def position(g: Any, body: Mapping[str, Any]) -> Position:
    """The body's ``state``, and ``before``/``move``/``events`` checked against
    it: a move is played on ``before`` by the engine and must lead to
    ``state``; given ``events`` are taken as the engine's events of that move."""
    state = g.dump(_load(g, body["state"], "state"))
    before_json = body.get("before")
    move = body.get("move")
    events = body.get("events")
    sent = events is not None and len(events) > 0
    before = None
    if before_json is not None:
        before_state = _load(g, before_json, "before")
        before = g.dump(before_state)
        if move is not None:
            verdict = g.play(before_state, move)
            if not verdict.legal:
                assert verdict.error is not None
                raise _unprocessable("move", f"The move is not legal from the state before: {verdict.error.message}")
            if g.dump(verdict.state) != state:
                raise _unprocessable("move", f"{verdict.move} played on the state before does not give the state sent.")
            move = verdict.move
            if events is None:
                events = verdict.events
    elif move is not None and events is None:
        raise _unprocessable("before", "To tell what a move did, send the state before it too (or its events).")
    if isinstance(move, list):
        move = g.join_steps(move)
    return Position(state, before, list(events or []), move, sent)


def _names(value: list[str] | None) -> tuple[str, str] | None:
    return None if value is None else (value[0], value[1])


# -- PNG: rendered apart, cached, on a budget -------------------------------------------------


def _app() -> Flask:
    app: Flask = this_app()
    return app


def render_pool(app: Flask) -> renderer.Pool:
    """The app process's renderers (started on the first PNG)."""
    pool: renderer.Pool | None = app.extensions.get("umpire.renderers")
    if pool is None:
        cfg = app.config
        made = renderer.Pool(
            int(cfg["RENDER_PROCESSES"]) or 1, int(cfg["RENDER_QUEUE"]), float(cfg["RENDER_TIMEOUT_S"]), int(cfg["RENDER_NICE"])
        )
        pool = app.extensions.setdefault("umpire.renderers", made)  # no process starts before its first picture
    return pool


def _recent(app: Flask) -> renderer.Recent:
    recent: renderer.Recent = app.extensions.setdefault("umpire.recent_pictures", renderer.Recent())
    return recent


def _busy(message: str) -> ApiError:
    return ApiError("render_busy", f"{message} Try again in a moment.", None, {"Retry-After": "1"})


def refuse_when_full() -> None:
    """``503 render_busy`` before any work on a picture when the pool could not take it anyway:
    a client that asks again at once costs a parse, not a state checked and an SVG drawn."""
    if render_pool(_app()).full:
        raise _busy("Every picture renderer is busy and the queue is full.")


def png(svg: str, width: int | None) -> bytes:
    """The PNG of ``svg``: this process's copy when it has one, else rendered
    by the pool (charged to the client's render budget first)."""
    app = _app()
    recent = _recent(app)
    found = recent.get(svg, width)
    if found is not None:
        return found
    ratelimit.charge_render()
    try:
        picture = render_pool(app).render(svg, width)
    except renderer.Busy as e:
        raise _busy(str(e)) from None
    recent.put(svg, width, picture)
    return picture


# -- stateless ------------------------------------------------------------------------------


@bp.post("/games/<game>/render")
def render(game: str) -> Response:
    g = get_game(game)
    body = json_body(schemas.render_request)
    fmt = body["format"]
    if fmt == "png":
        refuse_when_full()
    pos = position(g, body)
    names = _names(body["names"])
    if fmt == "text":
        text = pos.draw(lambda: views.text(pos.state, events=pos.events, coords=body["coords"], names=names))
        return Response(text, mimetype=TEXT)
    picture = pos.draw(
        lambda: views.svg(
            pos.state, events=pos.events, palette=body["palette"], coords=body["coords"], names=names, clock=body["clock"]
        ),
        body["clock"],
    )
    if fmt == "svg":
        return Response(picture, mimetype=SVG)
    return Response(png(picture, body["width"]), mimetype=PNG)


@bp.post("/games/<game>/post")
def post(game: str) -> Response:
    g = get_game(game)
    body = json_body(schemas.post_request)
    pos = position(g, body)
    text = pos.draw(
        lambda: views.post(
            pos.state,
            events=pos.events,
            before=pos.before,
            move=pos.move,
            png_url=body["png_url"],
            clock=body["clock"],
            names=_names(body["names"]),
            ply=body["ply"],
            format=body["format"],
        ),
        body["clock"],
    )
    return Response(text, mimetype=posts.MEDIA_TYPES[body["format"]])


@bp.get("/games/<game>/board")
def board(game: str) -> Any:
    """The board of the options in the query (``size=4&variant=green-meadow&blocked=A1,B2``),
    checked by the engine as ``new`` checks them."""
    g = get_game(game)
    declared = {opt.name: opt for opt in g.options}
    options: Json = {}
    for name, raw in request.args.items():
        opt = declared.get(name)
        if opt is None or not opt.in_query:
            known = ", ".join(n for n, o in declared.items() if o.in_query) or "none"
            raise query_error(name, f"{g.title}'s board takes no query parameter {name!r}; it takes: {known}.")
        if opt.type == "integer":
            value = whole_number(raw.strip())
            if value is None:
                raise query_error(name, f"{name} must be a whole number.")
            options[name] = value
        elif opt.type == "boolean":
            if raw.lower() not in ("true", "false", "1", "0"):
                raise query_error(name, f"{name} must be true or false.")
            options[name] = raw.lower() in ("true", "1")
        elif name == "blocked":
            options[name] = [c for c in raw.replace(",", " ").split() if c]
        else:
            options[name] = raw
    g.new(options)  # options that set up no board: 422 bad_options naming the option, as `new` answers
    return views.geometry(game, options)


def query_error(parameter: str, message: str) -> ApiError:
    return ApiError("invalid_query", message, {"parameter": parameter})
