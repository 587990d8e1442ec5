"""What happens to a managed match, as pure functions of the match and ``now``.

No Redis and no Flask here: the store reads a match, these functions work out
the change (engine verdict, clocks, record entries), and the store commits it
atomically.  So the same code serves the HTTP views, the event streams and
the sweepers, and the tests can drive it with an exact clock.

A match is a fixed :class:`Meta` (game, options, clock, seats, names, tags,
illegal-move policy) and a :class:`Live` part (the game's JSON state and the
clocks) that every change replaces, plus its record: one compact entry per
change (:func:`entry`), about a hundred bytes.  Everything else is derived
from the record by the engine (:func:`walk`): each entry's events, the
position at any ply, the event stream, and the answer to a retried move,
which :func:`move_answer` builds from the same inputs as the first answer,
so a retry gets the first answer byte for byte without it being stored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson

import views
from engine.clock import ClockSpec, MatchClock
from engine.errors import MoveError
from engine.game import Game, Json, MoveInput, Outcome, Verdict
from service.web import schemas

AnyGame = Game[Any, Any]
POLICIES = ("reject", "forfeit")  # what an illegal move does to a match


def iso(ms: int) -> str:
    """RFC 3339 in UTC with milliseconds: the server's time as clients see it."""
    seconds, millis = divmod(ms, 1000)
    return f"{_iso_second(seconds)}.{millis:03d}Z"


@lru_cache(maxsize=4096)
def _iso_second(seconds: int) -> str:
    # A move writes several times, most of them in the same few seconds: each second is formatted once.
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


def parse_json(text: str) -> Any:
    """JSON this service wrote (orjson reads integers beyond 64 bits as floats,
    so what only the standard library reads goes its way)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def move_digest(move: Any) -> str:
    """What a retry's move must equal, in an Idempotency-Key's pointer."""
    return hashlib.sha256(canonical(move).encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Meta:
    """What is fixed when a match is created."""

    match_id: str
    game: str
    options: Json  # with the moves of the record, what `replay` needs (Crystal: the seed drawn)
    created_ms: int
    tokens: tuple[str, str]  # SHA-256 of each seat's token
    spec: ClockSpec
    players: tuple[str | None, str | None] = (None, None)
    tags: tuple[str, ...] = ()
    illegal: str = "reject"  # POLICIES

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

    @property
    def names(self) -> list[str] | None:
        """The players' names for sentences, when both were given."""
        a, b = self.players
        return [a, b] if a and b else None

    def to_json(self) -> str:
        s = self.spec
        return canonical(
            {
                "match_id": self.match_id,
                "game": self.game,
                "options": self.options,
                "created": self.created_ms,
                "tokens": self.tokens,
                "clock": [s.turn_ms, s.bank_ms, s.step_ms, s.on_flag, s.increment_ms],
                "players": self.players,
                "tags": self.tags,
                "illegal": self.illegal,
            }
        )

    @classmethod
    @lru_cache(maxsize=4096)  # fixed for a match's life, read by every request: parsed once per process
    def from_json(cls, text: str) -> Meta:
        d = json.loads(text)  # json, not orjson: a client's options may hold integers beyond 64 bits
        t0, t1 = d["tokens"]
        p0, p1 = d["players"]
        return cls(
            d["match_id"], d["game"], d["options"], d["created"], (t0, t1), ClockSpec(*d["clock"]),
            (p0, p1), tuple(d["tags"]), d["illegal"],
        )  # fmt: skip


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
        d = parse_json(text)
        return cls(d["state"], MatchClock.from_json(d["clock"]), d["finished"])


def start(game: AnyGame, state: Any, spec: ClockSpec, now: int) -> Live:
    """The live part of a new match: the mover's clock runs from ``now``."""
    dumped = game.dump(state)
    mover = dumped["to_move"]  # null once finished (API.md)
    return Live(dumped, MatchClock.start(spec, mover, now), now if mover is None else None)


