"""The umpire's controls over a live match (issue 22): the operations - ``decide_start``,
``decide_pause``, ``decide_resume``, ``decide_add_time``, ``decide_reissue``, ``decide_abort``,
``decide_adjudicate``: plain functions of the match as read and explicit arguments, called
inside the compare-and-set loop by the views here and by the Discord adapter alike - and
their views, ``POST /v1/matches/{id}/start``, ``pause``, ``resume``, ``add-time``,
``seats/{seat}/token``, ``abort``, ``adjudicate``, with the match's umpire token or the
server's ``ADMIN_TOKEN`` (API.md).

A new control is one ``decide_...`` function here, one thin view (read the request, call it
through :func:`_umpire_change`) and one line in service/discord/umpire.py."""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response

from engine.clock import MatchClock
from engine.registry import GAMES
from service.matches import referee
from service.matches.access import require_umpire
from service.matches.answers import answer_of
from service.matches.cas import Settled
from service.matches.changes import AsIs, Change, Decide, Decision, Replay, Write, change, ended_again, ongoing
from service.matches.db import get_store
from service.matches.match import move_digest, token_hash
from service.matches.query import deferred_body, idempotency_key
from service.matches.routes import TOKEN_BYTES
from service.web import schemas
from service.web.errors import ApiError

bp = Blueprint("controls", __name__, url_prefix="/v1")


# -- the operations -------------------------------------------------------------------------------


def _controlled(cur: Settled, kind: str, seat: int | None = None, ms: int = 0) -> Change:
    return Change.of(referee.control(GAMES[cur.meta.game], cur.meta, cur.live, kind, cur.now, seat, ms))


def decide_start(cur: Settled) -> Change:
    """Start the clocks of a match that waits for the start (``clock.start``: ``umpire`` or
    ``first_move``): the seat to move gets a whole turn from now.  409 ``already_started`` after it."""
    ongoing(cur)
    if cur.live.clock.started:
        raise ApiError("already_started", "The clocks have started already.")
    return _controlled(cur, "start")


def _running(cur: Settled, nothing_to: str) -> MatchClock:
    """The clocks of a match that is on and whose clocks have started (409 ``not_started``)."""
    ongoing(cur)
    if not cur.live.clock.started:
        raise ApiError("not_started", f"The clocks have not started: there is nothing to {nothing_to}.")
    return cur.live.clock


def decide_pause(cur: Settled) -> Change:
    """Pause the running clocks: no deadline, no flag, no moves (409 ``paused``) until resumed."""
    if _running(cur, "pause").paused:
        raise ApiError("already_paused", "The clocks are paused already.")
    return _controlled(cur, "pause")


def decide_resume(cur: Settled) -> Change:
    """Resume paused clocks: the turn has exactly the time it had at the pause."""
    if not _running(cur, "resume").paused:
        raise ApiError("not_paused", "The clocks are not paused.")
    return _controlled(cur, "resume")


def decide_add_time(cur: Settled, seat: int, seconds: float, key: str | None) -> Change | AsIs:
    """Give ``seat`` ``seconds`` (kept to the millisecond) in its bank; when its turn runs its
    deadline moves by as much.  Under the Idempotency-Key pointer ``key`` a repeat gives the time
    once and tells the match as it is (:class:`AsIs`)."""
    ms = round(seconds * 1000)
    digest = move_digest([seat, ms])
    if cur.pointer is not None:  # this key gave time already: the match as it is, the time given once
        if cur.pointer != digest:
            message = "This Idempotency-Key was used for another gift of time."
            raise ApiError("idempotency_key_reused", message, {"header": "Idempotency-Key"})
        return AsIs(cur)
    ongoing(cur)
    done = _controlled(cur, "add_time", seat, ms)
    return replace(done, pointers=[] if key is None else [(key, digest)])


def decide_reissue(cur: Settled, seat: int, token_digest: str, player: str | None = None) -> Change:
    """Give ``seat`` a new token (its hash ``token_digest``; the old one is refused at once, on
    every server process) and, with ``player``, a new player's name (a seat handed to someone else)."""
    ongoing(cur)
    done = _controlled(cur, "token", seat)
    meta = cur.meta.with_token(seat, token_digest)
    if player is not None:
        meta = replace(meta, players=(player, meta.players[1]) if seat == 0 else (meta.players[0], player))
    return replace(done, meta=meta)


