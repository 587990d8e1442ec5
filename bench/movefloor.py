"""A yardstick of ``python -m bench overhead``: the floor under a managed move, what any move costs however
cheap its own work (issue 33, "Speed stays honest").  The app with all its plumbing (the body guard, the request
log and id, metrics), and ``POST /v1/matches/{id}/moves`` replaced by a view that does only what a move cannot
do without: its two round trips to Redis - the match read (``read.lua``: the match, the record's length, the
server's time) and the compare-and-set commit (``commit.lua``: the live part written back unchanged, one record
entry of a move's size, the deadline, the expiries, the wake-up) - and a small answer naming the match and the
next ply (what bench/wrk_umpire.lua reads back).  Nothing is judged: no token checked, no body schema, no rules,
no clock, no description.  Served as the bare route is (``gunicorn bench.movefloor:app``), on the Redis and
prefix of the app whose matches it moves in (``REDIS_URL``, ``REDIS_PREFIX``).  Not a way to serve the app: a
floor to measure against."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, request

from service import create_app
from service.matches.db import get_store
from service.matches.jsontext import compact
from service.matches.record import Entry


def floor_move(match_id: str) -> Any:
    body = request.get_json()
    store = get_store()
    snap = store.read(match_id)
    ply, seat = body["ply"], body["ply"] % 2
    made = Entry("move", ply, seat, seat, body["move"], snap.now_ms, snap.now_ms, (0, 0), used=1, charged=1, left=0)
    entry = compact(made.to_json())  # a move's record entry, of its size
    store.commit(match_id, snap.rev, snap.live, snap.now_ms + 600_000, [entry])
    return Response(compact({"match_id": match_id, "ply": ply + 1}), mimetype="application/json")


def make(config: dict[str, Any] | None = None) -> Flask:
    """The app as ``create_app(config)`` makes it, its managed move replaced by :func:`floor_move`."""
    app = create_app(config or {})
    assert "moves.submit_move" in app.view_functions, "the managed move's endpoint was renamed"
    app.view_functions["moves.submit_move"] = floor_move
    return app


app = make()
