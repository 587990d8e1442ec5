"""A seat's operations on a match - :func:`decide_move` (judged by service/matches/referee.py)
and :func:`decide_resign`, called by the views here and by the Discord adapter alike - and
their views: ``POST /v1/matches/{id}/moves``, ``POST .../resign``; and ``GET .../moves``, the
record (API.md "Managed matches").  A retried move gets its first answer, rebuilt from the record."""

from __future__ import annotations

import itertools
from typing import Any

from flask import Blueprint, Response, request, url_for

from engine.game import Json, MoveInput, Outcome, line_of
from engine.registry import GAMES
from service.api.games import record_format
from service.matches import referee
from service.matches.access import require_seat
from service.matches.answers import answer_of, with_legal
from service.matches.cas import Settled
from service.matches.changes import Change, Replay, change, ended_again, finished_error, read
from service.matches.db import get_positions, get_store
from service.matches.description import Description
from service.matches.jsontext import compact
from service.matches.match import Live, Meta, move_digest
from service.matches.query import deferred_body, idempotency_key, number
from service.matches.record import entries_of, iso, undone, walk
from service.matches.store import Store
from service.matches.transcript import record_moves, record_text
from service.web import schemas
from service.web.errors import ApiError

bp = Blueprint("moves", __name__, url_prefix="/v1")

PAGE = 1000  # record entries in one page of GET .../moves, at most and by default (a whole game, bounded attempts and all)


def replayed(store: Store, cur: Settled, seat: int, ply: int, move: Any, seq: int | None = None) -> Replay | None:
    """This seat's move (or forfeiting illegal move) for ``ply`` from the record, to answer
    again as it was first answered, when ``move`` is that move again; else None.  After the
    umpire's take-backs a ply may have several: ``seq`` is the record's place of the one an
    Idempotency-Key's pointer names, else the latest that ``move`` is counts.  A move the
    umpire took back is never answered as if it stood: 409 ``taken_back``."""
    entries = entries_of(store.record(cur.meta.match_id))
    places = [i for i, e in enumerate(entries) if e.ply == ply and e.by == seat and (e.kind == "move" or e.forfeited)]
    if seq is not None:
        places = [i for i in places if i == seq - 1]
    if not places:
        return None
    game = GAMES[cur.meta.game]
    steps = {s.index: s for s in walk(game, cur.meta, entries[: places[-1] + 1]) if s.index in places}
    raw = move if isinstance(move, str) else compact(list(move))
    for i in reversed(places):
        step, made = steps[i], entries[i]
        if made.kind == "move":
            written = game.play(step.before, move).move
            # the record's move as the engine writes it now (a record kept from before a change of notation,
            # Catchup's cells once kept in the order sent, is the same move)
            same = written == made.move or written == game.play(step.before, made.move or "").move
        else:
            same = raw == made.move
        if not same:
            continue  # another move for that ply: not a retry of this one
        if undone(entries, i):
            message = (
                f"This seat's move {made.move} for ply {ply} was applied, then the umpire took it back: the match is"
                f" at ply {cur.live.ply} now; look again before moving."
            )
            raise ApiError("taken_back", message, {"ply": cur.live.ply, "move": made.move})
        return Replay(cur.meta, step, i + 1)
    return None


def with_legal_moves(d: Description) -> Json:
    """A move's answer, with the legal moves after it when the request asks for them."""
    return with_legal(answer_of(d), d.meta.game, d.after if d.position is None else d.position)


# -- the operations: plain functions of the match as read and explicit arguments, called inside the
# compare-and-set loop by the views below and by the Discord adapter (service/discord/umpire.py) --


def decide_move(
    cur: Settled, seat: int, move: MoveInput, ply: int | None, key: str | None, book: bool = False
) -> Change | Replay:
    """``seat`` submits ``move`` for ``ply`` (None: the match's ply as it is - a Discord command names
    none - or, when ``key`` was used before, the ply it was first sent for) under the Idempotency-Key
    pointer ``key``; ``book``: played from an opening book.  A retry of a move applied before is its
    first answer (:class:`Replay`), or 409 ``taken_back`` once the umpire took it back (:func:`replayed`);
    a move sent with a key used before is never judged again.  The refusals in API.md's order."""
    live, now, meta = cur.live, cur.now, cur.meta
    digest = move_digest(move)
    seq = None
    if cur.pointer is not None:  # the same Idempotency-Key again: the first answer, for this same move
        first_ply, first_seat, first_digest, *place = cur.pointer.split(" ")
        if int(first_seat) != seat or first_digest != digest or (ply is not None and int(first_ply) != ply):
            raise ApiError(
                "idempotency_key_reused",
                "This Idempotency-Key was used for another move.",
                {"header": "Idempotency-Key"},
            )
        ply = int(first_ply)
        seq = int(place[0]) if place else None  # a pointer written before they named the record's place: none
    ply = live.ply if ply is None else ply
    # A key's pointer says its move was applied, even at the match's ply again (the umpire took it back).
    if cur.pointer is not None or ply < live.ply or (live.finished and ply == live.ply):
        first = replayed(get_store(), cur, seat, ply, move, seq)  # a retry of an applied move?
        if first is not None:
            return first
    if live.finished:
        raise finished_error(live)
    if ply != live.ply:
        raise ApiError("stale_ply", f"The match is at ply {live.ply}, not {ply}: someone moved first.", {"ply": live.ply})
    running_for_moves(meta, live)
    if seat != live.may_move:
        message = "It is not this seat's turn."
        if live.clock.proxy:
            message = "This seat has flagged: only the opponent may move for it now (R-X6)."
        raise ApiError("not_your_turn", message, {"may_move": live.may_move, "proxy": live.clock.proxy})
    game = GAMES[meta.game]
    position = get_positions().get(meta.match_id, cur.rev)
    result = referee.judge(game, meta, live, seat, move, now, position, book=book)
    pointers = [] if key is None else [(key, f"{live.ply} {seat} {digest} {cur.length + 1}")]  # + its place in the record
    if isinstance(result, referee.Accepted):
        return Change.of(result, pointers, "accepted")
    if isinstance(result, referee.Forfeit):
        return Change.of(result, pointers, "forfeit")
    if isinstance(result, referee.Exhausted):
        raise exhausted(live, now, result.limit)
    return Change.of(result, verdict="illegal")  # refused: a repeat is judged again (and refused again)