# -- the record: one compact entry per change -------------------------------------
#
#   k   kind: move, flag, pass, resign, illegal, abort
#   p   the ply before the change          s   the seat concerned
#   b   the seat that submitted it (null for a flag, a pass, an abort)
#   m   the move as written back (a move; a pass that made the draft's default
#       choice, R-X6), or the text submitted (an illegal attempt)
#   w   1: a flag that opened R-X6's window (no change to the game)
#   x   1: during an R-X6 window          f   1: an illegal move that forfeited the game
#   e   an illegal attempt's error        ts  when the turn started (ms)
#   t   when it happened (ms)             u   time used (ms)
#   c   bank charged (ms)                 l   the seat's bank left (ms)
#   bk  both banks after it (ms)


def entry(kind: str, live: Live, seat: int, by: int | None, move: str | None, at: int, **more: Any) -> Json:
    clock = live.clock
    out: Json = {"k": kind, "p": live.ply, "s": seat, "b": by, "m": move, "ts": clock.turn_start, "t": at}
    out.update(more)
    return out


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
            used, bank = at - clock.turn_start, clock.banks[mover]
            flagged = clock.flag()
            if clock.spec.on_flag == "proxy":  # R-X6: the opponent may move for the flagged seat
                new = replace(live, clock=flagged)
                window = 1
            else:  # R-T1: the flagged seat loses
                state, _ = game.timeout(game.load(live.state))
                new = Live(game.dump(state), flagged, at)
                window = 0
            entries.append(entry("flag", live, mover, None, None, at, w=window, u=used, c=bank, l=0, bk=list(flagged.banks)))
        else:  # R-X6: the proxy window lapsed unused: the game's timeout passes the turn
            state, events = game.timeout(game.load(live.state))
            dumped = game.dump(state)
            next_mover = dumped["to_move"]
            # In Crystal's draft the timeout makes the default choice (a move, which the record keeps).
            default = next((ev["default"] for ev in events if ev.get("type") == "flag" and "default" in ev), None)
            lapsed = clock.lapse(next_mover)
            entries.append(
                entry(
                    "pass", live, mover, None, default, at, x=1, u=at - clock.turn_start, c=0, l=clock.banks[mover],
                    bk=list(lapsed.banks),
                )
            )  # fmt: skip
            new = Live(dumped, lapsed, at if next_mover is None else None)
        live = new
    return live, entries


def play(
    game: AnyGame, live: Live, by: int, text: MoveInput, now: int, position: Any = None
) -> tuple[Verdict[Any], Live, Json | None]:
    """``by`` submits ``text`` for the running turn at ``now`` (the caller has
    settled flags and checked it is ``by``'s to submit).  An illegal move
    changes nothing here (see :func:`refuse`).  ``position``, when given, is
    the engine's state of ``live`` already loaded, which spares loading it again."""
    mover = live.clock.mover
    assert mover is not None and live.may_move == by
    verdict = game.play(game.load(live.state) if position is None else position, text)
    if not verdict.legal:
        return verdict, live, None
    dumped = game.dump(verdict.state)
    next_mover = dumped["to_move"]
    clock, charge = live.clock.after_move(now, next_mover)
    made = entry(
        "move", live, mover, by, verdict.move, now, x=int(live.clock.proxy), u=charge.used_ms, c=charge.charged_ms,
        l=charge.bank_left_ms, bk=list(clock.banks),
    )  # fmt: skip
    return verdict, Live(dumped, clock, now if next_mover is None else None), made


def refuse(
    game: AnyGame, meta: Meta, live: Live, by: int, text: MoveInput, error: MoveError, now: int, position: Any = None
) -> tuple[Live, Json]:
    """An illegal move, kept in the record with its code and sentence.  With
    the ``reject`` policy nothing else changes (the clock keeps running); with
    ``forfeit`` the seat to move loses (end ``illegal``).  An illegal move the
    opponent sends for a flagged seat (R-X6) is only refused, under either
    policy: the flagged seat did not make it, and must not lose by it."""
    mover = live.clock.mover
    assert mover is not None
    raw = text if isinstance(text, str) else compact(list(text))
    if meta.illegal != "forfeit" or by != mover:
        return live, entry("illegal", live, mover, by, raw, now, e=error.to_json(), f=0, bk=list(live.clock.banks))
    state, _ = game.forfeit(game.load(live.state) if position is None else position, mover, error)
    clock = live.clock.stop(now)
    made = entry("illegal", live, mover, by, raw, now, e=error.to_json(), f=1, bk=list(clock.banks))
    return Live(game.dump(state), clock, now), made


