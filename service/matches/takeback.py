"""The umpire's take-back of the last move (issue 35): ``POST /v1/matches/{id}/takeback``, with the
match's umpire token (a co-umpire's) or the server's ``ADMIN_TOKEN``.

A player's slip of the hand (a click that completed a move at once) is undone as lichess does it: the
take-back is a record entry of its own (kind ``takeback``), after the move it undoes, which stays in
the record; the game goes back to the position the move was played from, the clocks to what they were
just before it, the turn restarted (service/matches/referee.py ``take_back`` decides it and says which
moves may be taken back).  It is announced, streamed (event ``takeback``) and posted like any change,
and ``replay`` of the record reads its word ``takeback``.

:func:`decide_takeback` is the decision, for any channel that has checked the umpire (the HTTP view
here; Discord's ``/umpire takeback``): it returns the :class:`~service.matches.changes.Change` to
commit, or the :class:`~service.matches.changes.Replay` of the take-back a retry asks for again.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from engine.registry import GAMES
from service.matches import referee
from service.matches.access import require_umpire
from service.matches.cas import Settled
from service.matches.changes import Change, Replay, change
from service.matches.db import get_store
from service.matches.query import idempotency_key, optional_body
from service.matches.record import entries_of, last_step
from service.web import schemas
from service.web.errors import ApiError

bp = Blueprint("takeback", __name__, url_prefix="/v1")

KEY_PREFIX = "t:"  # a take-back's Idempotency-Key in the match's pointers (a move's are "k:", time given "a:")

WHY = {
    "start": "No move has been played: there is nothing to take back.",
    "taken_back": "The last move was taken back already: only the last move may be taken back, once.",
    "not_a_move": "The last change of the game was {what}, not a move: only a move may be taken back.",
    "too_late": "The move that ended the game was played more than {minutes} minutes ago: the result stands.",
}
WHAT = {
    "flag": "a flag",
    "pass": "a turn passed on time (R-X6)",
    "resign": "a resignation",
    "forfeit": "a forfeit by an illegal move",
    "abort": "an abort",
    "adjudicate": "an adjudication",
}


def decide_takeback(cur: Settled, ply: int | None = None, key: str | None = None) -> Change | Replay:
    """The take-back of the match's last move, decided on ``cur`` (read inside the compare-and-set loop,
    service/matches/changes.py ``change``) once the caller knows the request is the umpire's.

    ``ply``, when given, is the match's ply as the umpire saw it: at another ply the take-back is
    refused (409 ``stale_ply``), unless the last change of the game is a take-back made at that ply,
    whose first answer is given again (a retry).  ``key`` is the request's Idempotency-Key (pointers
    prefixed :data:`KEY_PREFIX`, kept while the match is on): the same key again answers the first
    take-back.  Either way a retried take-back never undoes a second move.  Refusals: 409
    ``cannot_take_back`` (``details.why``: :class:`~service.matches.referee.NoTakeBack`)."""
    store = get_store()
    meta, game = cur.meta, GAMES[cur.meta.game]
    entries = entries_of(store.record(meta.match_id, 0, cur.length - 1)) if cur.length else []
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
            raise stale(cur, ply)
        words = WHY[decided.why].format(what=WHAT.get(decided.kind or "", decided.kind), minutes=referee.REOPEN_MS // 60000)
        details: dict[str, Any] = {"why": decided.why, "ply": cur.live.ply}
        if decided.kind is not None and decided.why == "not_a_move":
            details["kind"] = decided.kind
        raise ApiError("cannot_take_back", words, details)
    if ply is not None and ply != cur.live.ply:
        raise stale(cur, ply)
    pointers = [] if key is None else [(key, str(cur.length + 1))]  # the take-back's place in the record
    return Change(decided.live, [decided.entry], pointers, decided.events, decided.position)


def stale(cur: Settled, ply: int) -> ApiError:
    message = f"The match is at ply {cur.live.ply}, not {ply}: it changed since; look again before taking a move back."
    return ApiError("stale_ply", message, {"ply": cur.live.ply})


@bp.post("/matches/<match_id>/takeback")
def takeback(match_id: str) -> Any:
    """The umpire takes back the last move: the match as ``GET`` answers it, one move earlier, with the
    take-back's events and announcements (API.md's order: 404, 401/403, then the body)."""
    idem = idempotency_key()
    body, body_error = optional_body(schemas.takeback_request)
    key = None if idem is None else f"{KEY_PREFIX}{idem}"

    def decide(cur: Settled) -> Change | Replay:
        require_umpire(cur.meta)
        if body is None:
            assert body_error is not None
            raise body_error
        return decide_takeback(cur, body.get("ply"), key)

    return change(get_store(), match_id, key, decide, "the take-back")
