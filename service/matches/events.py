"""``GET /v1/matches/{id}/events``: a match as Server-Sent Events (API.md "Streams"), and the
:class:`Feed` by which this process follows a match for all its listeners (the streams and
the long-polls of service/matches/routes.py).

One event per move (``move``), flag (``flag``), R-X6 time-out move
(``pass``), resignation (``resign``), illegal attempt (``illegal``), umpire's
control (``start``, ``pause``, ``resume``, ``add_time``, ``token``,
``add_umpire``, ``remove_umpire``, ``adjudicate``: issue 22), take-back
(``takeback``: issue 35) and the game's end (``end``), each the change's
description (service/matches/description.py) written as the stream writes it:
the move, the state after it, the engine's events, the umpire's announcements
and both clocks, as the change's HTTP answer told them.

Event ids are the match's ply after the event: ``5`` for the event that made
ply 5; an event that leaves the ply as it was (a flag, a resignation, the
end) is ``5.1``, ``5.2``... after it.  A take-back brings the ply back, never the
ids: an event at or below the highest ply reached goes on from the last id
(``5``, the take-back ``5.1``, the move made again ``5.2``, the next ``6``), so ids
only grow and a reconnect's ``Last-Event-ID`` names one event.  A client that connects without
``Last-Event-ID`` first gets the current position as a ``state`` event (id:
the last event's, ``0`` before any); one that reconnects with it gets exactly
the events after that id (an id the match never had: the ``state`` event
again).  The events are derived from the match's record in Redis by the
engine (service/matches/record.py ``walk``), so any app process serves any stream,
after any restart, with never a gap or a duplicate.  A replay sends at most
:data:`REPLAY_MAX` events on one connection (the client reconnects for the rest,
at once: ``retry``), each write at most :data:`CHUNK_BYTES`.

Every listener of one match in one process is a :class:`Listener` of one
:class:`Feed`.  The feed's waker (one thread, under gunicorn's gevent worker one
greenlet, per match and process) sleeps on the process's hub
(service/matches/hub.py) until the match changes or a flag falls due, reads
the match once for every listener (so they hold no pooled Redis connection
each: a burst of listeners coalesces into a read or two), and wakes the
listeners in batches of :data:`YIELD_EVERY`, letting the rest of the process
run between two (so a thousand listeners never hold a worker's moves).  Each
event is described and encoded once per process; every stream at the same
point is handed the same bytes, and writes them as any WSGI answer does,
through gunicorn and every middleware.  Listeners are capped per match and per
client address (``MAX_LISTENERS_PER_MATCH``, ``MAX_LISTENERS_PER_ADDRESS``, per
process: ``503 too_many_listeners``, ``429 too_many_concurrent``).

A stream sends a comment line every ``EVENTS_HEARTBEAT_S`` so that proxies
keep it open, and ends after the game's ``end`` event or after
``EVENTS_LIFETIME_S`` (the client reconnects with ``Last-Event-ID``; ``retry``
tells it how soon).  A reconnect to a finished match with a ``Last-Event-ID``
at or past its ``end`` event answers ``204 No Content``, which tells an
``EventSource`` to stop reconnecting (the SSE specification's way) - once the
end is final: while the umpire may still take back the move that ended the game
(service/matches/referee.py ``may_reopen``), the reconnect is held open until
then, and a take-back that reopens the game is its next event.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import redis
from flask import Blueprint, Response, current_app, request

from engine.game import Json
from engine.registry import GAMES
from service.matches import referee
from service.matches.answers import match_json
from service.matches.cas import Settled, settled
from service.matches.db import get_hub, get_store
from service.matches.description import Description, describe_step
from service.matches.hub import Crowded, Hub
from service.matches.jsontext import compact
from service.matches.match import Meta
from service.matches.record import CONTROLS, TAKEBACK, Entry, entries_of, walk
from service.matches.store import Gone, Store, Unconfirmed
from service.web.errors import ApiError

log = logging.getLogger(__name__)

bp = Blueprint("events", __name__, url_prefix="/v1")

EVENT_ID = re.compile(r"^(0|[1-9][0-9]{0,8})(\.[1-9][0-9]{0,5})?$")
RETRY_MS = 2000
RESUME_MS = 100  # the retry of a stream that ended with events still to replay: come back at once
REPLAY_MAX = 500  # events one connection sends of what happened before it (the rest on the next)
CHUNK_BYTES = 64 * 1024  # at most this much of the events in one write (a single event may be more)
YIELD_EVERY = 16  # listeners a feed wakes before it lets the rest of the process run
# Record kinds with an event of their own (an abort has only `end`); an umpire's control is one event of its kind.
STREAMED = ("move", "pass", "flag", "resign", "illegal", "adjudicate", *CONTROLS, TAKEBACK)


def sse(event: str, event_id: str, data: Any) -> bytes:
    """One event in the text/event-stream format (data is one line of JSON)."""
    return f"event: {event}\nid: {event_id}\ndata: {compact(data)}\n\n".encode()


def id_order(event_id: str) -> tuple[int, int]:
    """An event id as ``(ply, k)``, in the stream's order."""
    ply, _, k = event_id.partition(".")
    return int(ply), int(k or 0)


