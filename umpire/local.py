"""Matches played on the engine in this process, with no server: the same calls
as :class:`umpire.client.MatchClient` (create, move, resign, get, record), so
the tournament's game loop runs unchanged on either.

For tests (greedy against random without a server) and for
``bench/bench_tournament.py``, which compares this with the HTTP + Redis path
to show what the service costs.  There are no clocks here: bots are told no
remaining time, and nobody flags.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import MoveError
from engine.game import Game
from engine.registry import get_game
from umpire.client import Json, Match, MoveOutcome


@dataclass
class _Local:
    game: Game[Any, Any]
    options: Json
    state: Any
    dumped: Json
    entries: list[Json] = field(default_factory=list)
    since: float = field(default_factory=time.perf_counter)  # when the turn began: a move's used_s


class LocalMatches:
    """Managed matches without a server: the engine judges, nothing is timed."""

    def __init__(self) -> None:
        self._matches: dict[str, _Local] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.calls = 0

    def _count(self) -> None:
        with self._lock:
            self.calls += 1

    def create_match(
        self,
        game: str,
        options: Mapping[str, Any],
        clock: str | Mapping[str, Any] | None = None,
        names: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> Match:
        self._count()
        g = get_game(game)
        state = g.new(options)
        dumped = g.dump(state)
        opts = g.replay_options(options, state)  # as the service does: the record replays the same deal
        with self._lock:
            match_id = f"local-{next(self._ids)}"
            self._matches[match_id] = _Local(g, opts, state, dumped)
        return Match(match_id, ("0", "1"), dumped, None)

    def move(self, match: Match, seat: int, ply: int, text: str, complete: bool = False, book: bool = False) -> MoveOutcome:
        self._count()
        m = self._matches[match.match_id]
        if m.dumped["status"] == "finished":
            return MoveOutcome("finished")
        if ply != m.dumped["ply"]:
            return MoveOutcome("stale")
        if seat != m.dumped["to_move"]:
            return MoveOutcome("not_your_turn")
        verdict = m.game.play(m.state, text)
        if not verdict.legal:
            assert isinstance(verdict.error, MoveError)
            err = verdict.error.to_json()
            error = {"code": err.get("code"), "message": err.get("message"), "step": err.get("step"), "rule": err.get("rule")}
            m.state, events = m.game.forfeit(m.state, seat, verdict.error)  # as the service's forfeit policy does
            m.dumped = m.game.dump(m.state)
            m.entries.append({"kind": "forfeit", "seat": seat, "by": seat, "move": text, "events": events})
            return MoveOutcome("illegal", m.dumped, None, events, error)
        m.state = verdict.state
        m.dumped = m.game.dump(verdict.state)
        now = time.perf_counter()
        entry = {"kind": "move", "seat": seat, "by": seat, "move": verdict.move, "events": verdict.events}
        m.entries.append({**entry, "used_s": 0.0 if book else round(now - m.since, 3), **({"book": True} if book else {})})
        m.since = now
        return MoveOutcome("accepted", m.dumped, None, verdict.events)

    def _resign(self, m: _Local, seat: int) -> None:
        m.state, events = m.game.resign(m.state, seat)
        m.dumped = m.game.dump(m.state)
        m.entries.append({"kind": "resign", "seat": seat, "by": seat, "move": None, "events": events})

    def resign(self, match: Match, seat: int) -> Json | None:
        self._count()
        m = self._matches[match.match_id]
        if m.dumped["status"] == "finished":
            return None
        self._resign(m, seat)
        return {"match_id": match.match_id, "state": m.dumped, "clock": None}

    def abort(self, match_id: str, umpire: str | None = None) -> Json | None:
        self._count()
        m = self._matches.get(match_id)
        if m is None or m.dumped["status"] == "finished":
            return None
        m.state, events = m.game.abort(m.state)
        m.dumped = m.game.dump(m.state)
        m.entries.append({"kind": "abort", "seat": 0, "by": None, "move": None, "events": events})
        return {"match_id": match_id, "state": m.dumped, "clock": None}

    def get(self, match_id: str, wait_ply: int | None = None, timeout_s: float | None = None) -> Json:
        self._count()
        m = self._matches[match_id]
        return {"match_id": match_id, "state": m.dumped, "clock": None, "ply": m.dumped["ply"]}

    def record(self, match_id: str) -> Json:
        self._count()
        m = self._matches.pop(match_id)  # read once, when the game is over: forget it
        replay = [
            e["move"] if e["kind"] == "move" else "abort" if e["kind"] == "abort" else f"{e['kind']} {e['seat']}"
            for e in m.entries
        ]  # resign N, forfeit N
        return {
            "match_id": match_id,
            "game": m.game.name,
            "options": m.options,
            "status": m.dumped["status"],
            "winner": m.dumped["winner"],
            "end": m.dumped.get("end"),
            "moves": m.entries,
            "text": "\n".join(f"{i}. {t}" for i, t in enumerate(replay, 1)),
            "replay": {"options": m.options, "moves": replay},
        }

    def close(self) -> None:
        pass
