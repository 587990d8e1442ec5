"""The deliverer: posts a match's changes to its webhooks by itself (issue 22), ``flask --app service deliver``.

It (``make run`` starts one when ``WEBHOOK_ALLOW`` is set, service/run/serve.py) runs beside the app, never in
a request: a move commits and answers as it always did, and the deliverer
finds the change in the match's record afterwards.  Woken by the commit's
publication on the match's channel (the hub's pub/sub), and at least every
``WEBHOOK_POLL_S``, it reads, on each Redis master, the matches indexed as having webhooks
(service/matches/outbox.py) with each webhook's cursor and the record's length;
for each webhook behind the record it builds the next change's payload - once per
process, for every webhook of the match: the stream's events
(service/matches/events.py ``step_events``), the announcements, the post
(views.post) and the PNG (the bounded renderer pool, service/api/renderer.py;
service/matches/webhook_formats.py) - claims the webhook's lease, posts
(service/matches/webhook_send.py), and moves the cursor on.

Order and failures: a webhook gets the changes in the record's order, one at a
time.  A failed try (a refused or dropped connection, a timeout, 408, 429, a
5xx) is tried again after ``WEBHOOK_BACKOFF_S``, doubling up to
``WEBHOOK_BACKOFF_MAX_S`` (a 429's ``Retry-After`` when longer, within that
cap), at most ``WEBHOOK_TRIES`` times; then that change is given up and the
webhook goes on with the next, so one bad minute does not silence a match for
good.  A redirect (3xx) and any other 4xx are given up at once (trying again
would not help).  Every failure is recorded (time, change, status or error,
try) and readable with ``GET /v1/matches/{id}/webhooks``.

At most once: a change is posted to a webhook only by the deliverer holding
that webhook's lease for it, and never again once the webhook answered 2xx.
A try with no answer (a read timeout, a deliverer killed mid-post) is tried
again, so a receiver that took it without answering in time may see it twice;
each request carries ``X-Umpire-Delivery: <match>:<entry>`` for it to drop.

Only hosts in ``WEBHOOK_ALLOW`` (checked at creation and again before every post).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import click
import httpx
import redis
from flask import Flask, current_app

from engine.game import RESERVED
from engine.registry import GAMES
from service.api import renderer
from service.matches import db, outbox, referee, webhook_formats
from service.matches.db import get_store
from service.matches.events import Ids, step_events
from service.matches.hub import Hub
from service.matches.outbox import Hook
from service.matches.referee import Meta
from service.matches.store import Gone, Store
from service.matches.webhook_formats import Change
from service.matches.webhook_send import Sent, send

log = logging.getLogger(__name__)

BATCH = 20  # changes one task posts to one webhook before it lets others have the thread
MIN_ROUND_S = 0.02  # a deliverer looks at most this often, however many matches change


class Walker:
    """One match's record walked by the engine in this process, and its changes built so far
    (kept from the earliest entry a webhook still needs)."""

    def __init__(self, match_id: str, meta: Meta) -> None:
        self.match_id, self.meta = match_id, meta
        self.game = GAMES[meta.game]
        self.lock = threading.Lock()
        self.end_marked = False
        self._reset()

    def _reset(self) -> None:
        self.walked = 0
        self.position: Any = None
        self.ids = Ids()
        self.built: dict[int, Change] = {}

    def get(self, store: Store, index: int) -> Change:
        """Record entry ``index`` (from 0) as a change; Gone when the record does not have it."""
        with self.lock:
            found = self.built.get(index)
            if found is not None:
                return found
            if index < self.walked:  # dropped already: walk again from the start
                self._reset()
            raw = store.record(self.match_id, self.walked, index)
            if len(raw) < index - self.walked + 1:
                raise Gone(self.match_id)
            entries = referee.entries_of(raw)
            for step in referee.walk(self.game, self.meta, entries, self.position):
                made = step_events(self.meta.game, self.meta, step, self.ids)
                stream = [{"id": event_id, **data} for _, event_id, data in made]
                before, after = self.game.dump(step.before), self.game.dump(step.after)
                moves = referee.record_moves([step.entry])
                move = moves[0] if moves and moves[0].split()[0] not in RESERVED else None
                ended = after["status"] == "finished" and before["status"] != "finished"
                self.built[self.walked] = Change(
                    self.match_id, self.meta, self.walked + 1, after["ply"], before, after, step.events, stream, move, ended
                )
                self.position = step.after
                self.walked += 1
            return self.built[index]

    def forget_before(self, index: int) -> None:
        with self.lock:
            for k in [k for k in self.built if k < index]:
                del self.built[k]


class Wake(Hub):
    """The hub's one pub/sub connection (service/matches/hub.py), which every commit publishes on:
    here it wakes the deliverer whenever any match changes."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.changed = threading.Event()

    def notify(self, match_id: str | None = None) -> None:
        self.changed.set()
        super().notify(match_id)