class Ids:
    """Event ids from the ply: ``N`` for an event that made ply N (higher than any before it), ``N.k``
    for the k-th event after it that did not (left the ply as it was, or took a move back)."""

    def __init__(self) -> None:
        self.ply, self.k = 0, 0

    @property
    def last(self) -> str:
        return str(self.ply) if self.k == 0 else f"{self.ply}.{self.k}"

    def next(self, ply_after: int) -> str:
        if ply_after > self.ply:
            self.ply, self.k = ply_after, 0
        else:
            self.k += 1
        return self.last


def stream_events(d: Description, ids: Ids) -> list[tuple[str, str, Json]]:
    """The stream's events of one change, written from its description: ``(event, id, data)``;
    a change that ended the game is followed by ``end``."""
    e = d.entry
    data: Json = {
        "type": e.kind if e.kind in STREAMED else "end",
        "ply": d.ply,
        "seat": e.seat,
        "by": e.by,
        "move": e.move,
        "state": d.after,
        "events": d.events,
        "announcements": d.announcements,
        "clock": d.clock,
        "at": d.at,
    }
    out: list[tuple[str, str, Json]] = []
    if e.kind in STREAMED:
        out.append((data["type"], ids.next(d.ply), data))
    outcome = d.outcome
    if outcome is not None:
        end = {**data, "type": "end", "winner": outcome.winner, "end": outcome.end, "result": outcome.result}
        out.append(("end", ids.next(d.ply), end))
    return out


def end_event_id(entries: Sequence[Entry], final_ply: int) -> str:
    """The id of a finished match's ``end`` event, from its record alone: an entry's event is at
    the ply the next entry found (the last one's at the match's final ply)."""
    ids = Ids()
    for i, e in enumerate(entries):
        if e.kind in STREAMED:
            ids.next(entries[i + 1].ply if i + 1 < len(entries) else final_ply)
    return ids.next(final_ply)


@functools.cache
def _gevent_idle() -> Callable[[], None] | None:
    try:
        from gevent import idle, monkey  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    return idle if monkey.is_module_patched("threading") else None


def yield_to_others() -> None:
    """Under gunicorn's gevent worker, wait until every other greenlet that can run has run (gevent's
    ``idle``): the feed's waker gives way to requests between two batches of listeners.  Threads need
    nothing: the system switches between them."""
    idle = _gevent_idle()
    if idle is not None:
        idle()


class Listener:
    """One stream or long-poll of a feed: ``wake`` is set when the feed has read a change (or found it
    could not read the match: ``Feed.failed``)."""

    def __init__(self) -> None:
        self.wake = threading.Event()


