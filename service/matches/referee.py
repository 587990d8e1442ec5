"""What happens to a managed match, as pure functions of the match and ``now``.

No Redis and no Flask here: the store reads a match, these functions work out
the change (engine verdict, clocks, record entries), and the store commits it
atomically.  So the same code serves the HTTP views, the event streams and
the sweepers, and the tests can drive it with an exact clock.

A match is a fixed :class:`Meta` (game, options, clock, seats, names, tags,
illegal-move policy) and a :class:`Live` part (the game's JSON state and the
clocks) that every change replaces, plus its record: one typed
:class:`~service.matches.record.Entry` per change, about a hundred bytes in
Redis.  Everything else is derived from the record by the engine
(:func:`walk`): each entry's events, the position at any ply, the event
stream, and the answer to a retried move, which :func:`move_answer` builds
from the same inputs as the first answer, so a retry gets the first answer
byte for byte without it being stored.

A change is one function here, returning one sealed result that carries its
answer (lila's ``MovePlayer``): :func:`judge` a move (:class:`Accepted`,
:class:`Refused`, :class:`Forfeit`), :func:`resign` and :func:`abort`
(:class:`Ended`), :func:`settle` the flags due.  Every end of a game other
than by a move goes through :func:`finish` (lila's ``Finisher``), which sets
the status, the winner and the clocks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import orjson

import views
from engine.clock import ClockSpec, MatchClock
from engine.errors import MoveError
from engine.game import Game, Json, MoveInput, Outcome
from service.matches.record import Entry
from service.matches.record import iso as iso  # the server's time as clients see it (re-exported: many read it here)
from service.web import schemas

AnyGame = Game[Any, Any]
POLICIES = ("reject", "forfeit")  # what an illegal move does to a match


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
    """What is fixed when a match is created (but for a seat's token, which the umpire may reissue)."""

    match_id: str
    game: str
    options: Json  # with the moves of the record, what `replay` needs (Crystal: the seed drawn)
    created_ms: int
    tokens: tuple[str, str]  # SHA-256 of each seat's token
    spec: ClockSpec
    players: tuple[str | None, str | None] = (None, None)
    tags: tuple[str, ...] = ()
    illegal: str = "reject"  # POLICIES
    umpire: str | None = None  # SHA-256 of the match's umpire token (None: a match made before there were any)
    start: str = "created"  # when the clock starts: engine.clock.STARTS

    def is_umpire(self, token: str | None) -> bool:
        """Whether ``token`` is this match's umpire token (constant time)."""
        return bool(token and self.umpire and hmac.compare_digest(token_hash(token), self.umpire))

    def with_token(self, seat: int, digest: str) -> Meta:
        """The meta with ``seat``'s token replaced by the one whose SHA-256 is ``digest``."""
        tokens = (digest, self.tokens[1]) if seat == 0 else (self.tokens[0], digest)
        return replace(self, tokens=tokens)

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
                "umpire": self.umpire,
                "start": self.start,
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
            (p0, p1), tuple(d["tags"]), d["illegal"], d.get("umpire"), d.get("start", "created"),
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


def start(game: AnyGame, state: Any, spec: ClockSpec, now: int, when: str = "created") -> Live:
    """The live part of a new match: the mover's clock runs from ``now`` (``when`` is
    ``created``), or waits for the first move or the umpire's start (engine.clock.STARTS)."""
    dumped = game.dump(state)
    mover = dumped["to_move"]  # null once finished (API.md)
    return Live(dumped, MatchClock.start(spec, mover, now, running=when == "created"), now if mover is None else None)


# -- changes: each the engine's events and one sealed result that carries its answer --


def finish(game: AnyGame, spec: ClockSpec, position: Any, made: Entry) -> tuple[Live, Any, list[Json]]:
    """Every end of a game that is not a move goes through here (lila's
    ``Finisher``): a flag that loses (R-T1), a resignation, a forfeit by an
    illegal move, an abort.  The engine ends the game as ``made`` says (status,
    winner, end), both clocks stop with ``made``'s banks at ``made``'s time.
    Returns the live part after it, the engine's state, and the engine's events."""
    after, events = made.apply(game, position, spec)
    return Live(game.dump(after), made.clock_after(spec, None), made.at), after, events


def settle(game: AnyGame, live: Live, now: int) -> tuple[Live, list[Entry]]:
    """Apply every flag due by ``now`` (R-T1, R-X6), each dated at the moment
    it fell due.  Returns the live part and the record entries to add (none
    when nothing was due)."""
    entries: list[Entry] = []
    while live.clock.due(now):
        clock = live.clock
        mover = clock.mover
        assert mover is not None
        at = clock.deadline
        assert at is not None
        if not clock.proxy:
            used, bank = at - clock.turn_start, clock.banks[mover]
            flagged = clock.flag()
            window = clock.spec.on_flag == "proxy"  # R-X6: the opponent may move for the flagged seat
            made = Entry(
                "flag", live.ply, mover, None, None, clock.turn_start, at, flagged.banks, used=used, charged=bank, left=0,
                window=window,
            )  # fmt: skip
            if window:
                new = replace(live, clock=flagged)
            else:  # R-T1: the flagged seat loses
                new, _, _ = finish(game, clock.spec, game.load(live.state), made)
            entries.append(made)
        else:  # R-X6: the proxy window lapsed unused: the game's timeout passes the turn
            state, events = game.timeout(game.load(live.state))
            dumped = game.dump(state)
            next_mover = dumped["to_move"]
            # In Crystal's draft the timeout makes the default choice (a move, which the record keeps).
            default = next((ev["default"] for ev in events if ev.get("type") == "flag" and "default" in ev), None)
            lapsed = clock.lapse(next_mover)
            entries.append(
                Entry(
                    "pass", live.ply, mover, None, default, clock.turn_start, at, lapsed.banks, used=at - clock.turn_start,
                    charged=0, left=clock.banks[mover], proxy=True,
                )
            )  # fmt: skip
            new = Live(dumped, lapsed, at if next_mover is None else None)
        live = new
    return live, entries


@dataclass(frozen=True, slots=True)
class Accepted:
    """A legal move, applied: the live part after it, its record entry, the
    engine's events and state after it, and the answer (200)."""

    live: Live
    entry: Entry
    events: list[Json]
    answer: Json
    position: Any


@dataclass(frozen=True, slots=True)
class Refused:
    """An illegal move refused (the ``reject`` policy, or a proxy's move): the
    match is unchanged but for the record entry; the answer (422)."""

    entry: Entry
    answer: Json


@dataclass(frozen=True, slots=True)
class Forfeit:
    """An illegal move that lost the game (the ``forfeit`` policy): the live
    part after it, its record entry, the engine's events, the answer (422)."""

    live: Live
    entry: Entry
    events: list[Json]
    answer: Json


@dataclass(frozen=True, slots=True)
class Ended:
    """A match ended by a resignation or an abort: the live part after it,
    its record entry, the engine's events, the answer (200)."""

    live: Live
    entry: Entry
    events: list[Json]
    answer: Json


Judged = Accepted | Refused | Forfeit  # what a submitted move comes to
Result = Accepted | Refused | Forfeit | Ended


def judge(
    game: AnyGame, meta: Meta, live: Live, by: int, text: MoveInput, now: int, position: Any = None, book: bool = False
) -> Judged:
    """``by`` submits ``text`` for the running turn at ``now`` (the caller has
    settled flags and checked it is ``by``'s to submit).  ``position``, when
    given, is the engine's state of ``live`` already loaded, which spares
    loading it again; ``book`` marks a move played from an opening book.

    An illegal move is kept in the record with its code and sentence.  With
    the ``reject`` policy nothing else changes (the clock keeps running); with
    ``forfeit`` the seat to move loses (end ``illegal``).  An illegal move the
    opponent sends for a flagged seat (R-X6) is only refused, under either
    policy: the flagged seat did not make it, and must not lose by it."""
    clock = live.clock
    mover = clock.mover
    assert mover is not None and live.may_move == by
    position = game.load(live.state) if position is None else position
    verdict = game.play(position, text)
    if verdict.legal:
        dumped = game.dump(verdict.state)
        next_mover = dumped["to_move"]
        after, charge = clock.after_move(now, next_mover)
        made = Entry(
            "move", live.ply, mover, by, verdict.move, clock.turn_start, now, after.banks, used=charge.used_ms,
            charged=charge.charged_ms, left=charge.bank_left_ms, proxy=clock.proxy, book=book,
        )  # fmt: skip
        answer = move_answer(meta, made, live.state, dumped, verdict.events)
        new = Live(dumped, after, now if next_mover is None else None)
        return Accepted(new, made, verdict.events, answer, verdict.state)
    error = verdict.error
    assert isinstance(error, MoveError)
    raw = text if isinstance(text, str) else compact(list(text))
    forfeit = meta.illegal == "forfeit" and by == mover
    said_error = error.to_json()
    made = Entry(
        "illegal", live.ply, mover, by, raw, clock.turn_start, now, clock.banks, forfeit=forfeit, error=said_error,
        clock=None if clock.running or forfeit else clock.to_json(),
    )  # fmt: skip
    if forfeit:
        new, _, events = finish(game, clock.spec, position, made)
        return Forfeit(new, made, events, forfeit_answer(meta, made, live.state, new.state, events))
    # The answer's event names the seat that sent the move (in an R-X6 window, the flagged seat's opponent).
    illegal = {"type": "illegal", "player": by, "move": raw, **said_error}
    said = views.announcements(live.state, [illegal], live.state, names=meta.names)
    refused = schemas.verdict_json(False, live.state, error=said_error, announcements=said)
    return Refused(made, verdict_answer(meta, live, now, refused))


def resign(game: AnyGame, meta: Meta, live: Live, seat: int, now: int) -> Ended:
    """``seat`` resigns at ``now`` (any time while the match is on, R-T1's clocks stop)."""
    clock = live.clock
    running = clock.mover == seat and not clock.proxy and clock.started
    used = clock.used(now) if running else 0  # a paused turn's time stopped at the pause
    left = clock.banks[seat]
    made = Entry("resign", live.ply, seat, seat, None, clock.turn_start, now, clock.banks, used=used, charged=0, left=left)
    return _ended(game, meta, live, made)


def abort(game: AnyGame, meta: Meta, live: Live, now: int) -> Ended:
    """An umpire stops the match: over, no winner."""
    clock = live.clock
    seat = 0 if clock.mover is None else clock.mover
    return _ended(game, meta, live, Entry("abort", live.ply, seat, None, None, clock.turn_start, now, clock.banks))


def adjudicate(game: AnyGame, meta: Meta, live: Live, winner: int | None, reason: str, now: int) -> Ended:
    """The umpire decides the match: ``winner`` (0, 1, or None for a draw), for ``reason``."""
    clock = live.clock
    seat = 0 if clock.mover is None else clock.mover
    made = Entry("adjudicate", live.ply, seat, None, None, clock.turn_start, now, clock.banks, winner=winner, reason=reason)
    return _ended(game, meta, live, made)


@dataclass(frozen=True, slots=True)
class Controlled:
    """An umpire's control that leaves the game as it is (start, pause, resume,
    add_time, token): the live part after it, its record entry, its event, the
    answer (200), and the match's new meta when a seat's token changed."""

    live: Live
    entry: Entry
    events: list[Json]
    answer: Json
    meta: Meta | None = None


def control(game: AnyGame, meta: Meta, live: Live, kind: str, now: int, seat: int | None = None, ms: int = 0) -> Controlled:
    """The umpire's ``kind`` at ``now`` (the caller has checked it applies: see
    service/matches/routes.py): ``start`` or ``resume`` the clocks, ``pause``
    them, ``add_time`` (``ms`` to ``seat``'s bank), reissue ``seat``'s ``token``."""
    clock = live.clock
    if kind in ("start", "resume"):
        clock = clock.resume(now)
    elif kind == "pause":
        clock = clock.pause(now)
    elif kind == "add_time":
        assert seat is not None
        clock = clock.add_time(seat, ms)
    concerned = seat if seat is not None else (0 if clock.mover is None else clock.mover)
    made = Entry(
        kind, live.ply, concerned, None, None, clock.turn_start, now, clock.banks, given=ms if kind == "add_time" else None,
        clock=clock.to_json(),
    )  # fmt: skip
    new = replace(live, clock=clock)
    _, events = made.apply(game, game.load(live.state), clock.spec)
    return Controlled(new, made, events, control_answer(meta, made, live.state, events))


def _ended(game: AnyGame, meta: Meta, live: Live, made: Entry) -> Ended:
    new, _, events = finish(game, live.clock.spec, game.load(live.state), made)
    return Ended(new, made, events, ended_answer(meta, made, new.state, events))


# -- clocks as clients see them ---------------------------------------------------


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


# Each answer below is built from a record entry and the states around it only, so that
# the answer to a retry, rebuilt from the record, is the first answer byte for byte
# (nothing of it is stored).


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


# -- the record, walked by the engine ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One record entry walked through the engine: the states around it and
    what happened (the engine's events, and the match's own: a flag that
    opened R-X6's window, an illegal attempt that changed nothing)."""

    index: int
    entry: Entry
    before: Any
    after: Any
    events: list[Json]


def entries_of(raw: Sequence[str]) -> list[Entry]:
    """The record as Redis keeps it (compact JSON), parsed once into typed entries."""
    return [Entry.from_json(parse_json(text)) for text in raw]


def walk(game: AnyGame, meta: Meta, entries: Sequence[Entry], start: Any = None) -> Iterator[Step]:
    """Each entry of the record with the positions around it, from the match's
    options (or from ``start``, the position before ``entries[0]``)."""
    state = game.new(meta.options) if start is None else start
    for i, e in enumerate(entries):
        after, events = e.apply(game, state, meta.spec)
        yield Step(i, e, state, after, events)
        state = after


def last_step(game: AnyGame, meta: Meta, entries: Sequence[Entry]) -> Step:
    """The last entry of ``entries`` walked through the engine from the start."""
    found = None
    for found in walk(game, meta, entries):  # noqa: B007 - the last one is wanted
        pass
    if found is None:
        raise ValueError("an empty record has no last step")
    return found


def record_moves(entries: Sequence[Entry]) -> list[str]:
    """The record as ``replay`` takes it: moves, and the reserved entries for
    what changed the game otherwise (``timeout``, ``resign N``, ``forfeit N``,
    ``abort``); flags that only opened R-X6's window and illegal attempts that
    changed nothing are not in it."""
    return [word for e in entries if (word := e.replay_word()) is not None]


def record_text(game: AnyGame, meta: Meta, live: Live, entries: Sequence[Entry]) -> str:
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
    default = views.show_for(game.name).default_names  # the rules' names of the seats (Crystal: Player 1, Player 2)
    names = (meta.players[0] or default[0], meta.players[1] or default[1])
    said = "" if outcome is None else f" {{{state['end']}; {_who_won(outcome, names)}}}"
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
    for e in entries:
        word, comment = e.line(game.flag_rule, names)
        if word is None:
            lines.append(f"{{{comment}}}")
        else:
            n += 1
            lines.append(f"{n}. {word} {{{comment}}}")
    return "\n".join(lines) + "\n"


def _who_won(outcome: Outcome, names: tuple[str, str]) -> str:
    return "a draw" if outcome.winner is None else f"seat {outcome.winner} ({names[outcome.winner]}) won"
