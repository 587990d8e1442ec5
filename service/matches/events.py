"""``GET /v1/matches/{id}/events``: a match as Server-Sent Events (API.md "Streams").

One event per move (``move``), flag (``flag``), R-X6 time-out move
(``pass``), resignation (``resign``), illegal attempt (``illegal``), umpire's
control (``start``, ``pause``, ``resume``, ``add_time``, ``token``,
``adjudicate``: issue 22) and the game's end (``end``), each with the verdict's data: the move, the state after
it, the engine's events, the umpire's announcements and both clocks.

Event ids are the match's ply after the event: ``5`` for the event that made
ply 5; an event that leaves the ply as it was (a flag, a resignation, the
end) is ``5.1``, ``5.2``... after it.  A client that connects without
``Last-Event-ID`` first gets the current position as a ``state`` event (id:
the last event's, ``0`` before any); one that reconnects with it gets exactly
the events after that id (an id the match never had: the ``state`` event
again).  The events are derived from the match's record in Redis by the
engine (service/matches/referee.py ``walk``), so any app process serves any stream,
after any restart, with never a gap or a duplicate.

Every stream of one match in one process shares a :class:`Feed`: the events
are built and serialised once, and a change is read from Redis once for all
of them.  Under gunicorn's gevent worker (``make run``) the feed also writes
them: one writer per match and process reads each change and writes its
events to every sleeping stream's socket, so a move wakes one greenlet, not
one per listener (:meth:`Feed.fan_out`).  Listeners are capped per match and per client address
(``MAX_LISTENERS_PER_MATCH``, ``MAX_LISTENERS_PER_ADDRESS``, per process:
``503 too_many_listeners``, ``429 too_many_concurrent``).

A stream sleeps on the process's hub (service/matches/hub.py), not on a socket of
its own, sends a comment line every ``EVENTS_HEARTBEAT_S`` so that proxies
keep it open, applies a flag the moment it falls due (as any read does), and
ends after the game's ``end`` event or after ``EVENTS_LIFETIME_S`` (the
client reconnects with ``Last-Event-ID``; ``retry`` tells it how soon).  A
reconnect to a finished match whose every event it has seen (its
``Last-Event-ID`` is the ``end`` event's) answers ``204 No Content``, which
tells an ``EventSource`` to stop reconnecting (the SSE specification's way).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from flask import Blueprint, Response, current_app, request

from engine.game import Json
from engine.registry import GAMES
from service.matches.answers import match_json
from service.matches.cas import Settled, settled
from service.matches.db import get_hub, get_store
from service.matches.description import Description, describe_step
from service.matches.hub import Crowded
from service.matches.jsontext import compact
from service.matches.match import Meta
from service.matches.record import CONTROLS, Step, entries_of, walk
from service.matches.store import Gone, Store, Unconfirmed
from service.web.errors import ApiError

log = logging.getLogger(__name__)

bp = Blueprint("events", __name__, url_prefix="/v1")

EVENT_ID = re.compile(r"^(0|[1-9][0-9]{0,8})(\.[1-9][0-9]{0,5})?$")
RETRY_MS = 2000
# Record kinds with an event of their own (an abort has only `end`); an umpire's control is one event of its kind.
STREAMED = ("move", "pass", "flag", "resign", "illegal", "adjudicate", *CONTROLS)


def sse(event: str, event_id: str, data: Any) -> str:
    """One event in the text/event-stream format (data is one line of JSON)."""
    return f"event: {event}\nid: {event_id}\ndata: {compact(data)}\n\n"


class Ids:
    """Event ids from the ply: ``N`` for an event that made ply N, ``N.k`` for
    the k-th event after it that left the ply as it was."""

    def __init__(self) -> None:
        self.ply, self.k = 0, 0

    @property
    def last(self) -> str:
        return str(self.ply) if self.k == 0 else f"{self.ply}.{self.k}"

    def next(self, ply_after: int) -> str:
        if ply_after != self.ply:
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


def step_events(game_name: str, meta: Meta, step: Step, ids: Ids) -> list[tuple[str, str, Json]]:
    """The stream's events of one record entry walked by the engine (service/matches/webhooks.py reads
    them here until it makes its changes from :func:`describe_step` and :func:`stream_events` itself)."""
    return stream_events(describe_step(GAMES[game_name], meta, step), ids)


class Parked:
    """A stream asleep while its :class:`Feed` writes its events straight to its socket (``fd``): ``sent``
    counts the feed's events it has had; ``pending`` is the rest of a chunk its socket did not take,
    ``broken`` says its socket failed, ``reread`` that the feed could not read the match."""

    def __init__(self, sock: Any, chunked: bool) -> None:
        self.sock, self.fd, self.chunked = sock, sock.fileno(), chunked
        self.sent = 0
        self.wake = threading.Event()
        self.pending = b""
        self.broken = self.reread = False


def direct_socket(environ: dict[str, Any]) -> Parked | None:
    """A stream's :class:`Parked` when its events may be written to the client's socket directly: under
    gunicorn's gevent worker (greenlets, so nothing runs between two writes of the feed's), for a GET over
    HTTP/1.1, whose answer gunicorn sends in chunks (the feed then writes chunks as gunicorn would), or
    HTTP/1.0 (as they are).  None otherwise: the stream yields its events as any answer does."""
    sock = environ.get("gunicorn.socket")
    protocol = environ.get("SERVER_PROTOCOL")
    if sock is None or environ.get("REQUEST_METHOD") != "GET" or protocol not in ("HTTP/1.0", "HTTP/1.1"):
        return None
    if not str(environ.get("SERVER_SOFTWARE", "")).startswith("gunicorn"):
        return None
    try:
        from gevent import monkey  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    return Parked(sock, protocol == "HTTP/1.1") if monkey.is_module_patched("socket") else None


class Feed:
    """One match's stream as this process built it, shared by every stream of
    the match here: each event is built and serialised once per process, not
    once per listener, and when a change wakes the match's listeners one of
    them reads the match and its new record entries for all (issue 20: 3,000
    streams on one match made each move take seconds)."""

    def __init__(self, store: Store, match_id: str, meta: Meta) -> None:
        self.store, self.match_id, self.meta = store, match_id, meta
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []  # (id, text) of every event of the match so far, in order
        self.ids = Ids()
        self.position: Any = None  # the engine's position after the entries walked so far
        self.walked = 0
        self.cur: Settled | None = None
        self.due: float | None = None  # when (monotonic) the next flag falls due, as of `cur`
        self.read_started = float("-inf")  # when the read that gave `cur` began (monotonic)
        self._state: tuple[Settled, str] | None = None
        self.users = 0
        self.parked: dict[int, Parked] = {}  # streams whose events this feed writes itself (see fan_out)
        self.writer: threading.Thread | None = None  # reads the match for them when it changes (see write_for)

    def update(self, since: float) -> Settled:
        """The match as read no earlier than ``since`` (monotonic): the last
        read when it began after that, else a new one (which applies a due
        flag, and builds the events of the new record entries)."""
        with self.lock:
            if self.cur is not None and self.read_started >= since:
                return self.cur
            started = time.monotonic()
            cur = settled(self.store, self.match_id)
            if cur.length > self.walked:
                game = GAMES[self.meta.game]
                raw = self.store.record(self.match_id, self.walked, cur.length - 1)
                entries = entries_of(raw)
                for step in walk(game, self.meta, entries, self.position):
                    for name, event_id, data in stream_events(describe_step(game, self.meta, step), self.ids):
                        self.events.append((event_id, sse(name, event_id, data)))
                    self.position = step.after
                self.walked += len(entries)
            deadline = cur.live.clock.deadline
            self.due = None if deadline is None else started + max(0.0, (deadline + 1 - cur.now) / 1000)
            self.cur, self.read_started = cur, started
            return cur

    def park(self, stream: Parked) -> bool:
        """Let :meth:`fan_out` write ``stream``'s next events; False (not parked) when it is behind already."""
        if stream.sent < len(self.events):
            return False
        self.parked[id(stream)] = stream
        return True

    def unpark(self, stream: Parked) -> None:
        self.parked.pop(id(stream), None)

    def fan_out(self) -> None:
        """Write to every parked stream's socket the events it has not had, without waking its greenlet
        (issue 20: 5,000 streams on one match were 5,000 wake-ups a move).  The bytes of one chunk are made
        once for every stream at the same point.  A socket that takes only part of them (a slow reader), or
        fails, has its stream woken with the rest to write, or to end; so does every stream once the match
        is over.  Under gevent nothing here yields, so no stream writes between two of these writes."""
        total = len(self.events)
        over = self.cur is not None and self.cur.live.finished
        chunks: dict[tuple[int, bool], bytes] = {}
        for stream in list(self.parked.values()):
            if stream.sent < total:
                data = chunks.get((stream.sent, stream.chunked))
                if data is None:
                    data = "".join(text for _, text in self.events[stream.sent :]).encode()
                    if stream.chunked:
                        data = b"%X\r\n%s\r\n" % (len(data), data)
                    chunks[stream.sent, stream.chunked] = data
                try:
                    written = os.write(stream.fd, data)
                except BlockingIOError:
                    written = 0
                except OSError:
                    stream.broken, written = True, len(data)
                stream.sent = total
                if written < len(data):
                    stream.pending = data[written:]
            if over or stream.pending or stream.broken:
                self.unpark(stream)
                stream.wake.set()

    def wake_all(self) -> None:
        """Every parked stream looks at the match itself (the writer failed to read it)."""
        for stream in list(self.parked.values()):
            stream.reread = True
            self.unpark(stream)
            stream.wake.set()

    def write_for(self, hub: Any) -> None:
        """Start this feed's writer, once: it waits on the hub for the match to change, reads it once
        (:meth:`update`) and writes the new events to the parked streams (:meth:`fan_out`), until the feed
        has no streams left."""
        if self.writer is not None:
            return
        watching = hub.watch(self.match_id, counted=False)
        changed = watching.__enter__()  # registered now, before the caller reads the match: no change is missed
        self.writer = threading.Thread(
            target=self._write_loop, args=(hub, watching, changed), name=f"feed-{self.match_id}", daemon=True
        )
        self.writer.start()

    def _write_loop(self, hub: Any, watching: Any, changed: threading.Event) -> None:
        try:
            while self.users > 0:
                if not changed.wait(1.0):
                    continue
                changed.clear()
                try:
                    self.update(hub.notified_at(self.match_id))
                except Exception as e:  # the streams read it themselves, and end as they always did
                    log.warning("events of %s: the feed's writer: %s", self.match_id, e)
                    self.wake_all()
                    continue
                self.fan_out()
        finally:
            watching.__exit__(None, None, None)

    def state_event(self, cur: Settled) -> str:
        """The ``state`` event of ``cur`` (built once for every stream that starts with it)."""
        made = self._state
        if made is None or made[0] is not cur:
            text = sse("state", self.ids.last, {**match_json(self.meta, cur.live, cur.now), "tags": list(self.meta.tags)})
            made = self._state = (cur, text)
        return made[1]


