"""Managed matches over HTTP, the resource itself: ``POST /v1/matches`` (through :func:`create`,
the operation that makes a match, which the Discord adapter calls too), ``GET /v1/matches/{id}``
(read, or wait for a change: a waiting request sleeps on the process's hub,
service/matches/hub.py) and ``GET /v1/matches`` (an umpire's listing).
A match's moves and resignations are service/matches/moves.py's, its umpire's controls
service/matches/controls.py's (API.md "Managed matches").
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, current_app, request

from engine.clock import STARTS, spec_from
from engine.errors import BadOptions
from engine.registry import PRESETS, get_game
from service.matches import outbox, referee
from service.matches.access import bearer, require_admin, require_seat
from service.matches.answers import match_view, with_legal
from service.matches.cas import Settled
from service.matches.changes import read
from service.matches.db import get_positions, get_store
from service.matches.events import Listening
from service.matches.keys import new_match_id
from service.matches.match import Live, Meta, token_hash
from service.matches.query import number
from service.matches.record import iso
from service.matches.store import Unconfirmed
from service.web import schemas
from service.web.errors import ApiError
from service.web.http import json_body, whole_number

bp = Blueprint("matches", __name__, url_prefix="/v1")

WAIT_MAX_S = 30.0  # API: a read waits at most this long
TOKEN_BYTES = 24  # 192 random bits per seat token
LIST_MAX = 200
STATUSES = ("ongoing", "finished")


@dataclass(frozen=True, slots=True)
class Made:
    """A new match: its two parts, when it was made, the engine's state, and its tokens (each
    seat's, the umpire's), told only to whoever made it."""

    meta: Meta
    live: Live
    now: int
    state: Any
    seats: tuple[str, str]
    umpire: str

    @property
    def match_id(self) -> str:
        return self.meta.match_id


def create(body: dict[str, Any]) -> Made:
    """The operation that makes a match, for ``POST /v1/matches`` and the Discord adapter alike:
    ``body`` as schemas.match_create_request loads it (the game, its options, the clock and its
    start, the players' names, tags, the illegal-move policy, webhooks).  422 naming the field
    for options, a clock or a webhook the server will not take."""
    hooks = outbox.check(body["webhooks"])  # 422 naming webhooks.N.url the server will not post to (WEBHOOK_ALLOW)
    game = get_game(body["game"])
    state = game.new(body["options"])
    dumped = game.dump(state)
    raw_clock, when = _clock_start(body["clock"])
    spec = spec_from(raw_clock, game.default_preset(dumped["options"]), PRESETS)
    if spec.on_flag == "loses" and game.flag_rule != "loses":
        # A flag can only end a game whose engine ends games on time; Crystal's own rule is R-X6.
        message = f"In {game.title} a flag is handled by R-X6 (on_flag 'proxy'); it cannot lose the game."
        raise BadOptions("clock.on_flag", message)
    options = game.replay_options(body["options"], state)  # e.g. the seed the server drew (R-X1)
    players = body["players"] or [None, None]
    store = get_store()
    tokens = (secrets.token_urlsafe(TOKEN_BYTES), secrets.token_urlsafe(TOKEN_BYTES))
    umpire_token = secrets.token_urlsafe(TOKEN_BYTES)
    for _ in range(3):
        match_id = new_match_id()
        now = store.now_ms(match_id)
        live = referee.start(game, state, spec, now, when)
        meta = Meta(
            match_id, game.name, options, now, (token_hash(tokens[0]), token_hash(tokens[1])), spec,
            (players[0], players[1]), tuple(body["tags"]), body["illegal"], token_hash(umpire_token), when,
        )  # fmt: skip
        try:
            made = store.create(match_id, meta.to_json(), live.to_json(), live.clock.deadline, now, live.finished)
        except Unconfirmed as e:
            again = "Create it again: a match made without its answer has no seat anyone holds, and expires unused."
            raise e.about("the new match", again) from None
        if made:
            break
    else:  # pragma: no cover - 96 random bits clashing three times
        raise ApiError("unavailable", "Could not find a free match id; try again.")
    if hooks:  # before the answer, so before any move: the deliverer posts every change (service/matches/webhooks.py)
        outbox.register(store, match_id, hooks, live.finished)
    get_positions().put(match_id, "0", state)  # create.lua starts the rev at 0
    return Made(meta, live, now, state, tokens, umpire_token)


@bp.post("/matches")
def create_match() -> Any:
    umpire = current_app.config["UMPIRE_TOKEN"]
    if umpire and not hmac.compare_digest((bearer() or "").encode(), str(umpire).encode()):
        raise ApiError("unauthorized", "Creating a match needs the umpire token: Authorization: Bearer <token>.")
    made = create(json_body(schemas.match_create_request))
    out = {
        "match_id": made.match_id, "seats": {"0": made.seats[0], "1": made.seats[1]}, "umpire": made.umpire,
        **match_view(made.meta, made.live, made.now),
    }  # fmt: skip
    return with_legal(out, made.meta.game, made.state), 201, {"Location": f"/v1/matches/{made.match_id}"}


def _clock_start(raw: Any) -> tuple[Any, str]:
    """A match's ``clock`` without its ``start`` (engine.clock.STARTS; ``created`` when left out), and the start."""
    if not isinstance(raw, dict) or "start" not in raw:
        return raw, "created"
    when = raw["start"]
    if when not in STARTS:
        raise BadOptions("clock.start", f"clock.start must be one of {', '.join(STARTS)}.")
    return {k: v for k, v in raw.items() if k != "start"}, when


def wait(match_id: str, cur: Settled, done: Callable[[Settled], bool], timeout_s: float) -> Settled:
    """``cur`` once ``done`` says so, the match has finished, or ``timeout_s`` is up: a listener
    of the match's feed (service/matches/events.py), woken when the match changes and when a
    flag falls due (so a wait ends on time even with no sweeper running), reading nothing of
    its own."""
    if done(cur) or cur.live.finished:
        return cur
    end = time.monotonic() + timeout_s
    listening = Listening(match_id)
    try:
        listening.admit(request.remote_addr)  # MAX_LISTENERS_PER_MATCH, _PER_ADDRESS (service/web/guard.py)
        cur, wake = listening.cur, listening.listener.wake
        while not done(cur) and not cur.live.finished:
            left = end - time.monotonic()
            if left <= 0:
                break
            wake.wait(left)
            wake.clear()
            cur = listening.feed.latest(listening.listener)
    finally:
        listening.end()
    return cur


@bp.get("/matches/<match_id>")
def get_match(match_id: str) -> Any:
    """The match; with ``wait_ply=N`` it answers as soon as the ply passes N
    or the match changes otherwise (a flag), with ``wait_turn=S`` as soon as
    seat S may move; either way when it finishes, or when ``timeout_s`` is up."""
    wait_ply = number("wait_ply", 0, 10**9, whole=True)
    wait_turn = number("wait_turn", 0, 1, whole=True)
    timeout = number("timeout_s", 0, WAIT_MAX_S, whole=False)
    store = get_store()
    cur = read(store, match_id)
    if wait_ply is not None or wait_turn is not None:
        first = cur.rev

        def done(now: Settled) -> bool:
            if wait_turn is not None and now.live.may_move == wait_turn:
                return True
            return wait_ply is not None and (now.live.ply > wait_ply or now.rev != first)

        cur = wait(match_id, cur, done, WAIT_MAX_S if timeout is None else timeout)
    return with_legal(match_view(cur.meta, cur.live, cur.now), cur.meta.game, cur.live.state)


@bp.get("/matches/<match_id>/seat")
def seat_check(match_id: str) -> Any:
    """Which seat the bearer token opens: ``{"match_id", "seat"}``, or the 401 a move would get
    (``token_replaced`` with ``details.seat`` for a token the umpire replaced, issue 35): a seat's page
    checks its link when it opens, without moving."""
    seat = require_seat(read(get_store(), match_id).meta)
    return {"match_id": match_id, "seat": seat}


@bp.get("/matches")
def list_matches() -> Any:
    """Matches for an umpire (the admin token): ongoing or finished, newest
    first, by tag or game; ``before`` (the ``next`` of the previous page) pages on."""
    require_admin()
    status = request.args.get("status", "ongoing")
    if status not in STATUSES:
        raise ApiError("invalid_query", "status must be ongoing or finished.", {"parameter": "status"})
    tag, game = request.args.get("tag"), request.args.get("game")
    limit = int(number("limit", 1, LIST_MAX, whole=True) or 50)
    cursor = _cursor(request.args.get("before"))
    store = get_store()
    found: list[dict[str, Any]] = []
    more = False
    for _ in range(20):  # pages of the index until enough match the filters
        fetched = store.listing(status, limit + 1, None if cursor is None else cursor[0])
        rows = [r for r in fetched if _after(r, cursor)]
        for (match_id, at), (meta_text, live_text) in zip(rows, store.metas(m for m, _ in rows), strict=True):
            if len(found) == limit:
                more = True
                break
            cursor = (at, match_id)
            if meta_text is None or live_text is None:
                store.unlist(match_id, status)  # expired
                continue
            meta, live = Meta.from_json(meta_text), Live.from_json(live_text)
            if (tag and tag not in meta.tags) or (game and meta.game != game):
                continue
            found.append(
                {
                    "match_id": match_id,
                    "game": meta.game,
                    "players": list(meta.players),
                    "tags": list(meta.tags),
                    "status": live.state["status"],
                    "winner": live.state["winner"],
                    "end": live.state["end"],
                    "ply": live.ply,
                    "created": iso(meta.created_ms),
                }
            )
        if more or len(fetched) <= limit:  # enough, or the index has no more
            break
    return {"matches": found, "next": f"{cursor[0]}:{cursor[1]}" if more and cursor is not None else None}


def _cursor(raw: str | None) -> tuple[int, str] | None:
    """A page's ``before``: the index time and id of the last match listed."""
    if raw is None:
        return None
    at, _, match_id = raw.partition(":")
    when = whole_number(at)
    if when is None or when < 0 or not match_id or len(raw) > 64:
        raise ApiError("invalid_query", "before is the next of the previous page.", {"parameter": "before"})
    return when, match_id


def _after(row: tuple[str, int], cursor: tuple[int, str] | None) -> bool:
    """Whether ``row`` comes after the cursor in the listing's order (newest first, ties by id)."""
    if cursor is None:
        return True
    match_id, at = row
    return at < cursor[0] or (at == cursor[0] and match_id > cursor[1])
