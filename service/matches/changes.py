"""Every change to a match goes through :func:`described`, and reads in this order: decide,
commit, describe - then each channel writes the description in its own format.

1. **decide**, inside the compare-and-set loop (service/matches/cas.py ``retried``): the
   match is read and an operation (``decide_*`` in service/matches/moves.py and controls.py:
   plain functions of the match read and explicit arguments) works out the :class:`Change`
   (the referee's verdict, the clocks, the typed record entry: service/matches/referee.py),
   or finds that the request is a retry of a change committed before (:class:`Replay`, or
   :class:`AsIs` for a repeat that tells nothing anew), or refuses it (an ``ApiError``);
2. **commit**: ``commit.lua`` writes the change only if the match is still as read, and
   publishes it on the match's channel (what wakes the event streams and the webhooks'
   deliverer, which describe it from the record as below).  A lost race (someone changed
   the match meanwhile) is read and decided again, and has cost no description;
3. **describe**, after the loop, once: the committed entry, the states around it and the
   engine's events become a :class:`~service.matches.description.Description`;
4. **write**: :func:`change`, for the HTTP views, answers it (by default
   service/matches/answers.py ``answer_of``); the Discord adapter (service/discord/umpire.py)
   calls :func:`described` with the same operations and writes the same description as a
   Discord message (service/discord/messages.py).

A retry's answer is described again from the record, the same way (``Replay``): byte for
byte the first answer, nothing of it stored.

The operations read nothing of the request: a view reads it (the token, the body), then calls
the operation with what it found, inside the loop::

    return change(store, match_id, key, lambda cur: decide_move(cur, require_seat(cur.meta), move, ply, key), "this move")
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from flask import Response

from engine.game import Json
from engine.registry import GAMES
from service.matches import referee
from service.matches.answers import answer_of, as_is, status_of
from service.matches.cas import Settled, retried, settled
from service.matches.db import get_positions, get_store
from service.matches.description import Description, describe, describe_step
from service.matches.jsontext import compact
from service.matches.match import Live, Meta
from service.matches.record import Entry, Step, entries_of, last_step
from service.matches.store import Store, Unconfirmed
from service.web.errors import ApiError
from service.web.metrics import count_move

log = logging.getLogger(__name__)

Write = Callable[[Description], Json]  # a description as the view answers it


def json_text(status: int, value: Any, replayed: bool = False) -> Response:
    resp = Response(value if isinstance(value, str) else compact(value), status=status, mimetype="application/json")
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


def read(store: Store, match_id: str, idempotency_key: str | None = None) -> Settled:
    """The match with its due flags applied (Gone for none: 404, service/matches/failures.py)."""
    return settled(store, match_id, idempotency_key)


def finished_error(live: Live) -> ApiError:
    state = live.state
    return ApiError(
        "match_finished",
        "The match is over: no more moves or resignations.",
        {"end": state.get("end"), "winner": state["winner"]},
    )


@dataclass(frozen=True, slots=True)
class Change:
    """What a view decided to do to a match: the new live part, the record entries and
    Idempotency-Key pointers to commit with it (the last entry is the change, described
    once committed), the engine's events of it, and the engine's state after it when the
    view has it (``position``)."""

    live: Live
    entries: list[Entry]
    pointers: list[tuple[str, str]]
    events: list[Json]
    position: Any = None
    verdict: str | None = None  # a judged move: accepted, illegal or forfeit (service/web/metrics.py)
    meta: Meta | None = None  # the match's new meta (an umpire's counted control, a seat's new token, a co-umpire link)

    @classmethod
    def of(cls, result: referee.Result, pointers: list[tuple[str, str]] | None = None, verdict: str | None = None) -> Change:
        """The referee's ``result`` to commit: its live part, its one record entry, its events and position."""
        return cls(result.live, [result.entry], pointers or [], result.events, result.position, verdict)


@dataclass(frozen=True, slots=True)
class Replay:
    """A retry of a change committed before: its record entry, walked (``seq`` its number in the record)."""

    meta: Meta
    step: Step
    seq: int


@dataclass(frozen=True, slots=True)
class AsIs:
    """A repeat of a request that changed the match before and tells nothing anew: the match as it
    is now (a gift of time again under its Idempotency-Key: given once, and nothing happened now)."""

    cur: Settled


Decision = Change | Replay | AsIs
Decide = Callable[[Settled], Decision]  # an operation with its arguments given: the match as read -> the decision


