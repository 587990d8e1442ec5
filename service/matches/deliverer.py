"""The deliverer: posts a match's changes to its webhooks by itself (issue 22), ``flask --app service deliver``.

It runs beside the app (``make run`` starts one when ``WEBHOOK_ALLOW`` is set,
service/run/serve.py), never in a request: a move commits and answers as it
always did, and the deliverer finds the change in the match's record
afterwards.  Woken by the commit's publication on the match's channel (the
hub's pub/sub), and at least every ``WEBHOOK_POLL_S``, it reads, on each Redis
master, the matches indexed as having webhooks (service/matches/outbox.py) with
each webhook's cursor and the record's length, and starts a try for each
webhook behind its record: it walks the record to the change (:class:`Walker`),
makes the post (service/matches/webhook_formats.py: the PNG in the bounded
renderer pool), claims the webhook's lease, posts (service/matches/webhook_send.py)
and moves the cursor on.

Nothing a receiver does holds the others (issue 34 item 1).  The posts are
asyncio tasks on one event loop; a try has one deadline, ``WEBHOOK_TIMEOUT_S``,
from connecting to its answer's headers.  Each host (``host:port``) has a line
of its own: at most ``WEBHOOK_PER_HOST`` tries under way to it (and retries,
tries of webhooks whose last try failed, at most half of those), the rest
waiting in its line.  There is no line shared by every host: a host that
stalls holds its own few tries and never another host's posts, and the tries
under way are at most ``WEBHOOK_PER_HOST`` times the hosts ``WEBHOOK_ALLOW``
names.  A webhook has one try under way at most (its changes go in order), a
match has at most three webhooks.

What it keeps is bounded (issue 34 item 2): per match, a few positions of the
record walked (where its webhooks stand); changes made (each with its picture)
``KEPT_BYTES`` (16 MiB) at most for the whole process, the least recently used
dropped first (and those before every webhook of their match at once); at most
``WALKERS_KEPT`` matches walked.  A change dropped is made again if it is wanted
again.  Beside those, only the posts being made and sent: at most
``WEBHOOK_PER_HOST`` per host.

Leases (issue 34 item 5): a try holds its webhook's lease, ``outbox.LEASE_MS``
(3 s), renewed every second while it runs; a deliverer that dies holds its
webhooks 3 s at most, so the one started next takes over at once.  A try whose
lease could not be renewed in time is cancelled (another deliverer may take it).

Order and failures: a webhook gets the changes in the record's order, one post
at a time.  A failed try (a refused or dropped connection, the deadline, 408,
429, a 5xx, a post that could not be made) is tried again after
``WEBHOOK_BACKOFF_S``, doubling up to ``WEBHOOK_BACKOFF_MAX_S`` (a 429's or 503's
``Retry-After`` when longer, within that cap), at most ``WEBHOOK_TRIES`` times;
then that change is given up and the webhook goes on with the next.  A redirect
(3xx), any other 4xx and a URL not allowed are given up at once.  Every
failure is recorded and readable with ``GET /v1/matches/{id}/webhooks``.

At least once (issue 34 item 4): a change is posted until a try of it is
answered 2xx and the deliverer records so, or it is given up.  A try whose
answer did not come in time, or whose 2xx was not recorded (the deliverer killed
right after it, Redis out of reach), is made again: the receiver may see a
change twice, each time with the same ``X-Umpire-Delivery: <match_id>:<seq>``.

Refused attempts (issue 34 item 6): those waiting for a webhook are one post
(webhook_formats.py), sent at once when it is the first in ``WEBHOOK_REFUSALS_S``,
else when the turn goes on (the next change is in the record), when
``REFUSALS_MOST`` (500) have gathered, or once that time has passed: a seat that
floods the umpire with refused moves makes, to each webhook, one post per turn,
one per ``WEBHOOK_REFUSALS_S`` and one per 500 refused attempts at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import heapq
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import click
import redis
from flask import Flask

from engine.registry import GAMES
from service.api import renderer
from service.matches import db, outbox, webhook_formats, webhook_send
from service.matches.db import get_store
from service.matches.description import Description, describe_step
from service.matches.events import Ids, stream_events
from service.matches.hub import Hub
from service.matches.match import Meta
from service.matches.outbox import Hook
from service.matches.record import Entry, entries_of, iso, walk
from service.matches.store import Gone, Store
from service.matches.webhook_formats import REFUSALS_LISTED, REFUSALS_SHOWN, Change
from service.matches.webhook_send import Sent
from service.web.appref import this_app

log = logging.getLogger(__name__)

Json = dict[str, Any]
T = TypeVar("T")
BATCH = 20  # changes one task posts to one webhook, each try in its host's line, before the next round
MIN_ROUND_S = 0.02  # a deliverer looks at most this often, however many matches change
RENEW_S = 1.0  # how often the leases of the tries under way are renewed (each lasts outbox.LEASE_MS)
KEPT, KEPT_BYTES = 1024, 16 << 20  # changes made (pictures included) kept for the process: at most so many, so large
WALKERS_KEPT = 512  # matches whose record walk is kept (positions only)
HEADS_KEPT = 4  # positions kept per match: where its (at most 3) webhooks stand, and one ahead
REFUSALS_MOST = 500  # refused attempts one post covers at most
BUSY_WAIT_S, BUSY_S = 0.5, 60.0  # a post whose picture the renderers cannot take waits so long, a failed try after so long


def refusal(entry: Entry) -> bool:
    """An illegal attempt that changed nothing (the reject policy): the turn runs on."""
    return entry.kind == "illegal" and not entry.forfeit


@dataclass
class Head:
    """A match's record walked up to entry ``walked`` (from 0): the position there, the event ids so far."""

    walked: int
    position: Any  # the engine's (None: the match's start)
    ids: Ids