def resign(game: AnyGame, live: Live, seat: int, now: int) -> tuple[Live, Json]:
    """``seat`` resigns at ``now`` (any time while the match is on, R-T1's clocks stop)."""
    state, _ = game.resign(game.load(live.state), seat)
    clock = live.clock
    running = clock.mover == seat and not clock.proxy
    used = now - clock.turn_start if running else 0
    stopped = clock.stop(now)
    made = entry("resign", live, seat, seat, None, now, u=used, c=0, l=clock.banks[seat], bk=list(stopped.banks))
    return Live(game.dump(state), stopped, now), made


def abort(game: AnyGame, live: Live, now: int) -> tuple[Live, Json]:
    """An umpire stops the match: over, no winner."""
    state, _ = game.abort(game.load(live.state))
    stopped = live.clock.stop(now)
    mover = live.clock.mover
    made = entry("abort", live, 0 if mover is None else mover, None, None, now, bk=list(stopped.banks))
    return Live(game.dump(state), stopped, now), made


# -- clocks as clients see them ---------------------------------------------------


def clock_json(live: Live, now: int) -> Json:
    """The clock object of API.md: each seat's bank and time left, the deadline
    of the seat to move.  ``remaining_s``: for the seat whose turn runs, the
    time until it flags (turn left and bank); for the other, what it will have
    when its turn starts (the turn allowance and its bank)."""
    clock = live.clock
    deadline = None if clock.deadline is None else iso(clock.deadline)
    seats: dict[str, Json] = {}
    for seat in (0, 1):
        one: Json = {"bank_s": clock.banks[seat] / 1000}
        if clock.mover is None:
            one["remaining_s"] = 0.0
        elif seat == clock.mover and not clock.proxy:
            one["remaining_s"] = max(0, (clock.deadline or now) - now) / 1000
            one["deadline"] = deadline
        elif seat == clock.mover:  # flagged: R-X6's window is the opponent's to use
            one["remaining_s"] = 0.0
            one["deadline"] = deadline
        else:
            one["remaining_s"] = (clock.spec.turn_ms + clock.banks[seat]) / 1000
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


# -- answers --------------------------------------------------------------------------


def match_json(meta: Meta, live: Live, now: int) -> Json:
    """A match as ``GET /v1/matches/{id}`` gives it."""
    return {
        "match_id": meta.match_id,
        "game": meta.game,
        "players": list(meta.players),
        "state": live.state,
        "clock": clock_json(live, now),
        "ply": live.ply,
    }


def verdict_answer(meta: Meta, live: Live, now: int, verdict: Json) -> Json:
    """A verdict (service/web/schemas.py's one shape), then the match's own fields."""
    match = match_json(meta, live, now)
    del match["state"]  # the verdict carries it
    return {**verdict, **match}


def move_answer(meta: Meta, made: Json, before: Json, after: Json, events: list[Json]) -> Json:
    """The answer to an accepted move: from its record entry and the states
    around it only, so that the answer to a retry, rebuilt from the record,
    is the first answer byte for byte (nothing of it is stored)."""
    clock = MatchClock(meta.spec, (made["bk"][0], made["bk"][1]), after["to_move"], made["t"], False)
    live = Live(after, clock, made["t"] if after["to_move"] is None else None)
    said = views.announcements(before, events, after, names=meta.names)
    verdict = schemas.verdict_json(True, after, move=made["m"], events=events, announcements=said)
    return verdict_answer(meta, live, made["t"], verdict)