class Feed:
    """One match as this process follows it, shared by every listener of the match here: the match is
    read once for all of them (:meth:`update`), each event described and encoded once (:meth:`build`),
    and a change wakes them all from one waker (issue 20: 3,000 streams on one match made each move
    take seconds; issue 34: 2,000 listeners arriving at once ran the Redis pool dry)."""

    def __init__(self, store: Store, hub: Hub, match_id: str) -> None:
        self.store, self.hub, self.match_id = store, hub, match_id
        self.meta: Meta | None = None
        self.lock = threading.Lock()  # one read at a time
        self.building = threading.Lock()  # one walk of new record entries at a time
        self.cur: Settled | None = None
        self.read_started = float("-inf")  # when the read that gave `cur` began (monotonic)
        self.due: float | None = None  # when (monotonic) the next flag falls due, as of `cur`
        self.failed = False  # the waker's last read failed: each listener reads for itself
        self.events: list[tuple[str, bytes]] = []  # (id, text) of every event of the match so far, in order
        self.ids = Ids()
        self.position: Any = None  # the engine's position after the entries walked so far
        self.walked = 0
        self.listeners: set[Listener] = set()
        self.users = 0
        self.waker: threading.Thread | None = None
        self._chunks: dict[tuple[int, int], bytes] = {}
        self._state: tuple[Settled, bytes] | None = None

    def update(self, since: float) -> Settled:
        """The match as read no earlier than ``since`` (monotonic): the last read when it began
        after that, else a new one (which applies a due flag, as every read does)."""
        with self.lock:
            if self.cur is not None and self.read_started >= since:
                return self.cur
            started = time.monotonic()
            cur = settled(self.store, self.match_id)
            self.meta = cur.meta
            deadline = cur.live.clock.deadline
            self.due = None if deadline is None else started + max(0.0, (deadline + 1 - cur.now) / 1000)
            self.cur, self.read_started = cur, started
            return cur

    def build(self) -> int:
        """Describe and encode the record entries read so far and not yet walked; the events' count."""
        cur = self.cur
        with self.building:
            if cur is not None and self.meta is not None and cur.length > self.walked:
                game = GAMES[self.meta.game]
                entries = entries_of(self.store.record(self.match_id, self.walked, cur.length - 1))
                for step in walk(game, self.meta, entries, self.position):
                    described = describe_step(game, self.meta, step, self.walked + step.index + 1)
                    self.events += [(i, sse(name, i, data)) for name, i, data in stream_events(described, self.ids)]
                    self.position = step.after
                self.walked += len(entries)
            return len(self.events)

    def chunk(self, start: int, end: int) -> bytes:
        """The events ``start`` to ``end`` as one text, made once for every stream at that point."""
        found = self._chunks.get((start, end))
        if found is None:
            found = b"".join(text for _, text in self.events[start:end])
            if len(self._chunks) >= 8:
                self._chunks.clear()
            self._chunks[start, end] = found
        return found

    def state_event(self, cur: Settled) -> bytes:
        """The ``state`` event of ``cur`` (built once for every stream that starts with it)."""
        made = self._state
        if made is None or made[0] is not cur:
            meta = cur.meta
            text = sse("state", self.ids.last, {**match_json(meta, cur.live, cur.now), "tags": list(meta.tags)})
            made = self._state = (cur, text)
        return made[1]

    def start_waker(self) -> None:
        """Start this feed's waker, once, registered with the hub before this returns (so before the
        caller reads the match: no change committed after the read is missed)."""
        if self.waker is not None:
            return
        watching = self.hub.watch(self.match_id)
        changed = watching.__enter__()
        self.waker = threading.Thread(target=self._wake, args=(watching, changed), name=f"feed-{self.match_id}", daemon=True)
        self.waker.start()

    def _wake(self, watching: Any, changed: threading.Event) -> None:
        """Until the feed has no listener: on each change (or flag due) read the match for all, and wake them."""
        try:
            while self.users > 0:
                due = self.due
                wait = 1.0 if due is None else min(1.0, max(0.0, due - time.monotonic()) + 0.001)
                if changed.wait(wait):
                    changed.clear()
                    since = self.hub.notified_at(self.match_id)
                elif due is not None and time.monotonic() >= due:
                    since = due
                else:
                    continue
                try:
                    self.update(since)
                    self.failed = False
                except Exception as e:  # the listeners read it themselves, and end as they always did
                    log.warning("events of %s: the feed's waker: %s", self.match_id, e)
                    self.failed = True
                for k, listener in enumerate(list(self.listeners)):
                    listener.wake.set()
                    if k % YIELD_EVERY == YIELD_EVERY - 1:
                        yield_to_others()
        finally:
            watching.__exit__(None, None, None)

    def latest(self, listener: Listener) -> Settled:
        """The match as the feed last read it, after ``listener`` was woken (read here when the waker could not)."""
        if self.failed or self.cur is None:
            return self.update(time.monotonic())
        return self.cur


