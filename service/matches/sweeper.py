"""Flags on time with nobody asking: the sweeper (RULES R-T1, R-X6).

Every match's next deadline sits in its shard's Redis sorted set (256 of
them, so that no one key is touched by every move; service/matches/store.py).  A
sweeper looks at every shard, sleeps until the earliest deadline (never
longer than ``SWEEP_INTERVAL_S``, so it sees deadlines set meanwhile), then
settles each due match: it applies the flag
dated at the deadline and commits it with the same compare-and-set as a
move.  Any number of sweepers and app processes may do this at once: for
each change exactly one commit wins, the others find the match already
settled.  Reads settle too (service/matches/cas.py ``settled``, which the
sweeper reads through like everyone else), so a match is right even when no
sweeper runs.

Each master is swept on its own (one round trip for its shards' deadlines),
so a master that is down delays nobody else's flags: the sweeper logs it and
carries on with the others.

Outages are credited (RULES R-T3).  A running sweeper is a serving process:
it beats every shard of a master (``BEAT_S``) before it looks there, and so
credits first any outage it finds (service/matches/liveness.py), as the app's
workers do; every match it settles is read through service/matches/cas.py,
which credits a stale shard before it applies any flag.

Run one with ``flask --app service sweep`` (``make run`` starts one beside
gunicorn unless ``SWEEPER=0``).
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from typing import Any

import click
import redis
from flask import current_app

from service.matches.cas import settled
from service.matches.db import get_store
from service.matches.liveness import report
from service.matches.store import Gone, Store, Unconfirmed
from service.web.appref import this_app

log = logging.getLogger(__name__)


def sweep_once(store: Store, now: int | None = None, batch: int = 500) -> int:
    """Settle the matches whose deadline passed by ``now`` (at most ``batch``
    of them, from every master that answers); returns how many were looked at.
    (What ``flask sweep --once`` does: no beats, credits only as its reads need; :class:`Sweeper` beats.)"""
    sweeper = Sweeper(store, beats=False)
    try:
        return sweeper.sweep(now, batch)
    finally:
        sweeper.close()


Outcome = tuple[int, int | None, int | None, Exception | None]  # looked at, earliest deadline, master's time, error


class Sweeper:
    """Sweeps every master in a thread of its own, carrying on past one that fails or hangs;
    with ``beats`` it also beats each master's shards every ``beat_s`` (crediting first the
    outages it finds, R-T3: service/matches/liveness.py)."""

    def __init__(self, store: Store, beats: bool = True, beat_s: float = 1.0) -> None:
        self.store = store
        self.beats = beats
        self.beat_s = beat_s
        self.pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="sweep")
        self.running: dict[str, Future[Outcome]] = {}  # a master's sweep still under way (a hung master)
        self.beaten_at: dict[str, float] = {}
        self.failed: dict[str, str] = {}  # master -> the error of its last sweep, while it fails
        self.firsts: dict[str, int | None] = {}  # each master's earliest deadline, as last seen
        self.next: int | None = None  # the earliest deadline seen on the masters that answered
        self.now: int | None = None  # the time on the last master that answered
        self.refreshing: Future[None] | None = None

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def sweep(self, now: int | None = None, batch: int = 500, wait_s: float | None = None) -> int:
        """Look at every master at once; returns how many matches were looked at.  ``wait_s``
        None waits for every master; else at most that long: a master still being swept then
        (stuck until the client's timeout) is skipped until its sweep ends, so it never holds
        the others' flags or beats back."""
        store = self.store
        masters = store.masters()
        for name, (client, shards) in masters.items():
            if name in self.running:
                continue
            beat = self.beats and time.monotonic() - self.beaten_at.get(name, float("-inf")) >= self.beat_s
            self.running[name] = self.pool.submit(self._sweep_master, name, client, shards, now, batch, beat)
        futures_wait(list(self.running.values()), timeout=wait_s)
        looked = 0
        for name, future in list(self.running.items()):
            if not future.done():
                continue
            del self.running[name]
            count, first, at, error = future.result()
            looked += count
            if error is not None:
                if name not in self.failed:
                    log.warning("sweeper: master %s is not answering (%s); sweeping the others", name, error)
                self.failed[name] = str(error)
                self.firsts.pop(name, None)
                continue
            self.failed.pop(name, None)
            self.firsts[name] = first
            self.now = at if self.now is None or at is None else max(self.now, at)
        for gone in set(self.firsts) - set(masters):
            del self.firsts[gone]
        if self.failed and (self.refreshing is None or self.refreshing.done()):
            self.refreshing = self.pool.submit(self._refresh)  # a failover may have moved the shards
        nexts = [first for first in self.firsts.values() if first is not None]
        self.next = min(nexts) if nexts else None
        return looked

    def _refresh(self) -> None:
        try:
            self.store.refresh()
        except (redis.RedisError, redis.exceptions.RedisClusterException) as e:
            log.warning("sweeper: the cluster's layout could not be read (%s)", e)
        time.sleep(1.0)  # at most once a second

    def _sweep_master(self, name: str, client: Any, shards: list[int], now: int | None, batch: int, beat: bool) -> Outcome:
        """(matches looked at, the earliest deadline left, the master's time, the error if it failed)."""
        store, looked = self.store, 0
        try:
            if beat:  # first: an outage found is credited before this round looks for flags (R-T3)
                report(store.beat(client, shards, now), "a sweeper")
                self.beaten_at[name] = time.monotonic()
            at = store.master_now(client) if now is None else now
            due, first = store.look(client, shards, at, batch)
            for match_id in due:
                looked += 1
                self._settle(match_id)
            # A deadline was due (settled, or by another sweeper first: gone or later either way): the next
            # deadline is read again.  (Any due match comes from a shard due so.)
            moved = first is not None and first < at
            return looked, store.first_deadline(client, shards) if moved else first, at, None
        except (redis.RedisError, Unconfirmed) as e:
            return looked, None, None, e

    def _settle(self, match_id: str) -> None:
        try:
            cur = settled(self.store, match_id)
        except Gone:
            self.store.forget_deadline(match_id)  # the match expired or was never there
            return
        # Commits keep the sorted set right; should an entry ever disagree with its
        # match, put it right rather than look at it again and again.
        self.store.set_deadline(match_id, cur.live.clock.deadline)


PRUNE_EVERY_S = 60.0  # how often a sweeper drops expired matches from the indexes (Store.prune)


def run(store: Store, interval_s: float, stop: threading.Event, beat_s: float = 1.0) -> None:
    """Sweep until ``stop`` is set, sleeping until the next deadline falls due, beating every shard every
    ``beat_s`` (0: no beats); every ``PRUNE_EVERY_S`` drop expired matches from the indexes."""
    pruned_at = float("-inf")
    sweeper = Sweeper(store, beats=beat_s > 0, beat_s=beat_s)
    while not stop.is_set():
        try:
            sweeper.sweep(wait_s=interval_s)
            now = sweeper.now if sweeper.now is not None else store.now_ms()
            nxt = sweeper.next
            # A flag is due the first millisecond after its deadline.
            sleep = interval_s if nxt is None else min(interval_s, max(0.0, (nxt + 1 - now) / 1000))
            if time.monotonic() - pruned_at >= PRUNE_EVERY_S:
                pruned_at = time.monotonic()
                try:
                    store.prune(now)
                except redis.RedisError as e:  # a master down: the next round prunes
                    log.warning("sweeper: expired matches not pruned (%s)", e)
        except (redis.RedisError, Unconfirmed) as e:
            log.warning("sweeper: Redis is not answering (%s); trying again", e)
            sleep = 1.0
        except Exception:  # one bad match must not stop the flags of all the others
            log.exception("sweeper: a match could not be settled")
            sleep = interval_s
        stop.wait(sleep)
    sweeper.close()


@click.command("sweep")
@click.option("--once", is_flag=True, help="Apply what is due now and exit.")
def sweep_command(once: bool) -> None:
    """Apply flags the moment they fall due (RULES R-T1, R-X6)."""
    app = this_app()
    for attempt in range(10**9 if not once else 1):  # a sweeper started before its Redis waits for it
        try:
            store = get_store(app)
            break
        except redis.RedisError as e:
            if once:
                raise
            if attempt % 10 == 0:
                log.warning("sweeper: Redis is not reachable yet (%s); waiting for it", e)
            time.sleep(1.0)
    if once:
        click.echo(f"{sweep_once(store)} match(es) settled")
        return
    # its lines go to the service's log handler (service/web/requestlog.py: LOG_FORMAT), once
    log.info("sweeping %s's 256 shards every %.2f s at most", store.prefix, current_app.config["SWEEP_INTERVAL_S"])
    stop = threading.Event()
    try:
        run(store, float(current_app.config["SWEEP_INTERVAL_S"]), stop, float(current_app.config["BEAT_S"]))
    except KeyboardInterrupt:
        stop.set()
