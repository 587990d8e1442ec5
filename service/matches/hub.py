"""One Redis pub/sub connection per process, fanned out to every request that
waits on a match (long-polls, event streams).

Every commit publishes the match's new revision on its channel
(service/matches/commit.lua).  The hub listens to all match channels with one
pattern subscription, in one background thread (a greenlet under gunicorn's
gevent worker), and wakes the waiters of the match named: the match's feed
(service/matches/events.py), which reads it once and wakes its listeners.  So a
thousand waiting listeners cost a thousand sleeping events and no Redis
connections of their own: nothing holds a worker, a thread of a pool or a
socket to Redis while it waits.

A waiter registers *before* it re-reads the match (:meth:`Hub.watch`), so a
change between its read and its wait is never missed; when the hub loses
Redis it wakes everybody (they re-read, and see the failure for themselves)
and reconnects.  :meth:`Hub.notified_at` says when a match was last
notified, so that of many waiters woken together one re-reads the match for
all (service/matches/events.py ``Feed``).

Listeners are admitted (:meth:`Hub.admit`) before they wait: at most
``per_match`` of one match and ``per_address`` of one client address in this
process (0: no cap); one more is :class:`Crowded`, which the service answers
``503 too_many_listeners`` (the match) or ``429 too_many_concurrent`` (the
address).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import redis

from service.matches.store import Store
from service.web.metrics import LISTENERS

log = logging.getLogger(__name__)


class Crowded(Exception):
    """A listener over a cap: ``what`` is ``match`` or ``address``, ``limit`` the cap."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"over the cap of {limit} listeners per {what}")
        self.what, self.limit = what, limit


class Hub:
    def __init__(self, store: Store, per_match: int = 0, per_address: int = 0) -> None:
        self.store = store
        self.per_match, self.per_address = per_match, per_address
        self._waiters: dict[str, set[threading.Event]] = {}
        self._notified: dict[str, float] = {}  # match id -> when it was last notified (monotonic), while watched
        self._reset_at = 0.0  # when every waiter was last woken (a reconnect)
        self._listening = 0  # requests listening to a match (service/matches/events.py Listening)
        self._admitted: dict[str, int] = {}  # match id -> listeners admitted
        self._by_address: dict[str, int] = {}  # client address -> listeners admitted
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.connected = threading.Event()

    @property
    def listeners(self) -> int:
        """Requests listening to a match in this process now (event streams, long-polls)."""
        with self._lock:
            return self._listening

    @contextmanager
    def listening(self) -> Iterator[None]:
        """One request listening to a match while the block runs: counted here and in ``umpire_listeners``."""
        with self._lock:
            self._listening += 1
        LISTENERS.inc()
        try:
            yield
        finally:
            LISTENERS.dec()
            with self._lock:
                self._listening -= 1

    def admit(self, match_id: str, address: str | None) -> Callable[[], None]:
        """Count one more listener of ``match_id`` from ``address``, or raise
        :class:`Crowded`; returns the function that counts it out (once)."""
        with self._lock:
            if self.per_match and self._admitted.get(match_id, 0) >= self.per_match:
                raise Crowded("match", self.per_match)
            if address is not None and self.per_address and self._by_address.get(address, 0) >= self.per_address:
                raise Crowded("address", self.per_address)
            self._admitted[match_id] = self._admitted.get(match_id, 0) + 1
            if address is not None:
                self._by_address[address] = self._by_address.get(address, 0) + 1
        done = threading.Event()

        def release() -> None:
            if done.is_set():
                return
            done.set()
            with self._lock:
                for counts, key in ((self._admitted, match_id), (self._by_address, address)):
                    if key is None:
                        continue
                    left = counts.get(key, 0) - 1
                    if left > 0:
                        counts[key] = left
                    else:
                        counts.pop(key, None)

        return release

    def notified_at(self, match_id: str) -> float:
        """When ``match_id`` was last notified (``time.monotonic``), 0 if never while watched."""
        with self._lock:
            return max(self._notified.get(match_id, 0.0), self._reset_at)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="umpire-hub", daemon=True)
                self._thread.start()

    @contextmanager
    def watch(self, match_id: str) -> Iterator[threading.Event]:
        """An event set whenever ``match_id`` changes (or the hub reconnects)
        while the block runs.  Read the match *inside* the block, then wait.
        (One per match and process: a feed's waker, service/matches/events.py.)"""
        self._start()
        event = threading.Event()
        with self._lock:
            self._waiters.setdefault(match_id, set()).add(event)
        try:
            yield event
        finally:
            with self._lock:
                waiting = self._waiters.get(match_id)
                if waiting is not None:
                    waiting.discard(event)
                    if not waiting:
                        del self._waiters[match_id]
                        self._notified.pop(match_id, None)

    def notify(self, match_id: str | None = None) -> None:
        """Wake the waiters of ``match_id`` (of every match when None)."""
        now = time.monotonic()
        with self._lock:
            if match_id is None:
                self._reset_at = now
                events = [e for waiting in self._waiters.values() for e in waiting]
            else:
                if match_id in self._waiters:
                    self._notified[match_id] = now
                events = list(self._waiters.get(match_id, ()))
        for event in events:
            event.set()

    def stop(self, timeout: float = 5.0) -> None:
        """End the listening thread (it notices within a second)."""
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread.is_alive():
            thread.join(timeout)

    def _run(self) -> None:
        backoff = 0.1
        while not self._stopping.is_set():
            pubsub = None
            try:
                pubsub = self.store.r.pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(self.store.channels)
                self.connected.set()
                self.notify()  # whatever changed while we were away: everybody looks again
                backoff = 0.1
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "pmessage":
                        self.notify(self.store.channel_match(str(message["channel"])))
            except (redis.RedisError, OSError) as e:
                log.warning("hub: lost the match channels (%s); reconnecting", e)
            except Exception:  # a bug must not silence every waiter of the process for good
                log.exception("hub: unexpected failure; reconnecting")
            finally:
                self.connected.clear()
                if pubsub is not None:
                    with suppress(redis.RedisError, OSError):
                        pubsub.close()
            self.notify()
            if self._stopping.wait(backoff):
                return
            backoff = min(2.0, backoff * 2)