class Feeds:
    """The process's feeds, one per match with listeners here."""

    def __init__(self) -> None:
        self._feeds: dict[str, Feed] = {}
        self._lock = threading.Lock()

    def join(self, store: Store, hub: Hub, match_id: str) -> tuple[Feed, Listener, Callable[[], None]]:
        """A new listener of ``match_id``'s feed (made, with its waker, for the first), and the function
        that takes it out (once: it may be called again)."""
        listener = Listener()
        with self._lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = Feed(store, hub, match_id)
            feed.users += 1
            feed.listeners.add(listener)
        feed.start_waker()
        left = threading.Event()

        def leave() -> None:
            with self._lock:
                if left.is_set():
                    return
                left.set()
                feed.listeners.discard(listener)
                feed.users -= 1
                if feed.users == 0 and self._feeds.get(match_id) is feed:
                    del self._feeds[match_id]

        return feed, listener, leave


def get_feeds() -> Feeds:
    feeds: Feeds = current_app.extensions.setdefault("umpire.feeds", Feeds())
    return feeds


def crowded(err: Crowded) -> ApiError:
    """A listener over a cap (service/matches/hub.py): 503 for the match's, 429 for the address's."""
    if err.what == "match":
        message = f"This match has {err.limit} listeners on this server process already; try again later."
        return ApiError("too_many_listeners", message, {"limit": err.limit}, {"Retry-After": "5"})
    message = f"This address holds {err.limit} event streams and waits on this server process already; close some."
    return ApiError("too_many_concurrent", message, {"limit": err.limit, "what": "listeners"}, {"Retry-After": "5"})


class Listening:
    """One listener of a match in this process: its place in the match's feed and the match as read
    for it, no earlier than it joined (``cur``: a change committed after that is seen, or woken for);
    once :meth:`admit` ted, counted against the caps (:func:`crowded`) and in ``umpire_listeners``.
    :meth:`end` undoes it all, once.  Raises as the read does (Gone: 404)."""

    def __init__(self, match_id: str) -> None:
        self.hub = get_hub()
        self.feed, self.listener, self._leave = get_feeds().join(get_store(), self.hub, match_id)
        self._release: Callable[[], None] | None = None
        self._counted: Any = None
        self._ended = threading.Lock()
        try:
            self.cur = self.feed.update(time.monotonic())
        except BaseException:
            self.end()
            raise

    def admit(self, address: str | None) -> None:
        try:
            self._release = self.hub.admit(self.feed.match_id, address)
        except Crowded as err:
            self.end()
            raise crowded(err) from None
        self._counted = self.hub.listening()
        self._counted.__enter__()

    def end(self) -> None:
        if not self._ended.acquire(blocking=False):
            return  # ended already
        self._leave()
        if self._release is not None:
            self._release()
        if self._counted is not None:
            self._counted.__exit__(None, None, None)