class Feeds:
    """The process's feeds, one per match with streams here."""

    def __init__(self) -> None:
        self._feeds: dict[str, Feed] = {}
        self._lock = threading.Lock()

    @contextmanager
    def join(self, store: Store, match_id: str, meta: Meta) -> Iterator[Feed]:
        with self._lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = Feed(store, match_id, meta)
            feed.users += 1
        try:
            yield feed
        finally:
            with self._lock:
                feed.users -= 1
                if feed.users == 0 and self._feeds.get(match_id) is feed:
                    del self._feeds[match_id]


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
    last = header if header is not None else query
    store = get_store()
    first = settled(store, match_id)  # 404 before the stream starts (Gone: service/matches/failures.py)
    if last is not None and first.live.finished and _last_id(store, match_id, first.meta) == last.strip():
        # everything was delivered: 204 is the SSE specification's "stop reconnecting"
        return Response(status=204, headers={"Cache-Control": "no-cache"})
    hub = get_hub()
    try:
        release = hub.admit(match_id, request.remote_addr)  # counted out when the answer is closed
    except Crowded as err:
        raise crowded(err) from None
    cfg = current_app.config
    heartbeat, lifetime = float(cfg["EVENTS_HEARTBEAT_S"]), float(cfg["EVENTS_LIFETIME_S"])
    feeds = get_feeds()
    parked = direct_socket(request.environ)
    stream = _stream(feeds, store, hub, match_id, first.meta, None if last is None else last.strip(), heartbeat, lifetime, parked)
    response = Response(
        stream,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(release)
    return response


def _last_id(store: Store, match_id: str, meta: Meta) -> str:
    """The id of a finished match's last event (its ``end``)."""
    ids = Ids()
    entries = entries_of(store.record(match_id))
    for step in walk(GAMES[meta.game], meta, entries):
        step_events(meta.game, meta, step, ids)
    return ids.last


def _stream(
    feeds: Feeds,
    store: Store,
    hub: Any,
    match_id: str,
    meta: Meta,
    last: str | None,
    heartbeat: float,
    lifetime: float,
    parked: Parked | None = None,
) -> Iterator[str]:
    end_at = time.monotonic() + lifetime
    sent = 0  # the feed's events this stream has passed
    sending = last == "0"  # a reconnect sends only what comes after its id ("0": from the start)
    first_round = True
    yield f"retry: {RETRY_MS}\n\n"  # gunicorn has sent the headers once this generator runs on
    try:
        with feeds.join(store, match_id, meta) as feed, hub.watch(match_id) as changed:
            if parked is not None:
                feed.write_for(hub)  # registered before the read below: nothing committed since is missed
            cur = feed.update(time.monotonic())  # read after registering: nothing committed since is missed
            while True:
                built = feed.events
                for event_id, text in built[sent:]:
                    if sending:
                        yield text
                    elif event_id == last:
                        sending = True
                sent = len(built)
                if first_round and not sending:  # a fresh connection, or an id this match never had: where it stands now
                    yield feed.state_event(cur)
                first_round, sending = False, True
                now = time.monotonic()
                if cur.live.finished or now >= end_at:
                    return
                wait = min(heartbeat, end_at - now)
                due = feed.due
                if due is not None:  # apply a flag the moment it falls due
                    wait = min(wait, max(0.0, due - now) + 0.001)
                if parked is not None:  # the feed's writer writes the events; this greenlet sleeps
                    parked.sent = sent
                    parked.wake.clear()
                    if not feed.park(parked):
                        continue  # events came while this stream was writing: send them first
                    try:
                        woke = parked.wake.wait(max(0.0, wait))
                    finally:
                        feed.unpark(parked)
                    sent = parked.sent
                    if parked.pending:  # the rest of a chunk its socket did not take at once
                        pending, parked.pending = parked.pending, b""
                        try:
                            parked.sock.sendall(pending)
                        except OSError:  # the client went away
                            return
                    if parked.broken:
                        return
                    if parked.reread:
                        parked.reread = False
                        cur = feed.update(time.monotonic())
                    elif feed.cur is not None:
                        cur = feed.cur
                    if woke:
                        continue
                    if due is not None and time.monotonic() >= due:
                        before = len(feed.events)
                        cur = feed.update(due)
                        if len(feed.events) > before:  # this stream read the flag first: the sleeping ones get it too
                            feed.fan_out()
                    else:
                        yield ": ping\n\n"
                    continue
                woke = changed.wait(max(0.0, wait))
                changed.clear()
                if woke:  # the match changed: one read for every stream of it woken with this one
                    cur = feed.update(hub.notified_at(match_id))
                elif due is not None and time.monotonic() >= due:
                    cur = feed.update(due)
                else:
                    yield ": ping\n\n"
    except (Gone, redis.RedisError, Unconfirmed) as e:  # the stream ends; the client reconnects with Last-Event-ID
        log.warning("events of %s: %s", match_id, e)
