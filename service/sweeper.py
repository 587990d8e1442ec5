"""Flags on time with nobody asking: the sweeper (RULES R-T1, R-X6).

Every match's next deadline sits in its shard's Redis sorted set (256 of
them, so that no one key is touched by every move; service/store.py).  A
sweeper looks at every shard, sleeps until the earliest deadline (never
longer than ``SWEEP_INTERVAL_S``, so it sees deadlines set meanwhile), then
settles each due match: it applies the flag
dated at the deadline and commits it with the same compare-and-set as a
move.  Any number of sweepers and app processes may do this at once: for
each change exactly one commit wins, the others find the match already
settled.  Reads settle too (:func:`settled`), so a match is right even when
no sweeper runs.

Run one with ``flask --app service sweep`` (``make run`` starts one beside
gunicorn unless ``SWEEPER=0``).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

import click
import redis
from flask import current_app

from engine.registry import GAMES
from service import referee
from service.db import get_store
from service.metrics import FLAGS
from service.referee import Live, Meta
from service.store import Conflict, Gone, Store, Unconfirmed

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8


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
    for _ in range(MAX_ATTEMPTS):
        snap = store.read(match_id, idempotency_key)
        meta, live = Meta.from_json(snap.meta), Live.from_json(snap.live)
        if not live.clock.due(snap.now_ms):
            return Settled(meta, live, snap.rev, snap.now_ms, snap.length, snap.pointer)
        new, entries = referee.settle(GAMES[meta.game], live, snap.now_ms)
        try:
            rev = store.commit(
                match_id, snap.rev, new.to_json(), new.clock.deadline, [referee.compact(e) for e in entries],
                finished_ms=new.finished_ms if new.finished else None,
            )  # fmt: skip
        except Conflict:
            continue  # another sweeper or request settled or moved first: look again
        FLAGS.labels(meta.game).inc(sum(1 for e in entries if e["k"] == "flag"))
        return Settled(meta, new, str(rev), snap.now_ms, snap.length + len(entries), snap.pointer)
    raise redis.TimeoutError(f"match {match_id} kept changing while its flags were applied")


def sweep_once(store: Store, now: int | None = None, batch: int = 500) -> int:
    """Settle the matches whose deadline passed by ``now`` (at most ``batch``
    of them); returns how many were looked at."""
    now = store.now_ms() if now is None else now
    ids = store.due(now, batch)
    for match_id in ids:
        try:
            cur = settled(store, match_id)
        except Gone:
            store.forget_deadline(match_id)  # the match expired or was never there
            continue
        # Commits keep the sorted set right; should an entry ever disagree with its
        # match, put it right rather than look at it again and again.
        store.set_deadline(match_id, cur.live.clock.deadline)
    return len(ids)


PRUNE_EVERY_S = 60.0  # how often a sweeper drops expired matches from the indexes (Store.prune)


def run(store: Store, interval_s: float, stop: threading.Event) -> None:
    """Sweep until ``stop`` is set, sleeping until the next deadline falls due;
    every ``PRUNE_EVERY_S`` drop expired matches from the indexes."""
    pruned_at = float("-inf")
    while not stop.is_set():
        try:
            now = store.now_ms()
            sweep_once(store, now)
            if time.monotonic() - pruned_at >= PRUNE_EVERY_S:
                pruned_at = time.monotonic()
                store.prune(now)
            nxt = store.next_deadline()
            # A flag is due the first millisecond after its deadline.
            sleep = interval_s if nxt is None else min(interval_s, max(0.0, (nxt + 1 - now) / 1000))
        except (redis.RedisError, Unconfirmed) as e:
            log.warning("sweeper: Redis is not answering (%s); trying again", e)
            sleep = 1.0
        except Exception:  # one bad match must not stop the flags of all the others
            log.exception("sweeper: a match could not be settled")
            sleep = interval_s
        stop.wait(sleep)


@click.command("sweep")
@click.option("--once", is_flag=True, help="Apply what is due now and exit.")
def sweep_command(once: bool) -> None:
    """Apply flags the moment they fall due (RULES R-T1, R-X6)."""
    store = get_store(current_app._get_current_object())  # type: ignore[attr-defined]
    if once:
        click.echo(f"{sweep_once(store)} match(es) settled")
        return
    # its lines go to the service's log handler (service/requestlog.py: LOG_FORMAT), once
    log.info("sweeping %s's 256 shards every %.2f s at most", store.prefix, current_app.config["SWEEP_INTERVAL_S"])
    stop = threading.Event()
    try:
        run(store, float(current_app.config["SWEEP_INTERVAL_S"]), stop)
    except KeyboardInterrupt:
        stop.set()