class Deliverer:
    """Posts the changes of every match with webhooks, on every master, from a pool of threads."""

    def __init__(self, app: Flask, store: Store) -> None:
        cfg = app.config
        self.app, self.store = app, store
        self.owner = secrets.token_hex(8)  # this deliverer, in the leases it takes
        self.poll_s = float(cfg["WEBHOOK_POLL_S"])
        self.tries = max(1, int(cfg["WEBHOOK_TRIES"]))
        self.backoff_s, self.backoff_max_s = float(cfg["WEBHOOK_BACKOFF_S"]), float(cfg["WEBHOOK_BACKOFF_MAX_S"])
        self.max_bytes = int(cfg["WEBHOOK_MAX_BYTES"])
        self.public = str(cfg["PUBLIC_URL"] or "")
        self.timeout_s = timeout = float(cfg["WEBHOOK_TIMEOUT_S"])
        self.down: set[str] = set()  # masters whose last look failed (warned once, until they answer)
        # No redirects, no proxy or .netrc from the environment, certificates verified.
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False, verify=True,
            limits=httpx.Limits(max_connections=int(cfg["WEBHOOK_THREADS"]) * 2, max_keepalive_connections=8),
        )  # fmt: skip
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(cfg["WEBHOOK_THREADS"])), thread_name_prefix="webhook")
        self.lock = threading.Lock()
        self.running: set[tuple[str, int]] = set()
        self.walkers: dict[str, Walker] = {}
        self.wake = Wake(store)
        for name in ("httpx", "httpcore"):  # their INFO and DEBUG lines name the URL, a secret
            logging.getLogger(name).setLevel(logging.WARNING)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.client.close()

    def allow(self) -> frozenset[tuple[str, int | None]]:
        return outbox.allowed(str(self.app.config["WEBHOOK_ALLOW"] or ""))

    def round(self) -> int:
        """Look at every master once and start a post for each webhook with a change due;
        returns how many were started."""
        started = 0
        seen: set[str] = set()
        for name, (client, shards) in self.store.masters().items():
            try:
                secs, micros = client.time()  # the time the outbox's scripts go by (not a test's fake clock)
                now = int(secs) * 1000 + int(micros) // 1000
                rows = outbox.pending(self.store, client, shards)
            except redis.RedisError as e:
                if name not in self.down:
                    log.warning("webhooks: master %s is not answering (%s); posting for the others", name, e)
                    self.down.add(name)
                continue
            self.down.discard(name)
            for match_id, raw, length in rows:
                seen.add(match_id)
                hooks = outbox.hooks_of(raw)
                cursors = [int(raw.get(f"c:{i}", 0)) for i in range(len(hooks))]
                walker = self.walkers.get(match_id)
                if walker is not None:
                    walker.forget_before(min(cursors))
                for i, hook in enumerate(hooks):
                    if cursors[i] >= length or int(raw.get(f"due:{i}", 0)) > now or _leased(raw.get(f"lease:{i}"), now):
                        continue
                    with self.lock:
                        if (match_id, i) in self.running:
                            continue
                        self.running.add((match_id, i))
                    self.pool.submit(self._task, match_id, i, hook, cursors[i], length)
                    started += 1
        with self.lock:
            for gone in set(self.walkers) - seen:
                del self.walkers[gone]
        return started

    def _walker(self, match_id: str) -> Walker:
        with self.lock:
            found = self.walkers.get(match_id)
        if found is None:
            meta = Meta.from_json(self.store.read(match_id).meta)
            with self.lock:
                found = self.walkers.setdefault(match_id, Walker(match_id, meta))
        return found

    def _task(self, match_id: str, webhook: int, hook: Hook, cursor: int, length: int) -> None:
        try:
            walker = self._walker(match_id)
            for _ in range(BATCH):
                if cursor >= length or not self._deliver(walker, webhook, hook, cursor):
                    return
                cursor += 1
                self.wake.changed.set()  # a change made while this one was posted is looked for at once
        except Gone:
            pass  # the match expired: its outbox goes with it
        except renderer.Busy:  # every renderer busy: the next round takes it up (nothing was claimed)
            log.debug("webhooks: match %s waits for a renderer", match_id)
        except redis.RedisError as e:
            log.warning("webhooks: match %s not posted this round (%s)", match_id, e)
        except Exception:  # one match's fault must not stop every other match's posts
            log.exception("webhooks: match %s could not be posted", match_id)
        finally:
            with self.lock:
                self.running.discard((match_id, webhook))

    def _deliver(self, walker: Walker, webhook: int, hook: Hook, cursor: int) -> bool:
        """One try of record entry ``cursor`` to one webhook; True when it moved on (posted or given up)."""
        store, match_id = self.store, walker.match_id
        change = walker.get(store, cursor)
        if change.ended and not walker.end_marked:
            outbox.mark_end(store, match_id, change.seq)
            walker.end_marked = True
        refused = outbox.refusal(hook.url, self.allow())
        request, failed = None, None
        if refused is None:
            try:
                request = webhook_formats.payload(change, hook.format, self.app, self.public)
            except renderer.Busy:
                raise
            except Exception as e:  # a post that cannot be made is a failed try: recorded, tried again, given up
                log.warning("webhooks: match %s change %d could not be made", match_id, change.seq, exc_info=True)
                failed = Sent(False, None, f"the post could not be made: {type(e).__name__}: {e}"[:300], again=True)
        attempt = outbox.claim(store, match_id, webhook, cursor, self.owner)
        if not attempt:
            return False  # posted already, another deliverer has it, or not due yet
        if refused is not None:
            sent = Sent(False, None, refused)
        elif failed is not None or request is None:
            sent = failed or Sent(False, None, "nothing to post")
        else:
            sent = send(self.client, hook, request, f"{match_id}:{change.seq}", self.max_bytes, self.timeout_s)
        if sent.ok:
            return outbox.finish(store, match_id, webhook, cursor, self.owner, "ok")
        again = sent.again and attempt < self.tries
        wait_s = min(self.backoff_max_s, max(self.backoff_s * 2 ** (attempt - 1), sent.wait_s))
        failure = {
            "webhook": webhook,
            "at": referee.iso(int(time.time() * 1000)),
            "seq": change.seq,
            "event": change.stream[0]["id"] if change.stream else None,
            "ply": change.ply,
            "attempt": attempt,
            "status": sent.status,
            "error": sent.error,
            "gave_up": not again,
        }
        log.warning(
            "webhooks: %s post of match %s change %d to %s failed (try %d): %s",
            hook.format, match_id, change.seq, hook.host, attempt, sent.error,
        )  # fmt: skip
        outcome = "retry" if again else "fail"
        moved = outbox.finish(store, match_id, webhook, cursor, self.owner, outcome, round(wait_s * 1000), failure)
        return moved and not again

    def run(self, stop: threading.Event) -> None:
        """Post until ``stop`` is set: a round as soon as any match changes (the hub's pub/sub
        wake), else every ``WEBHOOK_POLL_S`` (retries falling due, a wake-up lost), at most one
        round every ``MIN_ROUND_S``."""
        self.wake._start()
        try:
            while not stop.is_set():
                started = time.monotonic()
                self.wake.changed.clear()
                try:
                    self.round()
                except Exception:  # a round that fails is tried again: the next poll
                    log.exception("webhooks: a round failed")
                until = started + self.poll_s
                while not stop.is_set() and not self.wake.changed.is_set() and time.monotonic() < until:
                    self.wake.changed.wait(min(0.5, max(0.0, until - time.monotonic())))
                stop.wait(max(0.0, started + MIN_ROUND_S - time.monotonic()))
        finally:
            self.wake.stop()


def _leased(lease: str | None, now: int) -> bool:
    return lease is not None and int(lease.rsplit(" ", 1)[-1]) > now


@click.command("deliver")
def deliver_command() -> None:
    """Post every change of matches with webhooks to them (issue 22)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    for attempt in range(10**9):  # a deliverer started before its Redis waits for it
        try:
            store = get_store(app)
            store.ping()
            break
        except redis.RedisError as e:
            if attempt % 10 == 0:
                log.warning("webhooks: Redis is not reachable yet (%s); waiting for it", e)
            time.sleep(1.0)
    log.info("posting to webhooks every %.2f s at most", float(app.config["WEBHOOK_POLL_S"]))
    stop = threading.Event()
    deliverer = Deliverer(app, store)
    try:
        deliverer.run(stop)
    except KeyboardInterrupt:
        stop.set()
    finally:
        deliverer.close()
        db.close(app)  # the renderer processes, the hub, Redis's connections
