"""What happens to a managed match, as pure functions of the match and ``now``.

No Redis and no Flask here: the store reads a match, these functions work out
the change (engine verdict, clocks, record entries), and the store commits it
atomically.  So the same code serves the HTTP views and the sweepers, and the
tests can drive it with an exact clock.

A match is a fixed :class:`Meta` (game, options, seat token hashes) and a
:class:`Live` part (the game's JSON state and the clocks) that every change
replaces.  Record entries are JSON objects in their final API form (API.md
"the record"), written once when the change happens.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson

from engine.clock import ClockSpec, MatchClock
from engine.game import Game, Json, MoveInput, Outcome, Verdict

AnyGame = Game[Any, Any]


def iso(ms: int) -> str:
    """RFC 3339 in UTC with milliseconds: the server's time as clients see it."""
    seconds, millis = divmod(ms, 1000)
    return f"{_iso_second(seconds)}.{millis:03d}Z"


@lru_cache(maxsize=4096)
def _iso_second(seconds: int) -> str:
    # A move writes about seven times, most of them in the same few seconds: each second is formatted once.
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def token_hash(token: str) -> str:
    """Seat tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


# JSON on a move's hot path (bench/bench_http.py): orjson writes the same compact
# text as json.dumps(separators=(",", ":"), ensure_ascii=False), several times
# faster.  What it refuses (integers beyond 64 bits, say, in a client's options)
# goes the standard library's way, so anything JSON can say is still written.


def canonical(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): the form that is hashed or compared."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def compact(value: Any) -> str:
    """JSON without spaces, keys in the order given: the form stored and answered."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_live(text: str) -> Any:
    """A match's live part read back from the store: JSON this service wrote
    from an engine state and a clock, whose numbers are all well within 64
    bits (orjson reads larger integers as floats: a client's options, which
    may hold any integer, are read by ``json``)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # anything only the standard library reads, should it ever be stored
        return json.loads(text)


@dataclass(frozen=True, slots=True)
class Meta:
    """What is fixed when a match is created."""

    match_id: str
    game: str
    options: Json  # as given at creation: with the moves of the record, what `replay` needs
    created_ms: int
    tokens: tuple[str, str]  # SHA-256 of each seat's token

    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` belongs to, or None."""
        if not token:
            return None
        digest = token_hash(token)
        found = None
        for seat, stored in enumerate(self.tokens):
            if hmac.compare_digest(digest, stored):  # constant time, no early exit
                found = seat
        return found

    def to_json(self) -> str:
        return canonical(
            {
                "match_id": self.match_id,
                "game": self.game,
                "options": self.options,
                "created": self.created_ms,
                "tokens": self.tokens,
            }
        )

    @classmethod
    @lru_cache(maxsize=4096)  # fixed for a match's life, read by every request: parsed once per process
    def from_json(cls, text: str) -> Meta:
        d = json.loads(text)
        t0, t1 = d["tokens"]
        return cls(d["match_id"], d["game"], d["options"], d["created"], (t0, t1))


@dataclass(frozen=True, slots=True)
class Live:
    """What every change replaces: the game's state, the clocks, when it ended."""

    state: Json
    clock: MatchClock
    finished_ms: int | None = None

    @property
    def finished(self) -> bool:
        return bool(self.state["status"] == "finished")

    @property
    def ply(self) -> int:
        ply: int = self.state["ply"]
        return ply

    @property
    def may_move(self) -> int | None:
        """The seat whose token may submit the next move: the mover, or in an
        R-X6 proxy window the mover's opponent."""
        mover = self.clock.mover
        if mover is None:
            return None
        return 1 - mover if self.clock.proxy else mover

    def to_json(self) -> str:
        return compact({"state": self.state, "clock": self.clock.to_json(), "finished": self.finished_ms})

    @classmethod
    def from_json(cls, text: str) -> Live:
        d = parse_live(text)
        return cls(d["state"], MatchClock.from_json(d["clock"]), d["finished"])