def decide_abort(cur: Settled) -> Change | Replay:
    """Stop the match: over, with no winner; the same again is its first answer."""
    if cur.live.finished:
        return ended_again(cur, lambda last: last.kind == "abort")
    return Change.of(referee.abort(GAMES[cur.meta.game], cur.meta, cur.live, cur.now))


def decide_adjudicate(cur: Settled, winner: int | None, reason: str) -> Change | Replay:
    """Decide the match: ``winner`` (0, 1, or None for a draw), for ``reason``; the same decision
    again is its first answer."""
    if cur.live.finished:
        return ended_again(cur, lambda last: last.kind == "adjudicate" and (last.winner, last.reason) == (winner, reason))
    return Change.of(referee.adjudicate(GAMES[cur.meta.game], cur.meta, cur.live, winner, reason, cur.now))


# -- the views: the umpire's token, the request read, the operation called through change() ----------


def _umpire_change(match_id: str, what: str, act: Decide, key: str | None = None, write: Write = answer_of) -> Response:
    """``act`` on the match once the umpire is known (API.md's order: 404, then 401/403, then the rest)."""

    def decide(cur: Settled) -> Decision:
        require_umpire(cur.meta)
        return act(cur)

    return change(get_store(), match_id, key, decide, what, write)


@bp.post("/matches/<match_id>/start")
def start_clock(match_id: str) -> Any:
    """The umpire starts the clocks (:func:`decide_start`)."""
    return _umpire_change(match_id, "the start", decide_start)


@bp.post("/matches/<match_id>/pause")
def pause_clock(match_id: str) -> Any:
    """The umpire pauses the running clocks (:func:`decide_pause`)."""
    return _umpire_change(match_id, "the pause", decide_pause)


@bp.post("/matches/<match_id>/resume")
def resume_clock(match_id: str) -> Any:
    """The umpire resumes paused clocks (:func:`decide_resume`)."""
    return _umpire_change(match_id, "the resumption", decide_resume)


@bp.post("/matches/<match_id>/add-time")
def add_time(match_id: str) -> Any:
    """The umpire gives a seat time (``{"seat", "seconds"}``: 0.001 to 3600 s, :func:`decide_add_time`);
    with an ``Idempotency-Key`` a repeat gives the time once and answers the match as it is."""
    idem = idempotency_key()
    body = deferred_body(schemas.add_time_request)
    key = None if idem is None else f"a:{idem}"

    def act(cur: Settled) -> Change | AsIs:
        gift = body()
        return decide_add_time(cur, gift["seat"], gift["seconds"], key)

    return _umpire_change(match_id, "the time given", act, key)


@bp.post("/matches/<match_id>/seats/<seat>/token")
def reissue_token(match_id: str, seat: str) -> Any:
    """The umpire gives a seat a new token (a player lost theirs, or it leaked: :func:`decide_reissue`):
    answered once; each call issues another."""
    if seat not in ("0", "1"):
        raise ApiError("not_found", "A match has seats 0 and 1.")
    number = int(seat)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    # Answered once, to the umpire: the token itself, which no other channel ever tells.
    return _umpire_change(
        match_id, "the new token", lambda cur: decide_reissue(cur, number, token_hash(token)),
        write=lambda _: {"match_id": match_id, "seat": number, "token": token},
    )  # fmt: skip


@bp.post("/matches/<match_id>/abort")
def abort(match_id: str) -> Any:
    """The umpire (the match's umpire token, or the admin token) stops a match (:func:`decide_abort`)."""
    return _umpire_change(match_id, "the abort", decide_abort)


@bp.post("/matches/<match_id>/adjudicate")
def adjudicate(match_id: str) -> Any:
    """The umpire decides the match (``{"winner": 0 | 1 | null, "reason"}``: :func:`decide_adjudicate`)."""
    body = deferred_body(schemas.adjudicate_request)

    def act(cur: Settled) -> Change | Replay:
        decision = body()
        return decide_adjudicate(cur, decision["winner"], decision["reason"])

    return _umpire_change(match_id, "the adjudication", act)
