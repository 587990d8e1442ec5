"""Every change a view makes to a match goes through :func:`change`, and reads in this order:
decide, commit, describe, answer.

1. **decide**, inside the compare-and-set loop (service/matches/cas.py ``retried``): the
   match is read and the view's ``decide`` works out the :class:`Change` (the referee's
   verdict, the clocks, the typed record entry: service/matches/referee.py), or finds that
   the request is a retry of a change committed before (:class:`Replay`), or refuses it;
2. **commit**: ``commit.lua`` writes the change only if the match is still as read, and
   publishes it on the match's channel (what wakes the event streams and the webhooks'
   deliverer, which describe it from the record as below).  A lost race (someone changed
   the match meanwhile) is read and decided again, and has cost no description;
3. **describe**, after the loop, once: the committed entry, the states around it and the
   engine's events become a :class:`~service.matches.description.Description`;
4. **answer**: the view's writer (by default service/matches/answers.py ``answer_of``)
   writes the description as the HTTP answer.

A retry's answer is described again from the record, the same way (``Replay``): byte for
byte the first answer, nothing of it stored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response

from engine.game import Json
from engine.registry import GAMES
from service.matches.answers import answer_of, status_of
from service.matches.cas import Settled, retried, settled
from service.matches.db import get_positions
from service.matches.description import Description, describe, describe_step
from service.matches.jsontext import compact
from service.matches.match import Live, Meta
from service.matches.record import Entry, Step
from service.matches.store import Store, Unconfirmed
from service.web.errors import ApiError
from service.web.metrics import MOVES

log = logging.getLogger(__name__)

Answer = Response | tuple[Any, int]  # a view's answer as Flask takes it
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
    meta: Meta | None = None  # the match's new meta (an umpire reissued a seat's token)


@dataclass(frozen=True, slots=True)
class Replay:
    """A retry of a change committed before: its record entry, walked (``seq`` its number in the record)."""

    meta: Meta
    step: Step
    seq: int


@dataclass(frozen=True, slots=True)
class _Committed:
    change: Change
    cur: Settled
    rev: int


def change(
    store: Store,
    match_id: str,
    idem: str | None,
    decide: Callable[[Settled], Change | Replay | Answer],
    what: str,
    write: Write = answer_of,
) -> Answer:
    """Decide, commit, describe, answer (the module's doc): ``decide`` sees the match as read
    and returns a :class:`Change` to commit, a :class:`Replay` of an earlier one, or an
    answer of its own (a refusal is raised); the change, once committed, or the replayed one
    is described and ``write`` answers it.

    A commit whose fate is unknown (Redis timed out or dropped the connection once the
    script may have been sent, whatever the error says; or, with REDIS_DURABILITY=replica,
    no replica confirmed it in time) answers 503 ``outcome_unknown``: sending the same
    request again, with the same ply (and key), is safe.  An answer rebuilt from the record
    (a retry) is given once the match's master has it on a replica too (:meth:`Store.confirm`)."""

    def attempt() -> _Committed | Replay | Answer:
        cur = read(store, match_id, idem)
        decided = decide(cur)
        if not isinstance(decided, Change):
            return decided
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
        return _Committed(decided, cur, rev)

    def busy() -> ApiError:
        return ApiError("busy", f"The match changed too often while {what} was judged; send it again.")

    done = retried(attempt, busy)  # decided and committed (or not to be: a replay, an answer of the view's own)
    if isinstance(done, Replay) or (isinstance(done, Response) and done.headers.get("Idempotent-Replayed")):
        try:
            store.confirm(match_id)  # the first attempt's commit may not be on a replica yet
        except Unconfirmed as e:
            raise e.about(what) from None
    if isinstance(done, Replay):  # described again from the record: the first answer, byte for byte
        described = describe_step(GAMES[done.meta.game], done.meta, done.step, done.seq)
        return json_text(status_of(described), write(described), replayed=True)
    if not isinstance(done, _Committed):
        return done
    decided, cur = done.change, done.cur
    described = describe(
        decided.meta or cur.meta, decided.entries[-1], cur.live.state, decided.live.state, decided.events,
        cur.length + len(decided.entries), decided.position,
    )  # fmt: skip
    if decided.position is not None:  # the next move here starts from it (service/matches/db.py Positions)
        get_positions().put(match_id, str(done.rev), decided.position)
    if decided.verdict is not None:
        MOVES.labels(cur.meta.game, decided.verdict).inc()
    return json_text(status_of(described), write(described))
