"""Pictures and posts over HTTP: the service side of ``views/`` (API.md
"Pictures, posts and the page").

Stateless, from a state a client sends (validated by the engine like every
state):

    POST /v1/games/{game}/render   svg, png or text of a position
    POST /v1/games/{game}/post     the umpire's post (Markdown, Discord's, BBCode or plain text)
    GET  /v1/games/{game}/board    the board's geometry, for front ends that draw their own

And a managed match's position now or after any earlier ply, rebuilt by
:func:`service.matches.history.history` (the one function that reads a match here):

    GET /v1/matches/{id}/board.svg, board.png, post   (?ply=N and drawing options)

A position that can no longer change - any earlier ply, or the end of a
finished match - is answered with an ``ETag`` (the hash of what is drawn)
and ``Cache-Control: immutable``; ``If-None-Match`` gets ``304`` before any
PNG is rendered.  Pictures of the latest position of a match in play carry
the running clock, so they are never cached.

PNG pictures cost CPU (tens of milliseconds, about a second at the largest
width, ``MAX_WIDTH`` 2048 pixels), so (issue 20, service/web/guard.py):

* they are rendered by a small pool of processes of their own
  (service/api/renderer.py), never in the worker's event loop; a full queue is
  ``503 render_busy`` with ``Retry-After`` at once;
* a match's picture of a position that can no longer change is kept in Redis
  under the match's hash tag (at most ``PICTURE_CACHE_PER_MATCH``, expiring
  after ``PICTURE_CACHE_TTL_S``), so it is rendered once for every app
  process; each process also keeps its last pictures (16 MiB);
* a rendering is charged to the client's address on a budget of its own,
  ``PNG_RATE_LIMIT`` (``429 rate_limited``); a cached picture is free.

The views hold no rules and no HTTP; this module holds neither pictures nor
rules: it reads requests, has the engine check what it is given, and calls
``views``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from flask import Blueprint, Flask, Response, current_app, request, url_for

import views
from engine.errors import BadState
from engine.game import RESERVED
from engine.registry import get_game
from service.api import renderer
from service.matches.db import get_store
from service.matches.history import History, history, picture_ply
from service.web import ratelimit, schemas
from service.web.errors import ApiError, field_details
from service.web.http import json_body
from service.web.signing import verified
from views import posts

log = logging.getLogger(__name__)

bp = Blueprint("pictures", __name__, url_prefix="/v1")

Json = dict[str, Any]
T = TypeVar("T")

SVG = "image/svg+xml"
PNG = "image/png"
TEXT = "text/plain"
FOREVER = "public, max-age=31536000, immutable"


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
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
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


def match_png_bytes(match_id: str, digest: str, svg: str, width: int | None) -> bytes:
    """A PNG of a match's position that can no longer change: from the match's
    cache in Redis, else rendered once and kept there for every app process."""
    store, cfg = get_store(), current_app.config
    try:
        cached = store.picture(match_id, digest)
    except redis.RedisError as e:  # the cache is a saving, not a need
        log.warning("picture cache of %s: %s", match_id, e)
        cached = None
    if cached is not None:
        return cached
    picture = png(svg, width)
    try:
        store.keep_picture(match_id, digest, picture, int(cfg["PICTURE_CACHE_TTL_S"]), int(cfg["PICTURE_CACHE_PER_MATCH"]))
    except redis.RedisError as e:
        log.warning("picture cache of %s: %s", match_id, e)
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
            raise _query(name, f"{g.title}'s board takes no query parameter {name!r}; it takes: {known}.")
        if opt.type == "integer":
            if not raw.strip().lstrip("-").isdigit():
                raise _query(name, f"{name} must be a whole number.")
            options[name] = int(raw)
        elif opt.type == "boolean":
            if raw.lower() not in ("true", "false", "1", "0"):
                raise _query(name, f"{name} must be true or false.")
            options[name] = raw.lower() in ("true", "1")
        elif name == "blocked":
            options[name] = [c for c in raw.replace(",", " ").split() if c]
        else:
            options[name] = raw
    g.new(options)  # options that set up no board: 422 bad_options naming the option, as `new` answers
    return views.geometry(game, options)


# -- managed matches ------------------------------------------------------------------------


def _query(parameter: str, message: str) -> ApiError:
    return ApiError("invalid_query", message, {"parameter": parameter})


def _int_arg(name: str, low: int, high: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    if not raw.isdigit() or int(raw) < low or (high is not None and int(raw) > high):
        span = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise _query(name, f"{name} must be a whole number {span}.")
    return int(raw)


@dataclass(frozen=True)
class DrawQuery:
    """Drawing options from the query string: ``palette``, ``coords``, ``names=Ann,Bob``, ``width``."""

    palette: str
    coords: bool
    names: tuple[str, str] | None
    width: int | None

    @classmethod
    def read(cls) -> DrawQuery:
        palette = request.args.get("palette", "default")
        if palette not in schemas.PALETTES:
            raise _query("palette", f"palette must be one of {', '.join(schemas.PALETTES)}.")
        coords_raw = request.args.get("coords", "false").lower()
        if coords_raw not in ("true", "false", "1", "0"):
            raise _query("coords", "coords must be true or false.")
        names = None
        raw_names = request.args.get("names")
        if raw_names is not None:
            if not schemas.NAMES_QUERY_RE.fullmatch(raw_names):
                raise _query("names", "names must be two names of 1 to 60 characters separated by a comma, player 0's first.")
            first, second = (p.strip() or p for p in raw_names.split(","))
            names = (first, second)
        width = _int_arg("width", schemas.MIN_WIDTH, schemas.MAX_WIDTH)
        return cls(palette, coords_raw in ("true", "1"), names, width)


def _match_position(match_id: str) -> History:
    """The position ``?ply=N`` names: the state's own ply, as the picture, its
    alt text and the post's heading say it (the first position with that ply;
    the latest without ``ply``)."""
    return history(get_store(), match_id, _int_arg("ply", 0), by_state_ply=True)


def _etag(drawn: str, key: tuple[object, ...]) -> str:
    digest = hashlib.sha256(drawn.encode())
    digest.update(repr(key).encode())
    return digest.hexdigest()[:32]


def _answer(h: History, mimetype: str, drawn: str, make: Callable[[str], str | bytes], *key: object) -> Response:
    """The answer ``make(etag)`` gives.  For a position that can no longer change,
    with an ETag - the hash of what is ``drawn`` (the SVG or the post) and
    ``key`` (format, width) - and ``304`` before ``make`` runs when the client
    has it already (so a cached PNG is never rendered again)."""
    if not h.settled:
        resp = Response(make(""), mimetype=mimetype)
        resp.headers["Cache-Control"] = "no-store"  # the clock runs: drawn anew each time
        return resp
    etag = _etag(drawn, key)
    resp = Response(status=304) if etag in request.if_none_match else Response(make(etag), mimetype=mimetype)
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = FOREVER
    return resp


def _match_svg(h: History, draw: DrawQuery) -> str:
    names = draw.names or h.players
    return views.svg(h.state, events=h.events, palette=draw.palette, coords=draw.coords, names=names, clock=h.clock)


@bp.get("/matches/<match_id>/board.svg")
def match_svg(match_id: str) -> Response:
    draw = DrawQuery.read()
    h = _match_position(match_id)
    picture = _match_svg(h, draw)
    return _answer(h, SVG, picture, lambda _: picture, "svg")


@bp.get("/matches/<match_id>/board.png")
def match_png(match_id: str) -> Response:
    draw = DrawQuery.read()
    h = _match_position(match_id)
    picture = _match_svg(h, draw)

    def make(etag: str) -> bytes:
        if not etag:  # the latest position of a match in play (its clock runs): never cached
            return png(picture, draw.width)
        return match_png_bytes(match_id, etag, picture, draw.width)

    return _answer(h, PNG, picture, make, "png", draw.width)


@bp.get("/matches/<match_id>/post")
def match_post(match_id: str) -> Response:
    """The forum post of the position after ``ply``: its announcements, the
    diagram, a link to its PNG (an absolute URL), whose turn, both clocks."""
    draw = DrawQuery.read()
    fmt = request.args.get("format", "markdown")
    if fmt not in posts.FORMATS:
        raise _query("format", f"format must be one of {', '.join(posts.FORMATS)}.")
    h = _match_position(match_id)
    shown = picture_ply(h.before, h.state)  # the picture of this very position
    query: Json = {} if shown is None else {"ply": shown}
    if draw.names is not None:
        query["names"] = ",".join(draw.names)
    if draw.palette != "default":
        query["palette"] = draw.palette
    png_url = url_for("pictures.match_png", match_id=match_id, _external=True, **query)
    # A resignation or a time-out is announced, not "played".
    move = h.move if h.move is not None and h.move.split()[0] not in RESERVED else None
    text = views.post(
        h.state,
        events=h.events,
        before=h.before,
        move=move,
        png_url=png_url,
        clock=h.clock,
        names=draw.names or h.players,
        format=fmt,
    )
    return _answer(h, posts.MEDIA_TYPES[fmt], text, lambda _: text, "post", fmt)