def forfeit_answer(meta: Meta, made: Json, before: Json, after: Json, events: list[Json]) -> Json:
    """The answer to an illegal move that forfeited the match (built, like
    :func:`move_answer`, from the record entry alone)."""
    clock = MatchClock(meta.spec, (made["bk"][0], made["bk"][1]), None, made["t"], False)
    live = Live(after, clock, made["t"])
    said = views.announcements(before, events, after, names=meta.names)
    verdict = schemas.verdict_json(False, after, error=made["e"], events=events, announcements=said)
    return verdict_answer(meta, live, made["t"], verdict)


# -- the record, walked by the engine ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One record entry walked through the engine: the states around it and
    what happened (the engine's events, and the match's own: a flag that
    opened R-X6's window, an illegal attempt that changed nothing)."""

    index: int
    entry: Json
    before: Any
    after: Any
    events: list[Json]


def walk(game: AnyGame, meta: Meta, entries: Sequence[Json], start: Any = None) -> Iterator[Step]:
    """Each entry of the record with the positions around it, from the match's
    options (or from ``start``, the position before ``entries[0]``)."""
    state = game.new(meta.options) if start is None else start
    for i, e in enumerate(entries):
        kind, seat = e["k"], e["s"]
        events: list[Json]
        if kind == "move":
            verdict = game.play(state, e["m"])
            if not verdict.legal:  # only a corrupted record can say so
                raise ValueError(f"record entry {i} ({e['m']!r}) is not legal: {verdict.error}")
            after, events = verdict.state, verdict.events
        elif kind == "flag" and e.get("w"):
            until = iso(e["t"] + meta.spec.turn_ms)
            after, events = state, [{"type": "flag", "player": seat, "proxy": True, "until": until}]
        elif kind in ("flag", "pass"):
            after, events = game.timeout(state)
        elif kind == "resign":
            after, events = game.resign(state, seat)
        elif kind == "illegal" and e.get("f"):
            err = e["e"]  # the error whole, its ruling too: the forfeit's event says what the answer's error says
            after, events = game.forfeit(state, seat, MoveError(err["code"], err["message"], err.get("step"), err.get("rule")))
        elif kind == "illegal":
            after, events = state, [{"type": "illegal", "player": seat, "move": e["m"], **e["e"]}]
        elif kind == "abort":
            after, events = game.abort(state)
        else:
            raise ValueError(f"record entry {i} has an unknown kind {kind!r}")
        yield Step(i, e, state, after, events)
        state = after


def last_step(game: AnyGame, meta: Meta, entries: Sequence[Json]) -> Step:
    """The last entry of ``entries`` walked through the engine from the start."""
    found = None
    for found in walk(game, meta, entries):  # noqa: B007 - the last one is wanted
        pass
    if found is None:
        raise ValueError("an empty record has no last step")
    return found


def record_moves(entries: Sequence[Json]) -> list[str]:
    """The record as ``replay`` takes it: moves, and the reserved entries for
    what changed the game otherwise (``timeout``, ``resign N``, ``forfeit N``,
    ``abort``); flags that only opened R-X6's window and illegal attempts that
    changed nothing are not in it."""
    out: list[str] = []
    for e in entries:
        kind = e["k"]
        if kind == "move" or (kind == "pass" and e["m"]):
            out.append(e["m"])
        elif kind == "pass" or (kind == "flag" and not e.get("w")):
            out.append("timeout")
        elif kind == "resign":
            out.append(f"resign {e['s']}")
        elif kind == "illegal" and e.get("f"):
            out.append(f"forfeit {e['s']}")
        elif kind == "abort":
            out.append("abort")
    return out


def public_entry(e: Json, events: list[Json]) -> Json:
    """A record entry in its API form (``GET /v1/matches/{id}/moves``)."""
    out: Json = {
        "kind": e["k"],
        "ply": e["p"],
        "seat": e["s"],
        "by": e["b"],
        "move": e["m"],
        "proxy": bool(e.get("x") or e.get("w")),
        "turn_started": iso(e["ts"]),
        "at": iso(e["t"]),
        "used_s": e.get("u", 0) / 1000,
        "bank_charged_s": e.get("c", 0) / 1000,
        "bank_left_s": e.get("l", (e.get("bk") or [0, 0])[e["s"]]) / 1000,
        "events": events,
    }
    if e["k"] == "illegal":
        out["error"] = e["e"]
        out["forfeit"] = bool(e.get("f"))
    if e.get("o"):
        out["book"] = True
    return out


def record_text(game: AnyGame, meta: Meta, live: Live, entries: Sequence[Json]) -> str:
    """The record as plain text in the seeds' notation: a header of tags, then
    one numbered line per change of the game, which is what ``replay`` checks:
    each move, ``timeout``, ``resign N``, ``forfeit N``, ``abort``.  What did
    not change the game (a flag that opened R-X6's window, an illegal attempt
    under the reject policy) is a comment line in braces.  ``Result`` is
    ``1-0`` when seat 0 won, ``0-1`` when seat 1 won."""
    spec = meta.spec
    state = live.state
    outcome = None if state["end"] is None else Outcome(state["winner"], state["end"])
    result = "*" if outcome is None else outcome.result
    said = "" if outcome is None else f" {{{state['end']}; {_who_won(outcome)}}}"
    inc = f", increment {spec.increment_ms / 1000:g} s" if spec.increment_ms else ""
    lines = [
        f'[Game "{game.name}"]',
        f'[Match "{meta.match_id}"]',
        f'[Date "{iso(meta.created_ms)}"]',
        f"[Options {canonical(meta.options)}]",
        f'[Clock "turn {spec.turn_ms / 1000:g} s, bank {spec.bank_ms / 1000:g} s, step {spec.step_ms / 1000:g} s{inc},'
        f' on flag {spec.on_flag}"]',
    ]
    for seat, name in enumerate(meta.players):
        if name:
            lines.append(f"[Seat{seat} {json.dumps(name, ensure_ascii=False)}]")
    if meta.tags:
        lines.append(f"[Tags {json.dumps(', '.join(meta.tags), ensure_ascii=False)}]")
    lines += [f'[Illegal "{meta.illegal}"]', f'[Result "{result}"]{said}', ""]
    n = 0

    def step(text: str, comment: str) -> None:
        nonlocal n
        n += 1
        lines.append(f"{n}. {text} {{{comment}}}")

    for e in entries:
        seat, kind, at = e["s"], e["k"], iso(e["t"])
        if kind == "move":
            who = f"seat {seat}" if e["b"] == seat else f"seat {e['b']} for seat {seat} (R-X6)"
            book = "book, " if e.get("o") else ""
            step(e["m"], f"{who}, {book}{e['u'] / 1000:g} s, bank {e['l'] / 1000:g} s, {at}")
        elif kind == "flag" and e.get("w"):
            lines.append(f"{{seat {seat} flagged at {at}: the opponent may move for them (R-X6)}}")
        elif kind == "flag":  # R-T1: the game's timeout ended it
            step("timeout", f"seat {seat} flagged at {at}: loses")
        elif kind == "pass" and e["m"]:  # Crystal's draft: the default choice, a move like any other (R-X6)
            step(e["m"], f"seat {seat} timed out: the default choice (R-X6), {at}")
        elif kind == "pass":  # the proxy window lapsed unused: the game's timeout
            then = "loses" if game.flag_rule == "loses" else "the turn passes with no move and is scored (R-X6)"
            step("timeout", f"seat {seat}'s proxy window ended unused at {at}: {then}")
        elif kind == "resign":
            step(f"resign {seat}", f"seat {seat} resigned at {at}")
        elif kind == "illegal" and e.get("f"):
            step(f"forfeit {seat}", f"seat {seat} forfeited by an illegal move at {at}: {e['e']['message']}")
        elif kind == "illegal":
            lines.append(f"{{seat {seat} tried {json.dumps(e['m'], ensure_ascii=False)} at {at}: {e['e']['message']}}}")
        else:
            step("abort", f"aborted at {at}")
    return "\n".join(lines) + "\n"


def _who_won(outcome: Outcome) -> str:
    return "a draw" if outcome.winner is None else f"seat {outcome.winner} won"