class Walker:
    """One match's record walked by the engine in this process: a few positions of it (heads), so
    that each webhook's next change is made without walking from the start, and nothing more."""

    def __init__(self, match_id: str, meta: Meta) -> None:
        self.match_id, self.meta = match_id, meta
        self.game = GAMES[meta.game]
        self.lock = threading.Lock()
        self.end_marked = False
        self.heads: OrderedDict[int, Head] = OrderedDict()  # by entries walked, least recently used first
        self.wanted: set[int] = set()  # where the match's webhooks stand: those heads are kept

    def change(self, store: Store, cursor: int, entries: int) -> Change:
        """The post from record entry ``cursor`` (from 0): that entry, or when it is a refused attempt,
        the run of refused attempts from it (``entries`` of them when a try fixed it, else as many as
        wait, at most REFUSALS_MOST).  Gone when the record does not have it."""
        with self.lock:
            head = self._head(store, cursor)
            raw = store.record(self.match_id, cursor, cursor + max(entries, 1) - 1)
            if not raw:
                raise Gone(self.match_id)
            found = entries_of(raw)
            if refusal(found[0]) and entries != 1 and len(found) < (entries or REFUSALS_MOST + 1):
                more = (entries or REFUSALS_MOST + 1) - len(found)
                found += entries_of(store.record(self.match_id, cursor + len(found), cursor + len(found) + more - 1))
            if entries and len(found) < entries:
                raise Gone(self.match_id)
            via = found[0].via  # a run is of one channel's attempts (Entry.via): a webhook may skip that channel's
            run = 0
            while run < len(found) and run < (entries or REFUSALS_MOST) and refusal(found[run]) and found[run].via == via:
                run += 1
            followed = len(found) > run and (not refusal(found[run]) or found[run].via != via)
            return self._walk(head, found[: max(run, 1)], run, followed=followed)

    def _walk(self, head: Head, entries: list[Entry], refused: int, followed: bool) -> Change:
        """The post of ``entries`` (one change, or a run of ``refused`` refused attempts) from ``head``:
        each entry described as every channel describes it (``describe_step``), the run told as its
        first with the events and announcements of those it announces and the clocks after the last."""
        ids = copy.copy(head.ids)
        stream: list[Json] = []
        shown: list[Description] = []
        position, first, last = head.position, None, None
        for k, step in enumerate(walk(self.game, self.meta, entries, position)):
            d = describe_step(self.game, self.meta, step, seq=head.walked + k + 1)
            made = stream_events(d, ids)
            if len(stream) < (REFUSALS_LISTED if refused else 2):
                stream += [{"id": event_id, **data} for _, event_id, data in made]
            if k < (REFUSALS_SHOWN if refused else 1):
                shown.append(d)
            first = d if first is None else first
            last, position = d, step.after
        assert first is not None and last is not None
        self._keep(Head(head.walked + len(entries), position, ids))
        told = first
        if refused:  # the run as one post: what it announces, and the clocks as its last attempt left them
            events, said = [e for d in shown for e in d.events], [a for d in shown for a in d.announcements]
            told = replace(first, events=events, announcements=said, clock=last.clock)
        # a kept change holds no engine state (its position): what it keeps is counted (Change.kept_bytes)
        return Change(replace(told, position=None), head.walked + len(entries), stream, refused=refused, followed=followed)

    def _head(self, store: Store, cursor: int) -> Head:
        """The record walked up to ``cursor``: kept, or walked on from the nearest position before it."""
        found = self.heads.get(cursor)
        if found is not None:
            self.heads.move_to_end(cursor)
            return found
        below = [h for h in self.heads.values() if h.walked < cursor]
        start = max(below, key=lambda h: h.walked) if below else Head(0, None, Ids())
        ids = copy.copy(start.ids)
        position = start.position
        if cursor > start.walked:
            raw = store.record(self.match_id, start.walked, cursor - 1)
            if len(raw) < cursor - start.walked:
                raise Gone(self.match_id)
            for step in walk(self.game, self.meta, entries_of(raw), position):
                stream_events(describe_step(self.game, self.meta, step), ids)  # the ids of the events walked past
                position = step.after
        return self._keep(Head(cursor, position, ids))

    def _keep(self, head: Head) -> Head:
        self.heads[head.walked] = head
        self.heads.move_to_end(head.walked)
        spare = [walked for walked in self.heads if walked not in self.wanted and walked != head.walked]
        for walked in spare[: max(0, len(self.heads) - HEADS_KEPT)]:
            del self.heads[walked]
        return head

    def ply_before(self, cursor: int) -> int:
        """The ply of the position before entry ``cursor``, as far as the walk reached (0 if not at all)."""
        with self.lock:
            below = [h for h in self.heads.values() if h.walked <= cursor and h.position is not None]
            if not below:
                return 0
            return int(self.game.dump(max(below, key=lambda h: h.walked).position)["ply"])

    def stand(self, cursors: list[int]) -> None:
        """The match's webhooks stand at ``cursors``: their heads are kept, none before them."""
        with self.lock:
            self.wanted = set(cursors)
            for walked in [w for w in self.heads if w < min(cursors, default=0)]:
                del self.heads[walked]


