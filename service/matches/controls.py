"""The umpire's controls over a live match (issue 22): ``POST /v1/matches/{id}/start``,
``pause``, ``resume``, ``add-time``, ``seats/{seat}/token``, ``abort``, ``adjudicate``, with
the match's umpire token or the server's ``ADMIN_TOKEN`` (API.md)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Blueprint

from engine.registry import GAMES
from service.matches import referee
from service.matches.access import require_umpire
from service.matches.answers import answer_of, match_view
from service.matches.cas import Settled
from service.matches.changes import Answer, Change, Replay, Write, change, finished_error, json_text
from service.matches.db import get_store
from service.matches.match import move_digest, token_hash
from service.matches.moves import end_change, ended_again
from service.matches.query import deferred_body, idempotency_key, optional_body
from service.matches.routes import TOKEN_BYTES
from service.web import schemas
from service.web.errors import ApiError

bp = Blueprint("controls", __name__, url_prefix="/v1")


def _ongoing(cur: Settled) -> None:
    if cur.live.finished:
        raise finished_error(cur.live)


Act = Callable[[Settled], Change | Replay | Answer]


def _umpire_change(match_id: str, what: str, act: Act, key: str | None = None, write: Write = answer_of) -> Answer:
    """``act`` on the match once the umpire is known (API.md's order: 404, then 401/403, then the rest)."""

    def decide(cur: Settled) -> Change | Replay | Answer:
        require_umpire(cur.meta)
        return act(cur)

    return change(get_store(), match_id, key, decide, what, write)


def _controlled(cur: Settled, kind: str, seat: int | None = None, ms: int = 0, reason: str | None = None) -> Change:
    done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, kind, cur.now, seat, ms, reason)
    return Change(done.live, [done.entry], [], done.events)


@bp.post("/matches/<match_id>/start")
def start_clock(match_id: str) -> Any:
    """The umpire starts the clocks of a match that waits for the start (``clock.start``: ``umpire``
    or ``first_move``): the seat to move gets a whole turn from now.  409 ``already_started`` after it."""

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        if cur.live.clock.started:
            raise ApiError("already_started", "The clocks have started already.")
        return _controlled(cur, "start")

    return _umpire_change(match_id, "the start", act)


def decide_pause(cur: Settled, reason: str | None = None) -> Change:
    """The umpire's pause of the running clocks, decided on ``cur``, with the umpire's ``reason`` (kept in the
    record entry, announced, streamed and posted; a client's text, escaped wherever it is written)."""
    _ongoing(cur)
    clock = cur.live.clock
    if not clock.started:
        raise ApiError("not_started", "The clocks have not started: there is nothing to pause.")
    if clock.paused:
        raise ApiError("already_paused", "The clocks are paused already.")
    return _controlled(cur, "pause", reason=reason)


@bp.post("/matches/<match_id>/pause")
def pause_clock(match_id: str) -> Any:
    """The umpire pauses the running clocks: no deadline, no flag, no moves (409 ``paused``) until resumed;
    the body may give a ``reason`` (1 to 500 characters)."""
    body, body_error = optional_body(schemas.pause_request)

    def act(cur: Settled) -> Change:
        if body is None:
            assert body_error is not None
            raise body_error
        return decide_pause(cur, body.get("reason"))

    return _umpire_change(match_id, "the pause", act)


@bp.post("/matches/<match_id>/resume")
def resume_clock(match_id: str) -> Any:
    """The umpire resumes paused clocks: the turn has exactly the time it had at the pause."""

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        clock = cur.live.clock
        if not clock.started:
            raise ApiError("not_started", "The clocks have not started: start them (POST .../start).")
        if not clock.paused:
            raise ApiError("not_paused", "The clocks are not paused.")
        return _controlled(cur, "resume")

    return _umpire_change(match_id, "the resumption", act)


@bp.post("/matches/<match_id>/add-time")
def add_time(match_id: str) -> Any:
    """The umpire gives a seat time (``{"seat", "seconds"}``: 0.001 to 3600 s, kept to the
    millisecond) in its bank; when its turn runs its deadline moves by as much.  With an
    ``Idempotency-Key`` a repeat gives the time once and answers the match as it is."""
    idem = idempotency_key()
    body, body_error = deferred_body(schemas.add_time_request)
    key = None if idem is None else f"a:{idem}"

    def act(cur: Settled) -> Change | Answer:
        if body is None:
            assert body_error is not None
            raise body_error
        ms = round(body["seconds"] * 1000)
        digest = move_digest([body["seat"], ms])
        if cur.pointer is not None:  # this key gave time already: the match as it is, the time given once
            if cur.pointer != digest:
                message = "This Idempotency-Key was used for another gift of time."
                raise ApiError("idempotency_key_reused", message, {"header": "Idempotency-Key"})
            now = {**match_view(cur.meta, cur.live, cur.now), "events": [], "announcements": []}  # nothing happened now
            return json_text(200, now, replayed=True)
        _ongoing(cur)
        done = _controlled(cur, "add_time", body["seat"], ms)
        return replace(done, pointers=[] if key is None else [(key, digest)])

    return _umpire_change(match_id, "the time given", act, key)


@bp.post("/matches/<match_id>/seats/<seat>/token")
def reissue_token(match_id: str, seat: str) -> Any:
    """The umpire gives a seat a new token (a player lost theirs, or it leaked): answered once;
    the old one gets 401 at once, on every server process.  Each call issues another."""
    if seat not in ("0", "1"):
        raise ApiError("not_found", "A match has seats 0 and 1.")
    number = int(seat)
    token = secrets.token_urlsafe(TOKEN_BYTES)

    def act(cur: Settled) -> Change:
        _ongoing(cur)
        done = _controlled(cur, "token", number)
        return replace(done, meta=cur.meta.with_token(number, token_hash(token)))

    # Answered once, to the umpire: the token itself, which no other channel ever tells.
    return _umpire_change(match_id, "the new token", act, write=lambda _: {"match_id": match_id, "seat": number, "token": token})


@bp.post("/matches/<match_id>/abort")
def abort(match_id: str) -> Any:
    """The umpire (the match's umpire token, or the admin token) stops a match: over, with no
    winner; retrying it returns the first answer."""
    return _umpire_change(match_id, "the abort", lambda cur: end_change("abort", None, cur))


@bp.post("/matches/<match_id>/adjudicate")
def adjudicate(match_id: str) -> Any:
    """The umpire decides the match (``{"winner": 0 | 1 | null, "reason"}``): over, with that
    result; the same decision again returns the first answer."""
    body, body_error = deferred_body(schemas.adjudicate_request)

    def act(cur: Settled) -> Change | Replay:
        if body is None:
            assert body_error is not None
            raise body_error
        game = GAMES[cur.meta.game]
        winner, reason = body["winner"], body["reason"]
        if cur.live.finished:
            return ended_again(cur, lambda last: last.kind == "adjudicate" and (last.winner, last.reason) == (winner, reason))
        ended = referee.adjudicate(game, cur.meta, cur.live, winner, reason, cur.now)
        return Change(ended.live, [ended.entry], [], ended.events, ended.position)

    return _umpire_change(match_id, "the adjudication", act)
