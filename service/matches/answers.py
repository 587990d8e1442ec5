"""The HTTP answers of managed matches: a match as ``GET /v1/matches/{id}`` gives it, its
clocks as clients see them, and the answer to each change.

Each answer to a change is built from a record entry and the states around it only, so
that the answer to a retry, rebuilt from the record, is the first answer byte for byte
(nothing of it is stored)."""

from __future__ import annotations

from typing import Any

import views
from engine.game import Json
from engine.registry import GAMES
from service.matches.match import Live, Meta
from service.matches.query import flag, number
from service.matches.record import Entry, iso
from service.web import schemas


def clock_json(live: Live, now: int, start: str) -> Json:
    """The clock object of API.md: each seat's bank and time left, the deadline
    of the seat to move.  ``remaining_s``: for the seat whose turn runs, the
    time until it flags (turn left and bank); for the other, what it will have
    when its turn starts (the turn allowance and its bank).  While the clocks
    are paused or wait for their start (``paused``, ``started``), no deadline:
    the seat to move has what it had at the pause (a whole turn and its bank
    before the start)."""
    clock = live.clock
    deadline = None if clock.deadline is None else iso(clock.deadline)
    seats: dict[str, Json] = {}
    for seat in (0, 1):
        one: Json = {"bank_s": clock.banks[seat] / 1000}
        if clock.mover is None:
            one["remaining_s"] = 0.0
        elif seat == clock.mover and not clock.proxy and clock.paused_at is not None:
            one["remaining_s"] = max(0, clock.spec.turn_ms + clock.banks[seat] - clock.used(now)) / 1000
        elif seat == clock.mover and not clock.proxy:
            one["remaining_s"] = max(0, (clock.deadline or now) - now) / 1000
            one["deadline"] = deadline
        elif seat == clock.mover:  # flagged: R-X6's window is the opponent's to use
            one["remaining_s"] = 0.0
            if deadline is not None:  # not while paused
                one["deadline"] = deadline
        else:
            one["remaining_s"] = (clock.spec.turn_ms + clock.banks[seat]) / 1000
        seats[str(seat)] = one
    return {
        **clock.spec.to_json(),
        "seats": seats,
        "to_move": clock.mover,
        "may_move": live.may_move,
        "turn_started": iso(clock.turn_start) if clock.mover is not None and clock.started else None,
        "deadline": deadline,
        "proxy": clock.proxy,
        "start": start,  # when the clocks start (engine/clock.py STARTS): a page says what a waiting clock waits for
        "started": clock.started,
        "paused": clock.paused,
        "now": iso(now),
    }


# -- answers --------------------------------------------------------------------------


def match_json(meta: Meta, live: Live, now: int) -> Json:
    """A match as ``GET /v1/matches/{id}`` gives it."""
    return {
        "match_id": meta.match_id,
        "game": meta.game,
        "players": list(meta.players),
        "state": live.state,
        "clock": clock_json(live, now, meta.start),
        "ply": live.ply,
    }


def verdict_answer(meta: Meta, live: Live, now: int, verdict: Json) -> Json:
    """A verdict (service/web/schemas.py's one shape), then the match's own fields."""
    match = match_json(meta, live, now)
    del match["state"]  # the verdict carries it
    return {**verdict, **match}


def match_view(meta: Meta, live: Live, now: int) -> Json:
    """A match as ``GET /v1/matches/{id}`` answers it: the match, then its tags and policy."""
    return {**match_json(meta, live, now), "tags": list(meta.tags), "illegal": meta.illegal}


def move_answer(meta: Meta, made: Entry, before: Json, after: Json, events: list[Json]) -> Json:
    """The answer to an accepted move."""
    live = Live(after, made.clock_after(meta.spec, after["to_move"]), made.at if after["to_move"] is None else None)
    said = views.announcements(before, events, after, names=meta.names)
    verdict = schemas.verdict_json(True, after, move=made.move, events=events, announcements=said)
    return verdict_answer(meta, live, made.at, verdict)


def forfeit_answer(meta: Meta, made: Entry, before: Json, after: Json, events: list[Json]) -> Json:
    """The answer to an illegal move that forfeited the match."""
    live = Live(after, made.clock_after(meta.spec, None), made.at)
    said = views.announcements(before, events, after, names=meta.names)
    verdict = schemas.verdict_json(False, after, error=made.error, events=events, announcements=said)
    return verdict_answer(meta, live, made.at, verdict)


def control_answer(meta: Meta, made: Entry, state: Json, events: list[Json]) -> Json:
    """The answer to an umpire's control: the match after it, what happened, and the umpire's sentence."""
    live = Live(state, made.clock_after(meta.spec, state["to_move"]))
    said = views.announcements(state, events, state, names=meta.names)
    return {**match_view(meta, live, made.at), "events": events, "announcements": said}


def ended_answer(meta: Meta, made: Entry, after: Json, events: list[Json]) -> Json:
    """The answer to a resignation or an abort: the match after it, and what happened."""
    live = Live(after, made.clock_after(meta.spec, None), made.at)
    return {**match_view(meta, live, made.at), "events": events}


def legal_moves(game_name: str, state: Any, complete: bool = False, limit: int | None = None) -> Any:
    """The legal moves for the seat to move, as ``POST /legal-moves`` lists them (null once finished):
    with ``complete``, every whole move (at most ``limit``, by default ``schemas.COMPLETE_LIMIT``)."""
    game = GAMES[game_name]
    position = game.load(state) if isinstance(state, dict) else state
    if game.is_over(position):
        return None
    found = game.complete_moves(position, limit or schemas.COMPLETE_LIMIT) if complete else game.legal_moves(position, limit)
    out = {"moves": found.moves, "count": len(found.moves), "truncated": found.truncated, "complete": found.complete}
    return {**out, **found.info}


def with_legal(answer: dict[str, Any], game: str, state: Any) -> dict[str, Any]:
    """``answer`` plus ``legal_moves`` when the request asked for them (``?legal_moves=true``;
    ``&complete=true`` for whole moves, ``&legal_limit=N`` to cap the list)."""
    complete = flag("complete")
    limit = number("legal_limit", 1, 100000, whole=True)
    if flag("legal_moves"):
        answer = {**answer, "legal_moves": legal_moves(game, state, complete, None if limit is None else int(limit))}
    return answer
