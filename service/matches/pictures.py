"""A managed match's pictures and posts over HTTP (API.md "Pictures, posts and the page"):

    GET /v1/matches/{id}/board.svg, board.png, post   (?ply=N and drawing options)

The match's position now or after any earlier ply is rebuilt by
:func:`service.matches.history.history` (the one function that reads a match here).
A position that can no longer change - any earlier ply, or the end of a
finished match - is answered with an ``ETag`` (the hash of what is drawn)
and ``Cache-Control: immutable``; ``If-None-Match`` gets ``304`` before any
PNG is rendered.  Pictures of the latest position of a match in play carry
the running clock, so they are never cached.

A match's picture of a position that can no longer change is kept in Redis
under the match's hash tag (at most ``PICTURE_CACHE_PER_MATCH``, expiring
after ``PICTURE_CACHE_TTL_S``), so it is rendered once for every app process
(service/api/pictures.py renders it, on a budget).

These views are on service/api/pictures.py's blueprint (``pictures``), whose
endpoints the picture budgets name (service/web/ratelimit.py).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

import redis
from flask import Response, current_app, request, url_for

from service.api.pictures import PNG, SVG, Json, bp, png, query_error
from service.matches.db import get_store
from service.matches.description import picture_ply
from service.matches.history import History, history
from service.web import schemas
from service.web.http import whole_number
from views import posts

log = logging.getLogger(__name__)

FOREVER = "public, max-age=31536000, immutable"


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


def _int_arg(name: str, low: int, high: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    value = whole_number(raw)
    if value is None or value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise query_error(name, f"{name} must be a whole number {span}.")
    return value


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
            raise query_error("palette", f"palette must be one of {', '.join(schemas.PALETTES)}.")
        coords_raw = request.args.get("coords", "false").lower()
        if coords_raw not in ("true", "false", "1", "0"):
            raise query_error("coords", "coords must be true or false.")
        names = None
        raw_names = request.args.get("names")
        if raw_names is not None:
            if not schemas.NAMES_QUERY_RE.fullmatch(raw_names):
                raise query_error(
                    "names", "names must be two names of 1 to 60 characters separated by a comma, player 0's first."
                )
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
    return h.svg(draw.palette, draw.coords, draw.names)


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
        raise query_error("format", f"format must be one of {', '.join(posts.FORMATS)}.")
    h = _match_position(match_id)
    shown = picture_ply(h.before, h.state)  # the picture of this very position
    query: Json = {} if shown is None else {"ply": shown}
    if draw.names is not None:
        query["names"] = ",".join(draw.names)
    if draw.palette != "default":
        query["palette"] = draw.palette
    png_url = url_for("pictures.match_png", match_id=match_id, _external=True, **query)
    text = h.post(fmt, png_url, draw.names)
    return _answer(h, posts.MEDIA_TYPES[fmt], text, lambda _: text, "post", fmt)