def decide_resign(cur: Settled, seat: int) -> Change | Replay:
    """``seat`` resigns, at any time while the match is on; the same again is its first answer."""
    if cur.live.finished:
        return ended_again(cur, lambda last: last.kind == "resign" and last.seat == seat)
    return Change.of(referee.resign(GAMES[cur.meta.game], cur.meta, cur.live, seat, cur.now))


def exhausted(live: Live, now: int, limit: int) -> ApiError:
    """429 ``too_many_attempts``: the turn has had ``limit`` illegal attempts refused; another is not
    recorded.  The turn runs on (a legal move is judged as ever); ``Retry-After``: until its time is up."""
    deadline = live.clock.deadline
    left_ms = live.clock.spec.turn_ms if deadline is None else max(0, deadline - now)
    message = (
        f"This turn has had {limit} illegal moves refused: no more are recorded before the turn ends (a legal move is"
        " still judged, and the clock runs)."
    )
    return ApiError(
        "too_many_attempts", message, {"limit": limit, "ply": live.ply}, {"Retry-After": str(max(1, -(-left_ms // 1000)))}
    )


def running_for_moves(meta: Meta, live: Live) -> None:
    """409 for a move while the clocks are paused, or before the umpire's start (``clock.start: umpire``)."""
    clock = live.clock
    if clock.paused:
        raise ApiError("paused", "The umpire has paused the clocks: no moves until they resume.")
    if not clock.started and meta.start == "umpire":
        raise ApiError("not_started", "The match waits for the umpire's start: no moves before it.")


# -- the views: read the request, call the operation through change(), answer --


@bp.post("/matches/<match_id>/moves")
def submit_move(match_id: str) -> Any:
    """A seat's move for the match's ply (API.md's order of answers); retrying it returns the first answer."""
    idem = idempotency_key()
    body = deferred_body(schemas.match_move_request, schemas.plain_move)  # read first, judged after 404 and 401
    key = None if idem is None else f"k:{idem}"

    def decide(cur: Settled) -> Change | Replay:
        seat = require_seat(cur.meta)
        move = body()
        return decide_move(cur, seat, move["move"], move["ply"], key, book=bool(move.get("book")))

    return change(get_store(), match_id, key, decide, "this move", with_legal_moves)


@bp.post("/matches/<match_id>/resign")
def resign(match_id: str) -> Any:
    """A seat resigns at any time while the match is on; retrying it returns the first answer."""
    return change(get_store(), match_id, None, lambda cur: decide_resign(cur, require_seat(cur.meta)), "the resignation")


@bp.get("/matches/<match_id>/moves")
def match_record(match_id: str) -> Any:
    """The record: every move, flag, pass, resignation, illegal attempt and abort, with the engine's
    events, a page at a time (``start``: the first entry's index, ``limit``: at most :data:`PAGE`; the
    ``next`` page's start in the body and in a ``Link: rel="next"`` header); the whole record as text;
    and as data that ``POST /v1/games/{game}/replay`` takes unchanged."""
    fmt = request.args.get("format", "json")
    start = int(number("start", 0, 10**9, whole=True) or 0)
    limit = int(number("limit", 1, PAGE, whole=True) or PAGE)
    store = get_store()
    cur = read(store, match_id)
    entries = entries_of(store.record(match_id))
    game = GAMES[cur.meta.game]
    if fmt != "json":  # another site's record format, as the game declares it (engine/room.py records)
        line = [str(m) for m in line_of(record_moves(entries))]  # the game as it stands: no word for a take-back there
        text = record_format(cur.meta.game, fmt).write(cur.meta.options, line, [p or "" for p in cur.meta.players])
        return Response(text, mimetype="text/plain")
    walked = itertools.islice(walk(game, cur.meta, entries), start, start + limit)
    page = [s.entry.public(s.events, s.after.ply) for s in walked]
    following = start + limit if start + limit < len(entries) else None
    state = cur.live.state
    outcome = "*" if state["end"] is None else Outcome(state["winner"], state["end"]).result
    record = {
        "match_id": match_id,
        "game": cur.meta.game,
        "options": cur.meta.options,
        "players": list(cur.meta.players),
        "tags": list(cur.meta.tags),
        "illegal": cur.meta.illegal,
        "created": iso(cur.meta.created_ms),
        "status": state["status"],
        "winner": state["winner"],
        "end": state.get("end"),
        "result": outcome,
        "moves": page,
        "next": following,
        "text": record_text(game, cur.meta, cur.live, entries),
        "replay": {"options": cur.meta.options, "moves": record_moves(entries)},
    }
    if following is None:
        return record
    link = url_for("moves.match_record", match_id=match_id, start=following, limit=limit)
    return record, 200, {"Link": f'<{link}>; rel="next"'}