class Kept:
    """The changes made lately (pictures included), at most ``most`` of them and ``most_bytes`` for
    the process, the least recently used dropped first: the webhooks of a match that stand at the
    same change share it, and a retry does not draw its picture again."""

    def __init__(self, most: int, most_bytes: int) -> None:
        self.most, self.most_bytes = most, most_bytes
        self.lock = threading.Lock()
        self.changes: OrderedDict[tuple[str, int], Change] = OrderedDict()

    def get(self, match_id: str, cursor: int, entries: int) -> Change | None:
        with self.lock:
            found = self.changes.get((match_id, cursor))
            if found is None:
                return None
            if (entries and found.entries != entries) or (not entries and found.refused and not found.followed):
                return None  # a try fixed another run, or the run may have grown since
            self.changes.move_to_end((match_id, cursor))
            return found

    def put(self, change: Change) -> None:
        """Keep ``change`` (again, once it has grown its picture and posts: its size is counted anew)."""
        with self.lock:
            key = (change.match_id, change.seq - 1)
            self.changes[key] = change
            self.changes.move_to_end(key)
            held = sum(c.kept_bytes() for c in self.changes.values())
            while len(self.changes) > 1 and (len(self.changes) > self.most or held > self.most_bytes):
                _, dropped = self.changes.popitem(last=False)
                held -= dropped.kept_bytes()

    def forget(self, match_id: str, before: int | None = None) -> None:
        """Drop the match's changes (those before entry ``before`` only, when given)."""
        with self.lock:
            for key in [k for k in self.changes if k[0] == match_id and (before is None or k[1] < before)]:
                del self.changes[key]

    def size(self) -> tuple[int, int]:
        """How many changes are kept, and their bytes (about: see Change.kept_bytes)."""
        with self.lock:
            return len(self.changes), sum(c.kept_bytes() for c in self.changes.values())


