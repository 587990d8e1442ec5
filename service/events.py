"""``GET /v1/matches/{id}/events``: a match as Server-Sent Events (API.md "Streams").

One event per move (``move``), flag (``flag``), R-X6 time-out move
(``pass``), resignation (``resign``), illegal attempt (``illegal``) and the
game's end (``end``), each with the verdict's data: the move, the state after
it, the engine's events, the umpire's announcements and both clocks.

Event ids are the match's ply after the event: ``5`` for the event that made
ply 5; an event that leaves the ply as it was (a flag, a resignation, the
end) is ``5.1``, ``5.2``... after it.  A client that connects without
``Last-Event-ID`` first gets the current position as a ``state`` event (id:
the last event's, ``0`` before any); one that reconnects with it gets exactly
the events after that id (an id the match never had: the ``state`` event
again).  The events are derived from the match's record in Redis by the
engine (service/referee.py ``walk``), so any app process serves any stream,
after any restart, with never a gap or a duplicate.

A stream sleeps on the process's hub (service/hub.py), not on a socket of
its own, sends a comment line every ``EVENTS_HEARTBEAT_S`` so that proxies
keep it open, applies a flag the moment it falls due (as any read does), and
ends after the game's ``end`` event or after ``EVENTS_LIFETIME_S`` (the
client reconnects with ``Last-Event-ID``; ``retry`` tells it how soon).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Blueprint, Response, current_app, request

import views
from engine.clock import MatchClock
from engine.game import Json, Outcome
from engine.registry import GAMES
from service import referee
from service.db import get_hub, get_store
from service.errors import ApiError
from service.referee import Live, Meta, Step
from service.store import Gone, Store, Unconfirmed
from service.sweeper import settled

log = logging.getLogger(__name__)

bp = Blueprint("events", __name__, url_prefix="/v1")

EVENT_ID = re.compile(r"^(0|[1-9][0-9]{0,8})(\.[1-9][0-9]{0,5})?$")
RETRY_MS = 2000


def sse(event: str, event_id: str, data: Any) -> str:
    """One event in the text/event-stream format (data is one line of JSON)."""
    return f"event: {event}\nid: {event_id}\ndata: {referee.compact(data)}\n\n"


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


def clock_after(meta: Meta, step: Step, after: Json) -> MatchClock:
    """Both clocks right after a record entry (its time, its banks)."""
    e = step.entry
    banks = (e["bk"][0], e["bk"][1])
    if e["k"] == "illegal" and not e.get("f"):  # nothing changed: the turn runs on
        return MatchClock(meta.spec, banks, e["s"], e["ts"], bool(e.get("x")))
    if e["k"] == "flag" and e.get("w"):  # R-X6's window opened: the opponent may move for the flagged seat
        return MatchClock(meta.spec, banks, e["s"], e["t"], True)
    return MatchClock(meta.spec, banks, after["to_move"], e["t"], False)


def step_events(game_name: str, meta: Meta, step: Step, ids: Ids) -> list[tuple[str, str, Json]]:
    """The stream's events for one record entry: ``(event, id, data)``."""
    game = GAMES[game_name]
    before, after = game.dump(step.before), game.dump(step.after)
    e = step.entry
    clock = clock_after(meta, step, after)
    live = Live(after, clock, e["t"] if after["to_move"] is None and after["status"] == "finished" else None)
    said = views.announcements(before, step.events, after, names=meta.names)
    data: Json = {
        "type": {"move": "move", "pass": "pass", "flag": "flag", "resign": "resign", "illegal": "illegal"}.get(e["k"], "end"),
        "ply": after["ply"],
        "seat": e["s"],
        "by": e["b"],
        "move": e["m"],
        "state": after,
        "events": step.events,
        "announcements": said,
        "clock": referee.clock_json(live, e["t"]),
        "at": referee.iso(e["t"]),
    }
    out: list[tuple[str, str, Json]] = []
    if e["k"] != "abort":
        out.append((data["type"], ids.next(after["ply"]), data))
    if after["status"] == "finished" and before["status"] != "finished":
        outcome = Outcome(after["winner"], after["end"])
        end = {**data, "type": "end", "winner": after["winner"], "end": after["end"], "result": outcome.result}
        out.append(("end", ids.next(after["ply"]), end))
    return out


@bp.get("/matches/<match_id>/events")
def events(match_id: str) -> Any:
    header, query = request.headers.get("Last-Event-ID"), request.args.get("last_event_id")
    # Each is checked, whichever is used (the header wins): a wrong one is the same 422 with or without the other.
    if header is not None and not EVENT_ID.match(header.strip()):
        raise ApiError(
            422, "invalid_header", "Last-Event-ID is an event id of this stream: a ply, or ply.k.", {"header": "Last-Event-ID"}
        )
    if query is not None and not EVENT_ID.match(query.strip()):
        message = "last_event_id is an event id of this stream: a ply, or ply.k."
        raise ApiError(422, "invalid_query", message, {"parameter": "last_event_id"})
    last = header if header is not None else query
    store = get_store()
    try:
        first = settled(store, match_id)  # 404 before the stream starts
    except Gone:
        raise ApiError(404, "match_not_found", f"There is no match '{match_id}' (never created, or expired).") from None
    hub = get_hub()
    cfg = current_app.config
    heartbeat, lifetime = float(cfg["EVENTS_HEARTBEAT_S"]), float(cfg["EVENTS_LIFETIME_S"])
    stream = _stream(store, hub, match_id, first.meta, None if last is None else last.strip(), heartbeat, lifetime)
    return Response(
        stream,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _stream(
    store: Store, hub: Any, match_id: str, meta: Meta, last: str | None, heartbeat: float, lifetime: float
) -> Iterator[str]:
    game = GAMES[meta.game]
    end_at = time.monotonic() + lifetime
    ids = Ids()
    position: Any = None  # the engine's position after the entries walked so far
    walked = 0
    sending = last == "0"  # a reconnect sends only what comes after its id ("0": from the start)
    first_round = True
    yield f"retry: {RETRY_MS}\n\n"
    try:
        with hub.watch(match_id) as changed:
            cur = settled(store, match_id)  # after registering: nothing committed since is missed
            while True:
                if cur.length > walked:
                    raw = store.record(match_id, walked, cur.length - 1)
                    entries = [referee.parse_json(x) for x in raw]
                    for step in referee.walk(game, meta, entries, position):
                        for name, event_id, data in step_events(meta.game, meta, step, ids):
                            if sending:
                                yield sse(name, event_id, data)
                            elif event_id == last:
                                sending = True
                        position = step.after
                    walked += len(entries)
                if first_round and not sending:  # a fresh connection, or an id this match never had: where it stands now
                    yield sse("state", ids.last, {**referee.match_json(meta, cur.live, cur.now), "tags": list(meta.tags)})
                first_round, sending = False, True
                if cur.live.finished or time.monotonic() >= end_at:
                    return
                wait = min(heartbeat, end_at - time.monotonic())
                deadline = cur.live.clock.deadline
                if deadline is not None:  # apply a flag the moment it falls due
                    wait = min(wait, max(0.0, (deadline + 1 - cur.now) / 1000) + 0.001)
                if not changed.wait(max(0.0, wait)) and (deadline is None or wait >= heartbeat):
                    yield ": ping\n\n"
                changed.clear()
                cur = settled(store, match_id)
    except (Gone, redis.RedisError, Unconfirmed) as e:  # the stream ends; the client reconnects with Last-Event-ID
        log.warning("events of %s: %s", match_id, e)
