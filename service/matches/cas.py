"""A match as it stands now, and the one compare-and-set loop every change goes through.

Every change to a match is read, worked out in Python, and committed by
``commit.lua`` only if the match's revision is still the one read
(service/matches/store.py); a lost race raises :class:`Conflict`, and the
change is worked out again on what is there now.  :func:`retried` is that
loop, for the views (service/matches/changes.py ``change``) and for the reads
that apply due flags (:func:`settled`, which every view, stream and sweeper
reads through), with one bound, :data:`MAX_ATTEMPTS`.

A read credits an outage first when the match's shard has not been beaten
by any serving process for longer than the store's ``outage_ms`` (RULES R-T3;
service/matches/liveness.py explains the beats), so no flag is ever applied
on a clock still owed an outage, whoever applies it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import redis

from engine.registry import GAMES
from service.matches import referee
from service.matches.jsontext import compact
from service.matches.keys import beat_ms, shard_of
from service.matches.liveness import report
from service.matches.match import Live, Meta
from service.matches.store import Conflict, Store
from service.web.metrics import FLAGS

MAX_ATTEMPTS = 8  # reads after lost races before giving up (each loss means someone else made progress)

T = TypeVar("T")


def retried(attempt: Callable[[], T], exhausted: Callable[[], Exception]) -> T:
    """``attempt()`` until it does not raise :class:`Conflict` (someone changed
    the match between its read and its commit), at most :data:`MAX_ATTEMPTS`
    times; then ``exhausted()`` is raised."""
    for _ in range(MAX_ATTEMPTS):
        try:
            return attempt()
        except Conflict:
            continue
    raise exhausted()


@dataclass(frozen=True, slots=True)
class Settled:
    """A match read with every due flag applied (and committed): its fixed
    and live parts, revision, the time of the read, the record's length, and
    where the Idempotency-Key asked for points."""

    meta: Meta
    live: Live
    rev: str
    now: int
    length: int
    pointer: str | None = None


def settled(store: Store, match_id: str, idempotency_key: str | None = None) -> Settled:
    """Read a match and apply the flags due by now, committing them.  Raises
    Gone for an unknown match; a lost race is read again."""

    def exhausted() -> Exception:
        return redis.TimeoutError(f"match {match_id} kept changing while its flags were applied")

    return retried(lambda: _settle_once(store, match_id, idempotency_key), exhausted)


def _settle_once(store: Store, match_id: str, idempotency_key: str | None) -> Settled:
    snap = store.read(match_id, idempotency_key)
    if snap.beat is not None and snap.now_ms - beat_ms(snap.beat) > store.outage_ms:
        # R-T3: nobody served the shard for a while: its clocks get that time back first (once: whoever
        # comes first credits, beat.lua), however long ago that was
        report(store.beat_one(shard_of(match_id)), "a request")
        raise Conflict(match_id)  # read again, credited
    meta, live = Meta.from_json(snap.meta), Live.from_json(snap.live)
    if not live.clock.due(snap.now_ms):
        return Settled(meta, live, snap.rev, snap.now_ms, snap.length, snap.pointer)
    new, entries = referee.settle(GAMES[meta.game], live, snap.now_ms)
    rev = store.commit(
        match_id,
        snap.rev,
        new.to_json(),
        new.clock.deadline,
        [compact(e.to_json()) for e in entries],
        finished_ms=new.finished_ms if new.finished else None,
    )  # fmt: skip  (Conflict: another sweeper or request settled or moved first: look again)
    FLAGS.labels(meta.game).inc(sum(1 for e in entries if e.kind == "flag"))
    return Settled(meta, new, str(rev), snap.now_ms, snap.length + len(entries), snap.pointer)