def start(game: AnyGame, state: Any, spec: ClockSpec, now: int) -> Live:
    """The live part of a new match: the mover's clock runs from ``now``."""
    dumped = game.dump(state)
    mover = dumped["to_move"]  # null once finished (API.md)
    return Live(dumped, MatchClock.start(spec, mover, now), now if mover is None else None)


def _entry(
    kind: str,
    live: Live,
    seat: int,
    by: int | None,
    move: str | None,
    at: int,
    used_ms: int,
    charged_ms: int,
    bank_left_ms: int,
    events: list[Json],
) -> Json:
    return {
        "kind": kind,
        "ply": live.ply,
        "seat": seat,
        "by": by,
        "move": move,
        "proxy": live.clock.proxy,
        "turn_started": iso(live.clock.turn_start),
        "at": iso(at),
        "used_s": used_ms / 1000,
        "bank_charged_s": charged_ms / 1000,
        "bank_left_s": bank_left_ms / 1000,
        "events": events,
    }


def settle(game: AnyGame, live: Live, now: int) -> tuple[Live, list[Json]]:
    """Apply every flag due by ``now`` (R-T1, R-X6), each dated at the moment
    it fell due.  Returns the live part and the record entries to add (none
    when nothing was due)."""
    entries: list[Json] = []
    while live.clock.due(now):
        clock = live.clock
        mover = clock.mover
        assert mover is not None
        at = clock.deadline
        assert at is not None
        if not clock.proxy:
            used = at - clock.turn_start
            bank = clock.banks[mover]
            if clock.spec.on_flag == "proxy":  # R-X6: the opponent may move for the flagged seat
                flagged = clock.flag()
                until = flagged.deadline
                assert until is not None
                events: list[Json] = [{"type": "flag", "player": mover, "proxy": True, "until": iso(until)}]
                entries.append(_entry("flag", live, mover, None, None, at, used, bank, 0, events))
                new = replace(live, clock=flagged)
            else:  # R-T1: the flagged seat loses
                state, events = game.timeout(game.load(live.state))
                new = Live(game.dump(state), clock.flag(), at)
                entries.append(_entry("flag", live, mover, None, None, at, used, bank, 0, events))
        else:  # R-X6: the proxy window lapsed unused: the game's timeout passes the turn
            state, events = game.timeout(game.load(live.state))
            dumped = game.dump(state)
            next_mover = dumped["to_move"]
            # In Crystal's draft the timeout makes the default choice (a move, which the record keeps).
            default = next((ev["default"] for ev in events if ev.get("type") == "flag" and "default" in ev), None)
            entries.append(_entry("pass", live, mover, None, default, at, at - clock.turn_start, 0, clock.banks[mover], events))
            new = Live(dumped, clock.lapse(next_mover), at if next_mover is None else None)
        live = new
    return live, entries


def play(
    game: AnyGame, live: Live, by: int, text: MoveInput, now: int, position: Any = None
) -> tuple[Verdict[Any], Live, Json | None]:
    """``by`` submits ``text`` for the running turn at ``now`` (the caller has
    settled flags and checked it is ``by``'s to submit).  An illegal move
    changes nothing and the clock keeps running.  ``position``, when given,
    is the engine's state of ``live`` already loaded (``verdict.state`` of the
    move that made it), which spares loading it again."""
    mover = live.clock.mover
    assert mover is not None and live.may_move == by
    verdict = game.play(game.load(live.state) if position is None else position, text)
    if not verdict.legal:
        return verdict, live, None
    dumped = game.dump(verdict.state)
    next_mover = dumped["to_move"]
    clock, charge = live.clock.after_move(now, next_mover)
    entry = _entry(
        "move", live, mover, by, verdict.move, now, charge.used_ms, charge.charged_ms, charge.bank_left_ms, verdict.events
    )
    return verdict, Live(dumped, clock, now if next_mover is None else None), entry


def resign(game: AnyGame, live: Live, seat: int, now: int) -> tuple[Live, Json]:
    """``seat`` resigns at ``now`` (any time while the match is on, R-T1's clocks stop)."""
    state, events = game.resign(game.load(live.state), seat)
    clock = live.clock
    running = clock.mover == seat and not clock.proxy
    used = now - clock.turn_start if running else 0
    entry = _entry("resign", live, seat, seat, None, now, used, 0, clock.banks[seat], events)
    return Live(game.dump(state), clock.stop(now), now), entry


