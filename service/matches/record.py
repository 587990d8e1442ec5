"""A managed match's record: one :class:`Entry` per change, typed.

Each change to a match (a move, a flag, an R-X6 pass, a resignation, an
illegal attempt, an abort, and the umpire's: start, pause, resume, add_time,
token, add_umpire, remove_umpire, adjudicate, takeback) is kept in Redis as one
compact JSON object with one-letter keys, about a hundred bytes (a take-back's
holds the position it returned to as well; the storage form is otherwise
unchanged since the first matches: records already in Redis read as they always did).  It is
parsed once, here, into an :class:`Entry`, and everything else asks the
entry: what the engine makes of it (:meth:`Entry.apply`), the clocks right
after it (:meth:`Entry.clock_after`), its word in ``replay``
(:meth:`Entry.replay_word`), its API form (:meth:`Entry.public`) and its line
in the record's text (:meth:`Entry.line`).  :func:`walk` walks a record
through the engine: each entry with the positions around it and its events.

The storage form's keys::

    k   kind (KINDS)                      p   the ply before the change
    s   the seat concerned                b   the seat that submitted it (null for a flag, a pass, an abort)
    m   the move as written back (a move; a pass that made the draft's default
        choice, R-X6), or the text submitted (an illegal attempt)
    ts  when the turn started (ms)        t   when it happened (ms)
    w   1: a flag that opened R-X6's window (no change to the game)
    x   1: during an R-X6 window          f   1: an illegal move that forfeited the game
    e   an illegal attempt's error        o   1: a move played from an opening book
    u   time used (ms)                    c   bank charged (ms)
    l   the seat's bank left (ms)         bk  both banks after it (ms)
    a   time given (ms, add_time)         v   the winner adjudicated (0, 1, null: a draw)
    r   the umpire's reason (adjudicate; a pause's, when given)
    ck  the clocks after it (engine/clock.py's storage form), for a change after which they are not
        running from ``t`` (an umpire's control; an illegal attempt while the clock waits for its
        start; a take-back)
    st  the game's state a take-back returned to (the engine's JSON: the position the undone move
        was played from), so that the entry is read without the record before it
    n   the co-umpire link made or withdrawn (add_umpire, remove_umpire: 1, 2...)
    h   a seat handed to another player with its new token (token): ``[the name before, the name after]``, so
        that the record keeps who held the seat before (the match's names are the players' as they are now)
    via the channel that made the change and answered it itself (``discord``: a slash command, answered
        in its channel), so that a webhook registered to skip that channel does not post it again
        (service/matches/outbox.py ``Hook.skip_via``); absent for the API's and the page's changes
        and for what happens by itself (a flag, a pass)

A key is written only when the kind has it (``u``, ``c``, ``l`` are absent
from an illegal attempt and an abort, for instance), as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from engine.clock import ClockSpec, MatchClock
from engine.errors import MoveError
from engine.game import Game, Json
from service.matches.jsontext import parse_json
from service.matches.match import Meta

AnyGame = Game[Any, Any]

# The umpire's, which leave the game as it is (the clocks, the seats' tokens, the co-umpire links).
CONTROLS = ("start", "pause", "resume", "add_time", "token", "add_umpire", "remove_umpire")
TAKEBACK = "takeback"  # the umpire took back the last move (service/matches/controls.py decide_takeback)
KINDS = ("move", "flag", "pass", "resign", "illegal", "abort", "adjudicate", *CONTROLS, TAKEBACK)


def iso(ms: int) -> str:
    """RFC 3339 in UTC with milliseconds: the server's time as clients see it."""
    seconds, millis = divmod(ms, 1000)
    return f"{_iso_second(seconds)}.{millis:03d}Z"