@dataclass(frozen=True, slots=True)
class Committed:
    """A change as :func:`described` leaves it: its description, and whether it was committed before
    (``replayed``: a retry, described again from the record)."""

    d: Description
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class _Made:
    change: Change
    cur: Settled
    rev: int


def ended_again(cur: Settled, same: Callable[[Entry], bool]) -> Replay:
    """A finished match's first answer to the end that finished it, when ``same`` says this
    request is that end again (a retried resignation, abort or adjudication); else 410."""
    entries = entries_of(get_store().record(cur.meta.match_id))
    last = entries[-1] if entries else None
    if last is None or not same(last):
        raise finished_error(cur.live)
    game = GAMES[cur.meta.game]
    return Replay(cur.meta, last_step(game, cur.meta, entries), len(entries))


def ongoing(cur: Settled) -> None:
    """410 ``match_finished`` once the match is over (nothing but its end may be repeated)."""
    if cur.live.finished:
        raise finished_error(cur.live)


def change(store: Store, match_id: str, idem: str | None, decide: Decide, what: str, write: Write = answer_of) -> Response:
    """The HTTP views' change: :func:`described`, then ``write`` answers the description (the
    match as it is, for :class:`AsIs`), with ``Idempotent-Replayed: true`` for a repeat."""
    done = described(store, match_id, idem, decide, what)
    if isinstance(done, AsIs):
        return json_text(200, as_is(done.cur.meta, done.cur.live, done.cur.now), replayed=True)
    return json_text(status_of(done.d), write(done.d), replayed=done.replayed)


def described(
    store: Store, match_id: str, idem: str | None, decide: Decide, what: str, via: str | None = None
) -> Committed | AsIs:
    """Decide, commit, describe (the module's doc): ``decide`` sees the match as read and returns
    a :class:`Change` to commit, a :class:`Replay` of an earlier one, or :class:`AsIs` (a refusal
    is raised); the change, once committed, or the replayed one is described, for the caller to
    write in its channel's format.  ``via``: the channel that answers the change itself, kept in
    its record entry (``Entry.via``: a webhook of that channel does not post it again); the flags
    applied on the way (:func:`read`) are nobody's, and are posted.

    A commit whose fate is unknown (Redis timed out or dropped the connection once the
    script may have been sent, whatever the error says; or, with REDIS_DURABILITY=replica,
    no replica confirmed it in time) answers 503 ``outcome_unknown``: sending the same
    request again, with the same ply (and key), is safe.  An answer rebuilt from the record
    (a retry) is given once the match's master has it on a replica too (:meth:`Store.confirm`)."""

    def attempt() -> _Made | Replay | AsIs:
        cur = read(store, match_id, idem)
        decided = decide(cur)
        if not isinstance(decided, Change):
            return decided
        if via is not None:
            decided = replace(decided, entries=[replace(e, via=via) for e in decided.entries])
        new = decided.live
        try:
            rev = store.commit(
                match_id,
                cur.rev,
                new.to_json(),
                new.clock.deadline,
                [compact(e.to_json()) for e in decided.entries],
                decided.pointers,
                new.finished_ms if new.finished and not cur.live.finished else None,
                None if decided.meta is None else decided.meta.to_json(),
                cur.meta.created_ms if cur.live.finished and not new.finished else None,  # a take-back reopened it
            )  # a Conflict (someone changed the match meanwhile): decided again on what is there now
        except Unconfirmed as e:  # once the commit may have been sent, a failure is never "nothing changed"
            raise e.about(what) from None
        return _Made(decided, cur, rev)

    def busy() -> ApiError:
        return ApiError("busy", f"The match changed too often while {what} was judged; send it again.")

    done = retried(attempt, busy)  # decided and committed (or not to be: a repeat)
    if not isinstance(done, _Made):
        try:
            store.confirm(match_id)  # the first attempt's commit may not be on a replica yet
        except Unconfirmed as e:
            raise e.about(what) from None
    if isinstance(done, Replay):  # described again from the record: the first answer, byte for byte
        return Committed(describe_step(GAMES[done.meta.game], done.meta, done.step, done.seq), replayed=True)
    if isinstance(done, AsIs):
        return done
    decided, cur = done.change, done.cur
    d = describe(
        decided.meta or cur.meta, decided.entries[-1], cur.live.state, decided.live.state, decided.events,
        cur.length + len(decided.entries), decided.position,
    )  # fmt: skip
    if decided.position is not None:  # the next move here starts from it (service/matches/db.py Positions)
        get_positions().put(match_id, str(done.rev), decided.position)
    if decided.verdict is not None:
        count_move(cur.meta.game, decided.verdict)
    return Committed(d)