@bp.get("/matches/<match_id>/events")
def events(match_id: str) -> Any:
    header, query = request.headers.get("Last-Event-ID"), request.args.get("last_event_id")
    # Each is checked, whichever is used (the header wins): a wrong one is the same 422 with or without the other.
    if header is not None and not EVENT_ID.match(header.strip()):
        raise ApiError(
            "invalid_header", "Last-Event-ID is an event id of this stream: a ply, or ply.k.", {"header": "Last-Event-ID"}
        )
    if query is not None and not EVENT_ID.match(query.strip()):
        message = "last_event_id is an event id of this stream: a ply, or ply.k."
        raise ApiError("invalid_query", message, {"parameter": "last_event_id"})
    last = None if header is None and query is None else (header if header is not None else str(query)).strip()
    listening = Listening(match_id)  # the match read once for every listener arriving now (404 before the stream)
    cur = listening.cur
    hold: float | None = None  # past the end of a game that a take-back may still reopen: held open so long (s)
    if last is not None and cur.live.finished:
        end = end_event_id(entries_of(get_store().record(match_id)), cur.live.ply)
        if id_order(last) >= id_order(end):
            if not referee.may_reopen(cur.live, cur.now):  # everything was delivered: the SSE specification's "stop"
                listening.end()
                return Response(status=204, headers={"Cache-Control": "no-cache"})
            assert cur.live.finished_ms is not None
            hold = (cur.live.finished_ms + referee.REOPEN_MS - cur.now) / 1000 + 0.5
    listening.admit(request.remote_addr)
    cfg = current_app.config
    heartbeat, lifetime = float(cfg["EVENTS_HEARTBEAT_S"]), float(cfg["EVENTS_LIFETIME_S"])
    stream = _stream(listening, last, heartbeat, lifetime, hold)
    response = Response(stream, mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(listening.end)  # also when the answer is never read
    return response


def _stream(
    listening: Listening, last: str | None, heartbeat: float, lifetime: float, hold: float | None = None
) -> Iterator[bytes]:
    feed, listener, cur = listening.feed, listening.listener, listening.cur
    end_at = time.monotonic() + (lifetime if hold is None else min(lifetime, hold))
    holding = hold is not None  # a finished match's stream that waits for a reopening take-back, until one comes
    sent = 0  # the feed's events this stream has passed
    sending = last == "0"  # a reconnect sends only what comes after its id ("0": from the start)
    first_round = True
    budget = REPLAY_MAX  # of the events that happened before this stream began
    yield b"retry: %d\n\n" % RETRY_MS  # gunicorn has sent the headers once this generator runs on
    try:
        while True:
            listener.wake.clear()  # before looking: a change read after this wakes it again
            total = feed.build()
            if not sending:  # a reconnect: after its id, if the match had it
                ids = [i for i, _ in feed.events[:total]]
                if last in ids:
                    sending, sent = True, ids.index(last) + 1
                else:
                    sent = total
            while sent < total:
                start, size = sent, 0
                while sent < total and (sent == start or size + len(feed.events[sent][1]) <= CHUNK_BYTES):
                    size += len(feed.events[sent][1])
                    sent += 1
                if first_round:
                    if budget <= 0:
                        yield b"retry: %d\n\n" % RESUME_MS  # the rest on the next connection, at once
                        return
                    sent = min(sent, start + budget)
                    budget -= sent - start
                yield feed.chunk(start, sent)
                holding = False
            if first_round and not sending:  # a fresh connection, or an id this match never had: where it stands now
                yield feed.state_event(cur)
            first_round, sending = False, True
            now = time.monotonic()
            if (cur.live.finished and not holding) or now >= end_at:
                return
            if not listener.wake.wait(min(heartbeat, end_at - now)):
                yield b": ping\n\n"
            cur = feed.latest(listener)
    except (Gone, redis.RedisError, Unconfirmed) as e:  # the stream ends; the client reconnects with Last-Event-ID
        log.warning("events of %s: %s", feed.match_id, e)
    finally:
        listening.end()