def clock_json(live: Live, now: int) -> Json:
    """The clock object of API.md: each seat's bank, the deadline of the seat to move."""
    clock = live.clock
    deadline = None if clock.deadline is None else iso(clock.deadline)
    seats: dict[str, Json] = {}
    for seat in (0, 1):
        one: Json = {"bank_s": clock.banks[seat] / 1000}
        if seat == clock.mover and deadline is not None:
            one["deadline"] = deadline
        seats[str(seat)] = one
    return {
        **clock.spec.to_json(),
        "seats": seats,
        "to_move": clock.mover,
        "may_move": live.may_move,
        "turn_started": iso(clock.turn_start) if clock.mover is not None else None,
        "deadline": deadline,
        "proxy": clock.proxy,
        "now": iso(now),
    }


def record_text(game: AnyGame, meta: Meta, live: Live, entries: list[Mapping[str, Any]]) -> str:
    """The record as plain text in the seeds' notation: a header of tags, then
    one numbered line per change of the game, which is what ``replay`` checks:
    each move, ``timeout`` where the game's timeout was applied (a flag that
    loses, a lapsed R-X6 proxy window), ``resign <seat>``.  A flag that only
    opens a proxy window changes no state and is a comment line in braces."""
    spec = live.clock.spec
    state = live.state
    result = "*" if state["end"] is None else Outcome(state["winner"], state["end"]).result
    lines = [
        f'[Game "{game.name}"]',
        f'[Match "{meta.match_id}"]',
        f'[Date "{iso(meta.created_ms)}"]',
        f"[Options {canonical(meta.options)}]",
        f'[Clock "turn {spec.turn_ms / 1000:g} s, bank {spec.bank_ms / 1000:g} s, step {spec.step_ms / 1000:g} s,'
        f' on flag {spec.on_flag}"]',
        f'[Result "{result}"]' + (f" {{{state['end']}}}" if state.get("end") else ""),
        "",
    ]
    n = 0
    for e in entries:
        text = record_step(e)
        seat, kind = e["seat"], e["kind"]
        if text is None:
            lines.append(f"{{seat {seat} flagged at {e['at']}: the opponent may move for them (R-X6)}}")
            continue
        if kind == "move":
            who = f"seat {seat}" if e["by"] == seat else f"seat {e['by']} for seat {seat} (R-X6)"
            comment = f"{who}, {e['used_s']:g} s, bank {e['bank_left_s']:g} s, {e['at']}"
        elif kind == "flag":  # R-T1: the game's timeout ended it
            comment = f"seat {seat} flagged at {e['at']}: loses"
        elif kind == "pass" and e["move"]:  # Crystal's draft: the default choice, a move like any other (R-X6)
            comment = f"seat {seat} timed out: the default choice (R-X6), {e['at']}"
        elif kind == "pass":  # the proxy window lapsed unused: the game's timeout
            then = "loses" if game.flag_rule == "loses" else "the turn passes with no move and is scored (R-X6)"
            comment = f"seat {seat}'s proxy window ended unused at {e['at']}: {then}"
        else:
            comment = f"seat {seat} resigned at {e['at']}"
        n += 1
        lines.append(f"{n}. {text} {{{comment}}}")
    return "\n".join(lines) + "\n"


def record_step(entry: Mapping[str, Any]) -> str | None:
    """What a record entry is in a replayable game record (``Game.replay``):
    the move; ``timeout`` where the game's timeout was applied (a flag that
    loses, a lapsed R-X6 proxy window); ``resign <seat>``; or None for a flag
    that only opened a proxy window and changed nothing."""
    kind = entry["kind"]
    if kind == "move":
        move: str = entry["move"]
        return move
    if kind == "flag":
        return None if any(ev.get("proxy") for ev in entry["events"]) else "timeout"
    if kind == "pass":
        return str(entry["move"]) if entry["move"] else "timeout"
    return f"resign {entry['seat']}"
