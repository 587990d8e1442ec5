"""The umpire's controls over a live match (issue 22): the operations - ``decide_start``,
``decide_pause``, ``decide_resume``, ``decide_add_time``, ``decide_reissue``, ``decide_abort``,
``decide_adjudicate``, ``decide_takeback``, ``decide_add_umpire``, ``decide_remove_umpire``:
plain functions of the match as read and explicit arguments, called inside the compare-and-set
loop by the views here and by the Discord adapter alike - and their views, ``POST
/v1/matches/{id}/start``, ``pause``, ``resume``, ``add-time``, ``seats/{seat}/token``, ``abort``,
``adjudicate``, ``takeback``, ``umpires`` and ``DELETE .../umpires/{link}``, with the match's
umpire token (a co-umpire's, but for making or withdrawing co-umpire links) or the server's
``ADMIN_TOKEN`` (API.md).

The take-back (issue 35) undoes a player's slip of the hand as lichess does it: a record entry of
its own (kind ``takeback``) after the move it undoes, which stays in the record; the game goes back
to the position the move was played from, the clocks to what they were just before it, the turn
restarted (service/matches/referee.py ``take_back`` decides which moves may be taken back).  It is
described once like any change, so the answer, the stream (event ``takeback``), the posts and
Discord all say it, and ``replay`` of the record reads its word ``takeback``.

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
from service.matches.match import CO_UMPIRES, CO_UMPIRES_MADE, CONTROLS_PER_MATCH, Meta, move_digest, token_hash
from service.matches.query import deferred_body, idempotency_key, optional_body
from service.matches.record import TAKEBACK, entries_of, last_step
from service.matches.routes import TOKEN_BYTES
from service.web import schemas
from service.web.errors import ApiError

bp = Blueprint("controls", __name__, url_prefix="/v1")


# -- the operations -------------------------------------------------------------------------------


COUNTED = ("pause", "add_time", "token", "add_umpire", TAKEBACK)  # the controls CONTROLS_PER_MATCH bounds (match.py)


def _counted(meta: Meta) -> Meta:
    """``meta`` with one more of the umpire's counted controls: 409 ``too_many_controls`` past
    :data:`~service.matches.match.CONTROLS_PER_MATCH`, recorded nowhere (what makes the record's size bounded)."""
    if meta.controls >= CONTROLS_PER_MATCH:
        message = (
            f"This match has had its {CONTROLS_PER_MATCH} pauses, gifts of time, new seat tokens, co-umpire links and"
            " take-backs: no more are recorded. Resuming, starting, withdrawing a link, aborting and adjudicating still work."
        )
        raise ApiError("too_many_controls", message, {"limit": CONTROLS_PER_MATCH, "made": meta.controls})
    return meta.with_control()


def _controlled(
    cur: Settled, kind: str, seat: int | None = None, ms: int = 0, reason: str | None = None,
    handed: tuple[str | None, str] | None = None,
) -> Change:  # fmt: skip
    meta = _counted(cur.meta) if kind in COUNTED else None
    done = referee.control(GAMES[cur.meta.game], cur.meta, cur.live, kind, cur.now, seat, ms, reason, handed=handed)
    return replace(Change.of(done), meta=meta)


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


def decide_pause(cur: Settled, reason: str | None = None) -> Change:
    """Pause the running clocks: no deadline, no flag, no moves (409 ``paused``) until resumed.  The
    umpire's ``reason``, when given, is kept in the record entry, announced, streamed and posted (a
    client's text, escaped wherever it is written)."""
    if _running(cur, "pause").paused:
        raise ApiError("already_paused", "The clocks are paused already.")
    return _controlled(cur, "pause", reason=reason)


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
    handed = None if player is None else (cur.meta.players[seat], player)  # the record keeps who held it before
    done = _controlled(cur, "token", seat, handed=handed)
    assert done.meta is not None  # counted
    meta = done.meta.with_token(seat, token_digest)
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


TAKEBACK_KEY = "t:"  # a take-back's Idempotency-Key in the match's pointers (a move's are "k:", time given "a:")

WHY_NOT = {
    "start": "No move has been played: there is nothing to take back.",
    "taken_back": "The last move was taken back already: only the last move may be taken back, once.",
    "not_a_move": "The last change of the game was {what}, not a move: only a move may be taken back.",
    "too_late": "The move that ended the game was played more than {minutes} minutes ago: the result stands.",
}
NOT_A_MOVE = {
    "flag": "a flag",
    "pass": "a turn passed on time (R-X6)",
    "resign": "a resignation",
    "forfeit": "a forfeit by an illegal move",
    "abort": "an abort",
    "adjudicate": "an adjudication",
}


def decide_takeback(cur: Settled, ply: int | None = None, key: str | None = None) -> Change | Replay:
    """Take back the match's last move (:func:`~service.matches.referee.take_back`).

    ``ply``, when given, is the match's ply as the umpire saw it: at another ply the take-back is
    refused (409 ``stale_ply``), unless the last change of the game is a take-back made at that ply,
    whose first answer is given again (a retry).  ``key`` is the Idempotency-Key pointer (prefixed
    :data:`TAKEBACK_KEY`): the same key again answers the first take-back.  Either way a retried
    take-back never undoes a second move.  Refusals: 409 ``cannot_take_back`` (``details.why``:
    :class:`~service.matches.referee.NoTakeBack`)."""
    meta, game = cur.meta, GAMES[cur.meta.game]
    entries = entries_of(get_store().record(meta.match_id, 0, cur.length - 1)) if cur.length else []
    if cur.pointer is not None:  # this key took a move back already: that answer again
        seq = int(cur.pointer)
        return Replay(meta, last_step(game, meta, entries[:seq]), seq)
    decided = referee.take_back(game, meta, cur.live, entries, cur.now)
    if isinstance(decided, referee.NoTakeBack):
        last = decided.entry
        if decided.why == "taken_back" and last is not None and ply is not None and last.ply == ply:
            seq = entries.index(last) + 1  # the same take-back again: its first answer
            return Replay(meta, last_step(game, meta, entries[:seq]), seq)
        if ply is not None and ply != cur.live.ply:
            raise _stale(cur, ply)
        what = NOT_A_MOVE.get(decided.kind or "", decided.kind)
        words = WHY_NOT[decided.why].format(what=what, minutes=referee.REOPEN_MS // 60000)
        details: dict[str, Any] = {"why": decided.why, "ply": cur.live.ply}
        if decided.kind is not None and decided.why == "not_a_move":
            details["kind"] = decided.kind
        raise ApiError("cannot_take_back", words, details)
    if ply is not None and ply != cur.live.ply:
        raise _stale(cur, ply)
    done = Change.of(decided, [] if key is None else [(key, str(cur.length + 1))])  # the take-back's place in the record
    return replace(done, meta=_counted(meta))


def _stale(cur: Settled, ply: int) -> ApiError:
    message = f"The match is at ply {cur.live.ply}, not {ply}: it changed since; look again before taking a move back."
    return ApiError("stale_ply", message, {"ply": cur.live.ply})


def decide_add_umpire(cur: Settled, digest: str) -> Change:
    """A co-umpire link (issue 35: a second device, a co-umpire) whose token's SHA-256 is ``digest``:
    every control of the match but making or withdrawing links.  At most :data:`CO_UMPIRES` at once and
    :data:`CO_UMPIRES_MADE` over the match (409 ``too_many_umpires``).  The record says when a link was
    made (its number), never the token."""
    ongoing(cur)
    meta = cur.meta
    if len(meta.co_umpires) >= CO_UMPIRES or meta.co_made >= CO_UMPIRES_MADE:
        message = (
            f"A match has at most {CO_UMPIRES} co-umpire links at once and {CO_UMPIRES_MADE} in all: "
            "withdraw one first (DELETE .../umpires/{link})."
        )
        raise ApiError("too_many_umpires", message, {"limit": CO_UMPIRES, "made": meta.co_made})
    made = _counted(meta).with_co_umpire(digest)
    done = referee.control(GAMES[meta.game], meta, cur.live, "add_umpire", cur.now, link=made.co_made)
    return replace(Change.of(done), meta=made)


def decide_remove_umpire(cur: Settled, link: int) -> Change:
    """Co-umpire link ``link`` withdrawn: its token gets 401 at once (404 for a link the match has not)."""
    ongoing(cur)
    meta = cur.meta
    if all(number != link for number, _ in meta.co_umpires):
        raise ApiError("not_found", f"This match has no co-umpire link {link} (made, and not withdrawn).")
    done = referee.control(GAMES[meta.game], meta, cur.live, "remove_umpire", cur.now, link=link)
    return replace(Change.of(done), meta=meta.without_co_umpire(link))


# -- the views: the umpire's token, the request read, the operation called through change() ----------


def _umpire_change(
    match_id: str, what: str, act: Decide, key: str | None = None, write: Write = answer_of, links: bool = False
) -> Response:
    """``act`` on the match once the umpire is known (API.md's order: 404, then 401/403, then the rest);
    ``links``: making or withdrawing co-umpire links, which a co-umpire link may not."""

    def decide(cur: Settled) -> Decision:
        require_umpire(cur.meta, links)
        return act(cur)

    return change(get_store(), match_id, key, decide, what, write)


@bp.post("/matches/<match_id>/start")
def start_clock(match_id: str) -> Any:
    """The umpire starts the clocks (:func:`decide_start`)."""
    return _umpire_change(match_id, "the start", decide_start)


@bp.post("/matches/<match_id>/pause")
def pause_clock(match_id: str) -> Any:
    """The umpire pauses the running clocks (:func:`decide_pause`); the body may give a ``reason``
    (1 to 500 characters), or be left out."""
    body = optional_body(schemas.pause_request)
    return _umpire_change(match_id, "the pause", lambda cur: decide_pause(cur, body().get("reason")))


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


@bp.post("/matches/<match_id>/takeback")
def takeback(match_id: str) -> Any:
    """The umpire takes back the last move (:func:`decide_takeback`; the body may give the ``ply`` the
    umpire saw, or be left out): the match as ``GET`` answers it, one move earlier, with the take-back's
    events and announcements; with an ``Idempotency-Key`` a repeat answers the first take-back."""
    idem = idempotency_key()
    body = optional_body(schemas.takeback_request)
    key = None if idem is None else f"{TAKEBACK_KEY}{idem}"
    return _umpire_change(match_id, "the take-back", lambda cur: decide_takeback(cur, body().get("ply"), key), key)


@bp.post("/matches/<match_id>/umpires")
def add_umpire(match_id: str) -> Any:
    """A co-umpire link (:func:`decide_add_umpire`): ``{"match_id", "link", "token"}``, the token answered
    once (the server keeps its SHA-256)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return _umpire_change(
        match_id, "the co-umpire link", lambda cur: decide_add_umpire(cur, token_hash(token)),
        write=lambda d: {"match_id": match_id, "link": d.entry.link, "token": token}, links=True,
    )  # fmt: skip


@bp.delete("/matches/<match_id>/umpires/<int:link>")
def remove_umpire(match_id: str, link: int) -> Any:
    """Co-umpire link ``link`` withdrawn (:func:`decide_remove_umpire`): the match as the controls answer it."""
    return _umpire_change(match_id, "the co-umpire link's withdrawal", lambda cur: decide_remove_umpire(cur, link), links=True)
