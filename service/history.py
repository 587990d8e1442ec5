"""A managed match's positions, now and at any earlier ply: the one function
the match pictures and posts are built on (service/pictures.py).

``history(store, match_id, ply)`` reads the match (applying any due flag,
as every read does), its record, and rebuilds the position after ``ply``
entries of the record with the engine's ``replay`` from the options the
match was created with.  Everything the pictures and posts need from a
match goes through here, so the match storage can change behind it.

``ply`` counts the record's replayable entries (``referee.record_step``):
moves, and ``timeout`` / ``resign N`` where those changed the game; a flag
that only opened an R-X6 proxy window is no entry.  So ``ply`` is the
number of numbered lines of the record's text that lead to the position,
which is the state's own ``ply`` except after a time-out or a resignation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.registry import GAMES
from service import referee
from service.errors import ApiError
from service.store import Gone, Store
from service.sweeper import settled

Json = dict[str, Any]


@dataclass(frozen=True)
class History:
    """One position of a match, with the move that reached it."""

    game: str
    options: Json  # as the match was created: what `replay` takes
    players: tuple[str, str] | None  # the players' names, when the match has them
    ply: int  # the position shown: after this many record entries
    last_ply: int  # the match's latest position
    state: Json  # the game's JSON state at `ply`
    before: Json | None  # the state before the entry that reached `ply` (None at 0)
    move: str | None  # that entry in the record's notation (a move, `timeout`, `resign 1`)
    events: list[Json]  # that entry's events
    clock: Json | None  # the match's clock now, for the latest position; None for earlier ones
    finished: bool  # the match has ended

    @property
    def settled(self) -> bool:
        """The position can never change: an earlier ply, or the end of a finished match."""
        return self.finished or self.ply < self.last_ply


def not_found(match_id: str) -> ApiError:
    return ApiError(404, "match_not_found", f"There is no match '{match_id}' (never created, or expired).")


def history(store: Store, match_id: str, ply: int | None) -> History:
    """The match's position after ``ply`` record entries (the latest when
    None): 404 ``match_not_found``, 422 ``invalid_query`` for a ply the
    record does not reach."""
    try:
        cur = settled(store, match_id)
    except Gone:
        raise not_found(match_id) from None
    game = GAMES[cur.meta.game]
    steps = [text for text in (referee.record_step(json.loads(e)) for e in store.record(match_id)) if text is not None]
    last = len(steps)
    shown = last if ply is None else ply
    if not 0 <= shown <= last:
        raise ApiError(
            422, "invalid_query", f"ply must be a whole number from 0 to {last}, the record's length.", {"parameter": "ply"}
        )
    replay = game.replay(cur.meta.options, steps[:shown])
    if not replay.valid:  # the record is the service's own: it always replays
        raise RuntimeError(f"match {match_id}'s record does not replay at entry {replay.plies}")
    return History(
        game=game.name,
        options=dict(cur.meta.options),
        players=None,
        ply=shown,
        last_ply=last,
        state=cur.live.state if shown == last else game.dump(replay.state),
        before=None if replay.before is None else game.dump(replay.before),
        move=replay.move,
        events=list(replay.events),
        clock=referee.clock_json(cur.live, cur.now) if shown == last else None,
        finished=cur.live.finished,
    )
