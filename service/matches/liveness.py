"""Liveness beats: the service's record of when it served each shard, so outages are credited (RULES R-T3).

Every process that serves matches beats every shard about once a second
(``BEAT_S``): each gunicorn worker from a background thread started when it
boots (:func:`keep`, from service/run/gunicorn_conf.py), each sweeper in its
rounds (service/matches/sweeper.py).  A beat is the shard's master's time,
written by beat.lua; a beat older than ``OUTAGE_S`` (3 s) therefore means that
no serving process reached the shard for that long: its master was down,
frozen or failing over, or the whole service was stopped.  That is an outage,
and the time is given back to every clock running there before anything else
happens on the shard:

* whoever meets the stale beat first credits it, in the same script that
  renews the beat, so an outage is credited exactly once: a worker's or a
  sweeper's beat, or a request that reads one of the shard's matches
  (service/matches/cas.py, which every read, move and flag goes through);
* each running turn's start, and so its deadline, moves later by
  ``now - max(beat, the turn's start)``: the time since the shard was last
  served, or since the turn began when it began after that;
* however long the outage, and whichever process comes back first.

So the credit is never less than the time the service could not take a move
(after an outage of more than ``OUTAGE_S``) and at most one beat interval more:
the service went down at most ``BEAT_S`` after its last beat (plus, when Redis
itself crashed, the writes its ``appendfsync`` had not saved yet: up to 1 s with
``everysec``).  An outage of ``OUTAGE_S`` or less is not credited.  Time in
which some serving process kept beating (a sweeper alone, with every app
worker down) is not an outage of the store and is charged as usual.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import redis
from flask import Flask

from service.matches.db import get_store
from service.matches.store import Credit, Store

log = logging.getLogger(__name__)


def report(credits: Sequence[Credit], by: str) -> None:
    """One warning for the shards one beat (or read) credited: an outage is worth a line in the log."""
    if credits:
        said = "%d shard(s) not served for up to %d ms: %d running clock(s) credited (by %s; RULES R-T3)"
        log.warning(said, len(credits), max(c.gap_ms for c in credits), sum(c.turns for c in credits), by)


class Keeper:
    """Beats every master's shards every ``every_s`` from a thread of its own, each master in a thread of
    the pool so that one hung master never delays the others' beats (a master still being beaten is
    skipped until that beat ends)."""

    def __init__(self, store: Callable[[], Store], every_s: float, by: str = "a worker") -> None:
        self.get_store, self.every_s, self.by = store, every_s, by
        self.pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="beat")
        self.running: dict[str, Future[None]] = {}
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def round(self) -> list[Future[None]]:
        """Beat every master that is not still being beaten from the last round; the beats under way."""
        for name, future in list(self.running.items()):
            if future.done():
                del self.running[name]
        try:
            store = self.get_store()
            masters = store.masters()
        except (redis.RedisError, redis.exceptions.RedisClusterException) as e:
            log.warning("liveness: no beats this round (%s)", e)
            return []
        for name, (client, shards) in masters.items():
            if name not in self.running:
                try:
                    self.running[name] = self.pool.submit(self._beat, store, name, client, shards)
                except RuntimeError:  # the pool is shut down: stop() came during this round (a worker's SIGTERM)
                    if not self.stopping.is_set():
                        raise
                    break
        return list(self.running.values())

    def _beat(self, store: Store, name: str, client: Any, shards: list[int]) -> None:
        try:
            report(store.beat(client, shards), self.by)
        except redis.RedisError as e:  # the master is down: its shards' beats age, and are credited when it is back
            log.debug("liveness: master %s not beaten (%s)", name, e)
            if store.cluster:
                with contextlib.suppress(redis.RedisError, redis.exceptions.RedisClusterException):
                    store.refresh()  # a failover may have moved its shards

    def start(self) -> Keeper:
        self.thread = threading.Thread(target=self._run, name="liveness", daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                self.round()
            except Exception:  # the beats must outlive any one failure
                log.exception("liveness: a round of beats failed")
            self.stopping.wait(max(0.0, self.every_s - (time.monotonic() - started)))

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(5)
        self.pool.shutdown(wait=False, cancel_futures=True)


def keep(app: Flask) -> None:
    """Keep this process's beats for ``app``'s store (an app worker, at boot: service/run/gunicorn_conf.py);
    once per process and app, stopped by service/matches/db.py ``close``.  ``BEAT_S`` 0 keeps none.  The
    store is made by the first round (with no ``REDIS_URL`` that starts the embedded Redis, as the first
    request would); a Redis that cannot be reached yet only delays the first beat."""
    if app.extensions.get("umpire.liveness") is not None or float(app.config["BEAT_S"]) <= 0:
        return
    app.extensions["umpire.liveness"] = Keeper(lambda: get_store(app), float(app.config["BEAT_S"])).start()