class Gate:
    """At most ``most`` holders at once, the waiters served by rank (then in their order): the
    pictures of first tries are drawn before those of retries, which may be of stalled hosts."""

    def __init__(self, most: int) -> None:
        self.free = most
        self.waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self.count = 0

    @contextlib.asynccontextmanager
    async def held(self, rank: int) -> AsyncIterator[None]:
        if self.free > 0 and not self.waiting:
            self.free -= 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.count += 1
            heapq.heappush(self.waiting, (rank, self.count, turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # given the place just as it was cancelled: pass it on
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self.waiting:
            _, _, turn = heapq.heappop(self.waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class Wake(Hub):
    """The hub's one pub/sub connection (service/matches/hub.py), which every commit publishes on:
    here it wakes the deliverer whenever any match changes."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.woken: Callable[[], None] = lambda: None

    def notify(self, match_id: str | None = None) -> None:
        self.woken()
        super().notify(match_id)


@dataclass
class Due:
    """A webhook with something to post, as a round read it."""

    match_id: str
    webhook: int
    hook: Hook
    cursor: int
    length: int  # the record's
    entries: int  # fixed by an earlier try of the post (a run of refused attempts), else 0
    retry: bool  # its last try failed
    now_ms: int  # Redis time when the round read it
    refusals_ms: int  # when refused attempts were last posted to it (0: never)
    cursors: list[int]  # where each webhook of the match stands


@dataclass
class Lease:
    """A lease this deliverer holds while a try runs, renewed every RENEW_S."""

    match_id: str
    webhook: int
    cursor: int
    renewed: float = field(default_factory=time.monotonic)
    task: asyncio.Task[Sent] | None = None


class Host:
    """A host's line: ``most`` tries under way to it at once, retries half of them at most."""

    def __init__(self, most: int) -> None:
        self.all = asyncio.Semaphore(most)
        self.retries = asyncio.Semaphore(max(1, most // 2))
        self.users = 0


class Deliverer:
    """Posts the changes of every match with webhooks, on every master."""

    def __init__(self, app: Flask, store: Store) -> None:
        cfg = app.config
        self.app, self.store = app, store
        self.owner = secrets.token_hex(8)  # this deliverer, in the leases it takes
        self.poll_s = float(cfg["WEBHOOK_POLL_S"])
        self.tries = max(1, int(cfg["WEBHOOK_TRIES"]))
        self.backoff_s, self.backoff_max_s = float(cfg["WEBHOOK_BACKOFF_S"]), float(cfg["WEBHOOK_BACKOFF_MAX_S"])
        self.max_bytes = int(cfg["WEBHOOK_MAX_BYTES"])
        self.public = str(cfg["PUBLIC_URL"] or "")
        self.deadline_s = float(cfg["WEBHOOK_TIMEOUT_S"])
        self.per_host = max(1, int(cfg["WEBHOOK_PER_HOST"]))
        self.refusals_ms = round(float(cfg["WEBHOOK_REFUSALS_S"]) * 1000)
        self.down: set[str] = set()  # masters whose last look failed (warned once, until they answer)
        self.threads = ThreadPoolExecutor(max(1, int(cfg["WEBHOOK_THREADS"])), thread_name_prefix="webhook")
        self.renewing = ThreadPoolExecutor(1, thread_name_prefix="webhook-leases")  # never behind a picture
        self.lock = threading.Lock()
        self.walkers: OrderedDict[str, Walker] = OrderedDict()
        self.kept = Kept(KEPT, KEPT_BYTES)
        self.running: set[tuple[str, int]] = set()  # webhooks with a task
        self.held: dict[tuple[str, int], Lease] = {}
        self.hosts: dict[str, Host] = {}
        self.later: dict[tuple[str, int], tuple[int, float]] = {}  # webhooks held back: (record length, until)
        self.busy: dict[tuple[str, int, int], float] = {}  # posts whose picture waits for a renderer: since when
        self.tasks: set[asyncio.Task[None]] = set()
        self.wake = Wake(store)
        for name in ("httpx", "httpcore"):  # their INFO and DEBUG lines name the URL, a secret
            logging.getLogger(name).setLevel(logging.WARNING)

    def close(self) -> None:
        self.threads.shutdown(wait=True, cancel_futures=True)
        self.renewing.shutdown(wait=True, cancel_futures=True)

    def allow(self) -> frozenset[tuple[str, int | None]]:
        return outbox.allowed(str(self.app.config["WEBHOOK_ALLOW"] or ""))

    async def blocking(self, work: Callable[..., T], *args: Any) -> T:
        """``work`` (Redis, the engine, a picture) on the deliverer's threads, the loop free meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(self.threads, work, *args)

    # -- rounds --------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Post until ``stop`` is set: a round as soon as any match changes (the hub's pub/sub
        wake), else every ``WEBHOOK_POLL_S`` (retries falling due, a wake-up lost), at most one
        round every ``MIN_ROUND_S``."""
        asyncio.run(self._run(stop))

    async def _run(self, stop: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        self.woken = woken = asyncio.Event()
        cfg = self.app.config  # as many pictures drawn at once as this process's renderers take (never "busy")
        self.drawing = Gate(max(1, int(cfg["RENDER_PROCESSES"]) or 1) + int(cfg["RENDER_QUEUE"]))
        self.client = webhook_send.client(self.deadline_s)

        def wake_up() -> None:  # called on the hub's thread
            loop.call_soon_threadsafe(woken.set)

        self.wake.woken = wake_up
        self.wake._start()
        renewer = asyncio.create_task(self._renew())
        try:
            while not stop.is_set():
                started = time.monotonic()
                woken.clear()
                try:
                    await self.round()
                except Exception:  # a round that fails is tried again: the next poll
                    log.exception("webhooks: a round failed")
                until = started + self.poll_s
                while not stop.is_set() and not woken.is_set() and time.monotonic() < until:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(woken.wait(), min(0.2, max(0.0, until - time.monotonic())))
                await asyncio.sleep(max(0.0, started + MIN_ROUND_S - time.monotonic()))
        finally:
            self.wake.woken = lambda: None
            renewer.cancel()
            for task in [*self.tasks, renewer]:
                task.cancel()
            await asyncio.gather(*self.tasks, renewer, return_exceptions=True)
            await self.client.aclose()
            self.wake.stop()

    async def round(self) -> int:
        """Look at every master once and start a task for each webhook with a post due;
        returns how many were started."""
        rows, complete = await self.blocking(self._look)
        started = 0
        seen: set[str] = set()
        for match_id, raw, length, now in rows:
            seen.add(match_id)
            hooks = outbox.hooks_of(raw)
            cursors = [int(raw.get(f"c:{i}", 0)) for i in range(len(hooks))]
            for i, hook in enumerate(hooks):
                key = (match_id, i)
                if cursors[i] >= length or key in self.running:
                    continue
                if int(raw.get(f"due:{i}", 0)) > now or _leased(raw.get(f"lease:{i}"), now):
                    continue
                held = self.later.get(key)
                if held is not None and held[0] == length and held[1] > time.monotonic():
                    continue  # held back (refused attempts, or a picture waiting for a renderer), nothing new since
                self.later.pop(key, None)
                due = Due(
                    match_id, i, hook, cursors[i], length, int(raw.get(f"n:{i}", 0)), int(raw.get(f"a:{i}", 0)) > 0,
                    now, int(raw.get(f"rp:{i}", 0)), cursors,
                )  # fmt: skip
                self.running.add(key)
                task = asyncio.create_task(self._task(due))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
                started += 1
        if complete:  # every master answered: what is not indexed any more has nothing to post
            with self.lock:
                for gone in set(self.walkers) - seen:
                    del self.walkers[gone]
                    self.kept.forget(gone)
            self.later = {k: v for k, v in self.later.items() if k[0] in seen}
            self.busy = {k: v for k, v in self.busy.items() if k[0] in seen}
        return started

    def _look(self) -> tuple[list[tuple[str, dict[str, str], int, int]], bool]:
        """Every indexed match of every master with its outbox, its record's length and the
        master's time; and whether every master answered."""
        out: list[tuple[str, dict[str, str], int, int]] = []
        complete = True
        for name, (client, shards) in self.store.masters().items():
            try:
                secs, micros = client.time()  # the time the outbox's scripts go by (not a test's fake clock)
                now = int(secs) * 1000 + int(micros) // 1000
                out += [(m, raw, length, now) for m, raw, length in outbox.pending(self.store, client, shards)]
            except redis.RedisError as e:
                complete = False
                if name not in self.down:
                    log.warning("webhooks: master %s is not answering (%s); posting for the others", name, e)
                    self.down.add(name)
                continue
            self.down.discard(name)
        return out, complete

    # -- a webhook's posts ---------------------------------------------------------------------

    async def _task(self, due: Due) -> None:
        key = (due.match_id, due.webhook)
        try:
            for _ in range(BATCH):
                async with self._slot(due.hook.host, due.retry):
                    moved, refusals = await self._try(due)
                if not moved or refusals:  # after refused attempts, the next round reads when they were posted
                    return
                due.cursor += moved
                due.entries, due.retry = 0, False
                due.cursors[due.webhook] = due.cursor
                if due.cursor >= due.length:
                    return
        except Gone:
            pass  # the match expired: its outbox goes with it
        except redis.RedisError as e:
            log.warning("webhooks: match %s not posted this round (%s)", due.match_id, e)
        except Exception:  # one match's fault must not stop every other match's posts
            log.exception("webhooks: match %s could not be posted", due.match_id)
        finally:
            self.running.discard(key)
            self.woken.set()  # a change made meanwhile, or the next of a batch cut short, is looked for at once

    @contextlib.asynccontextmanager
    async def _slot(self, host: str, retry: bool) -> AsyncIterator[None]:
        """A place in ``host``'s line (a retry in its retries' line first)."""
        line = self.hosts.get(host)
        if line is None:
            line = self.hosts[host] = Host(self.per_host)
        line.users += 1
        try:
            async with contextlib.AsyncExitStack() as taken:
                if retry:
                    await taken.enter_async_context(line.retries)
                await taken.enter_async_context(line.all)
                yield
        finally:
            line.users -= 1
            if not line.users:
                self.hosts.pop(host, None)

    async def _try(self, due: Due) -> tuple[int, bool]:
        """One try of the webhook's next post: the record entries it moved on by (posted or given
        up; 0 when it did not: tried again later, not due, or held back), and whether it was a
        post of refused attempts."""
        store, match_id, webhook, hook = self.store, due.match_id, due.webhook, due.hook
        walker = await self.blocking(self._walker, match_id, due.cursors)
        change = self.kept.get(match_id, due.cursor, due.entries)
        failed: Sent | None = None
        if change is None:
            try:
                change = await self.blocking(walker.change, store, due.cursor, due.entries)
            except (Gone, redis.RedisError):
                raise
            except Exception as e:  # a change that cannot be walked is a failed try too: recorded, given up
                log.warning("webhooks: match %s entry %d could not be walked", match_id, due.cursor + 1, exc_info=True)
                failed = Sent(False, None, f"the change could not be read: {type(e).__name__}: {e}"[:300], again=True)
                return await self._failed(due, walker, failed), False
            self.kept.put(change)
        if hook.skips(change.d.entry.via):  # answered where this webhook posts (a Discord command): not posted again
            return await self._skip(due, walker, change), False
        lately = due.now_ms < due.refusals_ms + self.refusals_ms
        if change.refused and not due.entries and not change.followed and change.refused < REFUSALS_MOST and lately:
            # refused attempts while the turn runs, and some were posted lately: they wait (more may join them)
            until = time.monotonic() + (due.refusals_ms + self.refusals_ms - due.now_ms) / 1000
            self.later[(match_id, webhook)] = (due.length, until)
            return 0, False
        if change.d.ended and not walker.end_marked:
            await self.blocking(outbox.mark_end, store, match_id, change.last)
            walker.end_marked = True
        refused = outbox.refusal(hook.url, self.allow())
        request: dict[str, Any] | None = None
        if refused is None:
            drawn = change.pictured and hook.format != "slack"  # a PNG: in this process's renderers
            busy = (match_id, webhook, due.cursor)
            try:
                async with self.drawing.held(int(due.retry)) if drawn else contextlib.nullcontext():
                    request = await self.blocking(webhook_formats.payload, change, hook.format, self.app, self.public)
                self.busy.pop(busy, None)
                self.kept.put(change)  # counted again, with its picture
            except renderer.Busy as e:  # the renderers are busy: not a try (the receiver is not at fault), unless for long
                since = self.busy.setdefault(busy, time.monotonic())
                if time.monotonic() - since < BUSY_S:
                    self.later[(match_id, webhook)] = (due.length, time.monotonic() + BUSY_WAIT_S)
                    return 0, False
                self.busy.pop(busy, None)
                failed = Sent(False, None, f"the picture could not be drawn: {e}"[:300], again=True)
            except Exception as e:  # a post that cannot be made is a failed try: recorded, tried again, given up
                log.warning("webhooks: match %s change %d could not be made", match_id, change.seq, exc_info=True)
                failed = Sent(False, None, f"the post could not be made: {type(e).__name__}: {e}"[:300], again=True)
        attempt, _ = await self.blocking(outbox.claim, store, match_id, webhook, due.cursor, change.entries, self.owner)
        if not attempt:
            return 0, False  # posted already, another deliverer has it, not due yet, or a try of it covered other entries
        lease = self.held[(match_id, webhook)] = Lease(match_id, webhook, due.cursor)
        try:
            if refused is not None:
                sent = Sent(False, None, refused)
            elif failed is not None or request is None:
                sent = failed or Sent(False, None, "nothing to post")
            else:
                delivery = f"{match_id}:{change.seq}"
                lease.task = asyncio.create_task(
                    webhook_send.send(self.client, hook, request, delivery, self.max_bytes, self.deadline_s)
                )
                try:
                    sent = await lease.task
                except asyncio.CancelledError:
                    if (me := asyncio.current_task()) is not None and me.cancelling():
                        raise  # the deliverer stops
                    log.warning("webhooks: match %s lost its lease to %s mid-try; it is tried again", match_id, hook.host)
                    return 0, False
            failure = _failure(webhook, change.seq, change.stream[0]["id"] if change.stream else None, change.d.ply)
            moved = await self.blocking(self._finish, due, attempt, sent, failure, change.entries, bool(change.refused))
            return moved, bool(moved and change.refused)
        finally:
            self.held.pop((match_id, webhook), None)

    async def _skip(self, due: Due, walker: Walker, change: Change) -> int:
        """A change the webhook does not post (:meth:`Hook.skips`): its cursor moves on past it, nothing
        sent, nothing counted posted or failed; the match's end is marked as for a post."""
        if change.d.ended and not walker.end_marked:
            await self.blocking(outbox.mark_end, self.store, due.match_id, change.last)
            walker.end_marked = True
        store, match_id, webhook, cursor = self.store, due.match_id, due.webhook, due.cursor
        attempt, _ = await self.blocking(outbox.claim, store, match_id, webhook, cursor, change.entries, self.owner)
        if not attempt:
            return 0
        moved = await self.blocking(outbox.finish, store, match_id, webhook, cursor, self.owner, "skip", 0, None, change.entries)
        return change.entries if moved else 0

    async def _failed(self, due: Due, walker: Walker, sent: Sent) -> int:
        """A try of a change that could not even be walked: claimed, recorded as failed (its ply as
        far as the record was walked)."""
        attempt, _ = await self.blocking(outbox.claim, self.store, due.match_id, due.webhook, due.cursor, 1, self.owner)
        if not attempt:
            return 0
        failure = _failure(due.webhook, due.cursor + 1, None, walker.ply_before(due.cursor))
        return await self.blocking(self._finish, due, attempt, sent, failure, 1, False)

    def _finish(self, due: Due, attempt: int, sent: Sent, failure: Json, entries: int, refusals: bool) -> int:
        """Record how the try went; the entries the webhook moved on by (0: tried again, or the lease lost)."""
        store, match_id, webhook, hook = self.store, due.match_id, due.webhook, due.hook
        if sent.ok:
            moved = outbox.finish(store, match_id, webhook, due.cursor, self.owner, "ok", entries=entries, refusals=refusals)
            return entries if moved else 0
        again = sent.again and attempt < self.tries
        wait_s = min(self.backoff_max_s, max(self.backoff_s * 2 ** (attempt - 1), sent.wait_s))
        failure = {**failure, "attempt": attempt, "status": sent.status, "error": sent.error, "gave_up": not again}
        log.warning(
            "webhooks: %s post of match %s change %d to %s failed (try %d): %s",
            hook.format, match_id, failure["seq"], hook.host, attempt, sent.error,
        )  # fmt: skip
        outcome = "retry" if again else "fail"
        wait_ms = round(wait_s * 1000)
        moved = outbox.finish(store, match_id, webhook, due.cursor, self.owner, outcome, wait_ms, failure, entries, refusals)
        return entries if moved and not again else 0

    def _walker(self, match_id: str, cursors: list[int]) -> Walker:
        """The match's walker, told where its webhooks stand (what is before them is dropped)."""
        self.kept.forget(match_id, before=min(cursors, default=0))
        with self.lock:
            found = self.walkers.get(match_id)
            if found is not None:
                self.walkers.move_to_end(match_id)
        if found is None:
            meta = Meta.from_json(self.store.read(match_id).meta)
            with self.lock:
                found = self.walkers.setdefault(match_id, Walker(match_id, meta))
                while len(self.walkers) > WALKERS_KEPT:
                    self.walkers.popitem(last=False)
        found.stand(cursors)
        return found

    # -- leases --------------------------------------------------------------------------------

    async def _renew(self) -> None:
        """Every RENEW_S, renew the lease of every try under way; cancel a try whose lease is lost,
        or could not be renewed for so long that it may lapse before the next renewal."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(RENEW_S)
            held = list(self.held.values())
            if not held:
                continue
            kept = await loop.run_in_executor(self.renewing, self._renew_all, held)
            now = time.monotonic()
            for lease, ok in zip(held, kept, strict=True):
                if ok:
                    lease.renewed = now
                lapsing = now - lease.renewed > outbox.LEASE_MS / 1000 - RENEW_S * 1.5
                if (ok is False or lapsing) and lease.task is not None and not lease.task.done():
                    lease.task.cancel()

    def _renew_all(self, held: list[Lease]) -> list[bool | None]:
        out: list[bool | None] = []
        for lease in held:
            try:
                out.append(outbox.renew(self.store, lease.match_id, lease.webhook, lease.cursor, self.owner))
            except redis.RedisError:
                out.append(None)  # not known: tried again in a second
        return out

    # -- what it holds -------------------------------------------------------------------------

    def kept_size(self) -> tuple[int, int]:
        """The changes this deliverer keeps made, and their bytes (pictures and posts)."""
        return self.kept.size()


def _failure(webhook: int, seq: int, event: str | None, ply: int) -> Json:
    """A failed try as recorded (its try, status, error and whether it was the last are added)."""
    return {"webhook": webhook, "at": iso(int(time.time() * 1000)), "seq": seq, "event": event, "ply": ply}


def _leased(lease: str | None, now: int) -> bool:
    return lease is not None and int(lease.rsplit(" ", 1)[-1]) > now


@click.command("deliver")
def deliver_command() -> None:
    """Post every change of matches with webhooks to them (issue 22)."""
    app = this_app()
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