@lru_cache(maxsize=4096)
def _iso_second(seconds: int) -> str:
    # A move writes several times, most of them in the same few seconds: each second is formatted once.
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _braceless(text: str) -> str:
    """The umpire's words in a comment of the record's text, whose braces end it: ``{`` ``}`` as round ones."""
    return text.replace("{", "(").replace("}", ")")


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class Entry:
    """One change to a match, as the record keeps it.  Optional fields are
    None when the kind does not have them (and then not stored)."""

    kind: str  # KINDS
    ply: int  # the ply before the change
    seat: int  # the seat concerned
    by: int | None  # the seat that submitted it
    move: str | None
    turn_started: int  # ms
    at: int  # ms
    banks: tuple[int, int]  # both banks after it (ms)
    used: int | None = None  # ms
    charged: int | None = None  # ms
    left: int | None = None  # the seat's bank left (ms)
    window: bool | None = None  # a flag that opened R-X6's window
    proxy: bool | None = None  # during an R-X6 window
    forfeit: bool | None = None  # an illegal move that forfeited the game
    error: Json | None = None  # an illegal attempt's error
    book: bool = False  # played from an opening book
    given: int | None = None  # ms given (add_time)
    winner: int | None = None  # adjudicate: the winner, None for a draw
    reason: str | None = None  # adjudicate: why (a pause: why, when the umpire said)
    clock: Json | None = None  # the clocks after it, when not running from `at` (MatchClock.to_json)
    position: Json | None = None  # takeback: the game's state it returned to
    link: int | None = None  # add_umpire, remove_umpire: the co-umpire link's number
    handed: tuple[str | None, str] | None = None  # token: the seat's player before and after, when it changed hands
    via: str | None = None  # the channel that made it and answered it itself (``discord``)

    # -- storage form --------------------------------------------------------------

    def to_json(self) -> Json:
        """The compact storage form (one-letter keys, in the order always written)."""
        out: Json = {
            "k": self.kind, "p": self.ply, "s": self.seat, "b": self.by, "m": self.move, "ts": self.turn_started,
            "t": self.at,
        }  # fmt: skip
        optional: tuple[tuple[str, Any], ...] = (
            ("w", _flag(self.window)),
            ("x", _flag(self.proxy)),
            ("e", self.error),
            ("f", _flag(self.forfeit)),
            ("u", self.used),
            ("c", self.charged),
            ("l", self.left),
        )
        for key, value in optional:
            if value is not None:
                out[key] = value
        out["bk"] = list(self.banks)
        if self.book:
            out["o"] = 1
        if self.given is not None:
            out["a"] = self.given
        if self.kind == "adjudicate":
            out["v"], out["r"] = self.winner, self.reason
        elif self.reason is not None:
            out["r"] = self.reason
        if self.clock is not None:
            out["ck"] = self.clock
        if self.position is not None:
            out["st"] = self.position
        if self.link is not None:
            out["n"] = self.link
        if self.handed is not None:
            out["h"] = list(self.handed)
        if self.via is not None:
            out["via"] = self.via
        return out

    @classmethod
    def from_json(cls, d: Json) -> Entry:
        """An entry from its storage form; raises ValueError for one no version of this service wrote."""
        kind = d.get("k")
        if kind not in KINDS:
            raise ValueError(f"a record entry has an unknown kind {kind!r}")

        def flag(key: str) -> bool | None:
            return None if key not in d else bool(d[key])

        b0, b1 = d["bk"]
        return cls(
            kind, d["p"], d["s"], d["b"], d["m"], d["ts"], d["t"], (b0, b1), d.get("u"), d.get("c"), d.get("l"),
            flag("w"), flag("x"), flag("f"), d.get("e"), bool(d.get("o")), d.get("a"), d.get("v"), d.get("r"), d.get("ck"),
            d.get("st"), d.get("n"), None if d.get("h") is None else (d["h"][0], d["h"][1]), d.get("via"),
        )  # fmt: skip

    # -- what it means -------------------------------------------------------------

    @property
    def opened_window(self) -> bool:
        """A flag that only opened R-X6's window: the game did not change."""
        return self.kind == "flag" and bool(self.window)

    @property
    def forfeited(self) -> bool:
        return self.kind == "illegal" and bool(self.forfeit)

    def apply(self, game: AnyGame, state: Any, spec: ClockSpec) -> tuple[Any, list[Json]]:
        """The engine's state after this entry and the events of it, from the state before."""
        kind, seat = self.kind, self.seat
        if kind == "move":
            assert self.move is not None
            verdict = game.play(state, self.move)
            if not verdict.legal:  # only a corrupted record can say so
                raise ValueError(f"record entry at ply {self.ply} ({self.move!r}) is not legal: {verdict.error}")
            return verdict.state, verdict.events
        if self.opened_window:
            return state, [{"type": "flag", "player": seat, "proxy": True, "until": iso(self.at + spec.turn_ms)}]
        if kind in ("flag", "pass"):
            return game.timeout(state)
        if kind == "resign":
            return game.resign(state, seat)
        if kind in CONTROLS:
            event: Json = {"type": "umpire", "action": kind}
            if kind in ("add_time", "token"):
                event["seat"] = seat
            if kind == "add_time":
                event["seconds"] = (self.given or 0) / 1000
            if self.reason is not None:
                event["reason"] = self.reason
            if self.link is not None:
                event["link"] = self.link
            if self.handed is not None:
                event["from"], event["to"] = self.handed
            return state, [event]
        if kind == TAKEBACK:  # the position it returned to is the entry's own: no walk of the record before it
            assert self.position is not None and self.move is not None
            return game.take_back(game.load(self.position), self.move)
        if kind == "adjudicate":
            return game.adjudicate(state, self.winner, self.reason or "")
        if kind == "illegal":
            err = self.error or {}
            if self.forfeit:  # the error whole, its ruling too: the forfeit's event says what the answer's error says
                return game.forfeit(state, seat, MoveError(err["code"], err["message"], err.get("step"), err.get("rule")))
            # The seat that sent it: in an R-X6 window, the flagged seat's opponent, whose attempt it was.
            sender = seat if self.by is None else self.by
            return state, [{"type": "illegal", "player": sender, "move": self.move, **err}]
        return game.abort(state)

    def clock_after(self, spec: ClockSpec, to_move: int | None) -> MatchClock:
        """Both clocks right after this entry (its time, its banks); ``to_move``
        is the game's seat to move after it."""
        if self.clock is not None:
            return MatchClock.from_json(self.clock)
        if self.kind == "illegal" and not self.forfeit:  # nothing changed: the turn runs on
            return MatchClock(spec, self.banks, self.seat, self.turn_started, bool(self.proxy))
        if self.opened_window:  # R-X6's window opened: the opponent may move for the flagged seat
            return MatchClock(spec, self.banks, self.seat, self.at, True)
        return MatchClock(spec, self.banks, to_move, self.at, False)

    def replay_word(self) -> str | None:
        """This entry as ``replay`` takes it: the move, or the reserved word for
        what changed the game otherwise (``timeout``, ``resign N``, ``forfeit N``,
        ``abort``); None for what did not change it."""
        kind = self.kind
        if kind == "move" or (kind == "pass" and self.move):
            return self.move
        if kind == "pass" or (kind == "flag" and not self.window):
            return "timeout"
        if kind == "resign":
            return f"resign {self.seat}"
        if self.forfeited:
            return f"forfeit {self.seat}"
        if kind == "abort":
            return "abort"
        if kind == "adjudicate":
            return f"adjudicate {'draw' if self.winner is None else self.winner}"
        if kind == TAKEBACK:
            return TAKEBACK
        return None

    def public(self, events: list[Json], ply_after: int | None = None) -> Json:
        """The entry in its API form (``GET /v1/matches/{id}/moves``); ``ply_after`` is the position's
        own ply after it (the state's: a take-back's is the ply it returned to)."""
        left = self.banks[self.seat] if self.left is None else self.left
        out: Json = {
            "kind": self.kind,
            "ply": self.ply,
            "ply_after": self.ply if ply_after is None else ply_after,
            "seat": self.seat,
            "by": self.by,
            "move": self.move,
            "proxy": bool(self.proxy or self.window),
            "turn_started": iso(self.turn_started),
            "at": iso(self.at),
            "used_s": (self.used or 0) / 1000,
            "bank_charged_s": (self.charged or 0) / 1000,
            "bank_left_s": left / 1000,
            "events": events,
        }
        if self.kind == "illegal":
            out["error"] = self.error
            out["forfeit"] = bool(self.forfeit)
        if self.book:
            out["book"] = True
        if self.kind == "add_time":
            out["seconds"] = (self.given or 0) / 1000
        if self.kind == "adjudicate":
            out["winner"] = self.winner
        if self.kind == "adjudicate" or self.reason is not None:
            out["reason"] = self.reason
        if self.link is not None:
            out["link"] = self.link
        if self.handed is not None:
            out["handed"] = {"from": self.handed[0], "to": self.handed[1]}
        return out

    def _handed_words(self) -> str:
        """A seat's new token that handed it over, as the record's text says it: whose it was, whose it is."""
        if self.handed is None:
            return ""
        before, after = self.handed
        was = "" if before is None else f" from {_braceless(before)}"
        return f", handing it{was} to {_braceless(after)}"

    def line(self, flag_rule: str, names: tuple[str, str] | None = None) -> tuple[str | None, str]:
        """This entry in the record's text: ``(word, comment)`` for a numbered
        line (a change of the game: its :meth:`replay_word`), ``(None, text)``
        for a comment line in braces (what did not change the game).
        ``flag_rule`` is the game's (``loses``, or ``proxy`` for R-X6); ``names``, the players' (the
        game's own when the match has none), name the seat an adjudication gives the game to."""
        seat, kind, at = self.seat, self.kind, iso(self.at)
        if kind == "move":
            who = f"seat {seat}" if self.by == seat else f"seat {self.by} for seat {seat} (R-X6)"
            book = "book, " if self.book else ""
            return self.move, f"{who}, {book}{(self.used or 0) / 1000:g} s, bank {(self.left or 0) / 1000:g} s, {at}"
        if self.opened_window:
            return None, f"seat {seat} flagged at {at}: the opponent may move for them (R-X6)"
        if kind == "flag":  # R-T1: the game's timeout ended it
            return "timeout", f"seat {seat} flagged at {at}: loses"
        if kind == "pass" and self.move:  # Crystal's draft: the default choice, a move like any other (R-X6)
            return self.move, f"seat {seat} timed out: the default choice (R-X6), {at}"
        if kind == "pass":  # the proxy window lapsed unused: the game's timeout
            then = "loses" if flag_rule == "loses" else "the turn passes with no move and is scored (R-X6)"
            return "timeout", f"seat {seat}'s proxy window ended unused at {at}: {then}"
        if kind == "resign":
            return f"resign {seat}", f"seat {seat} resigned at {at}"
        if kind == "illegal":
            message = (self.error or {}).get("message", "")
            if self.forfeit:
                return f"forfeit {seat}", f"seat {seat} forfeited by an illegal move at {at}: {message}"
            return None, f"seat {seat} tried {json.dumps(self.move, ensure_ascii=False)} at {at}: {message}"
        if kind == "adjudicate":
            named = f" ({names[self.winner]})" if names and self.winner in (0, 1) else ""  # "adjudicate 1" is seat 1: say whose
            decided = "a draw" if self.winner is None else f"seat {self.winner}{named} wins"
            return self.replay_word(), f"the umpire adjudicated at {at}: {decided} ({_braceless(self.reason or '')})"
        if kind in CONTROLS:
            said = {
                "start": "started the clocks",
                "pause": "paused the clocks",
                "resume": "resumed the clocks",
                "add_time": f"gave seat {seat} {(self.given or 0) / 1000:g} s",
                "token": f"issued a new token for seat {seat}" + self._handed_words(),
                "add_umpire": f"made co-umpire link {self.link}",
                "remove_umpire": f"withdrew co-umpire link {self.link}",
            }[kind]
            why = "" if self.reason is None else f" ({_braceless(self.reason)})"
            return None, f"the umpire {said} at {at}{why}"
        if kind == TAKEBACK:
            back = "" if self.position is None else f", back to ply {self.position['ply']}"
            return TAKEBACK, f"the umpire took back seat {seat}'s move {self.move} at {at}: seat {seat} to move again{back}"
        return "abort", f"aborted at {at}"


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


def undone(entries: Sequence[Entry], index: int) -> bool:
    """Whether the umpire took back ``entries[index]``, a move: the next change of the game after it is a take-back."""
    after = next((e for e in entries[index + 1 :] if e.replay_word() is not None), None)
    return after is not None and after.kind == TAKEBACK


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
