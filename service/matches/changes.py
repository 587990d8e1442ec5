"""Every change a view makes to a match goes through :func:`change`: read the match, let the
view decide, commit if the match is still as read (a lost race is read again and decided
again: service/matches/cas.py ``retried``), answer.

A lost race (someone changed the match between read and commit) is simply read again:
the second reading answers 409, or replays the first answer when the loser was a retry
of the winner.  A retried move's answer is rebuilt from the record (nothing of it is
stored).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response

from service.matches.cas import Settled, retried, settled
from service.matches.db import get_positions
from service.matches.jsontext import compact
from service.matches.match import Live, Meta
from service.matches.record import Entry
from service.matches.store import Store, Unconfirmed
from service.web.errors import ApiError
from service.web.metrics import MOVES

log = logging.getLogger(__name__)


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
    """What a view decided to do to a match: the new live part, the record
    entries and Idempotency-Key pointers to commit with it, and the answer
    (with its status); ``position`` the engine's state of ``live``, when the
    view has it."""

    live: Live
    entries: list[Entry]
    pointers: list[tuple[str, str]]
    answer: dict[str, Any]
    status: int = 200
    position: Any = None
    verdict: str | None = None  # a judged move: accepted, illegal or forfeit (service/web/metrics.py)
    meta: Meta | None = None  # the match's new meta (an umpire reissued a seat's token)


Answer = Response | tuple[Any, int]  # a view's answer as Flask takes it


def change(store: Store, match_id: str, idem: str | None, judge: Callable[[Settled], Change | Answer], what: str) -> Answer:
    """Read the match, let ``judge`` decide, commit its :class:`Change` if the
    match is still as read; on a lost race, read and judge again.  Whatever
    else ``judge`` returns (a replayed answer, a refusal) is answered as it is.

    A commit whose fate is unknown (Redis timed out or dropped the connection
    once the script may have been sent, whatever the error says; or, with
    REDIS_DURABILITY=replica, no replica confirmed it in time) answers 503
    ``outcome_unknown``: sending the same request again, with the same ply
    (and key), is safe.  An answer rebuilt from the record (a retry) is given
    once the match's master has it on a replica too (:meth:`Store.confirm`)."""

    def attempt() -> Answer:
        cur = read(store, match_id, idem)
        decided = judge(cur)
        if not isinstance(decided, Change):
            if isinstance(decided, Response) and decided.headers.get("Idempotent-Replayed"):
                try:
                    store.confirm(match_id)  # the first attempt's commit may not be on a replica yet
                except Unconfirmed as e:
                    raise e.about(what) from None
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
            )  # a Conflict (someone changed the match meanwhile): judged again on what is there now
        except Unconfirmed as e:  # once the commit may have been sent, a failure is never "nothing changed"
            raise e.about(what) from None
        if decided.position is not None:
            get_positions().put(match_id, str(rev), decided.position)
        if decided.verdict is not None:
            MOVES.labels(cur.meta.game, decided.verdict).inc()
        return json_text(decided.status, decided.answer)

    return retried(attempt, lambda: ApiError("busy", f"The match changed too often while {what} was judged; send it again."))
