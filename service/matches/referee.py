"""What happens to a managed match, as pure functions of the match and ``now``: the
decisions, and nothing else.

No Redis, no Flask, no views here: the store reads a match, these functions
decide the change (the engine's verdict, the clocks, the typed record entry),
and the store commits it atomically; only then is it described
(service/matches/description.py), once, for every channel.  So the same code
serves the operations (``decide_*`` in service/matches/moves.py and controls.py,
which the HTTP views and the Discord adapter call alike), the event streams and
the sweepers, a lost race costs
no announcement nor answer, and the tests can drive it with an exact clock.

A match is a fixed :class:`~service.matches.match.Meta` and a
:class:`~service.matches.match.Live` part that every change replaces
(service/matches/match.py), plus its record: one typed
:class:`~service.matches.record.Entry` per change, about a hundred bytes in
Redis.  Everything else is derived from the record by the engine
(service/matches/record.py ``walk``): each entry's events, the position at
any ply, the event stream, and the description of any change.

A change is one function here, returning one sealed result (lila's
``MovePlayer``): :func:`judge` a move (:class:`Accepted`, :class:`Refused`,
:class:`Forfeit`), :func:`resign`, :func:`abort` and :func:`adjudicate`
(:class:`Ended`), :func:`control` (the umpire's), :func:`take_back` the last
move (:class:`TakenBack`, or :class:`NoTakeBack` saying why not), :func:`settle`
the flags due.  Every end of a game other than by a move goes through :func:`finish`
(lila's ``Finisher``), which sets the status, the winner and the clocks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.clock import ClockSpec, MatchClock
from engine.errors import MoveError
from engine.game import COMMON_ENDS, Game, Json, MoveInput
from service.matches.jsontext import compact
from service.matches.match import Live, Meta
from service.matches.record import TAKEBACK, Entry, last_step

AnyGame = Game[Any, Any]
REFUSED_PER_TURN = 3  # illegal attempts a turn may have refused (and recorded); past them: Exhausted (issue 34)
# What the record keeps of a refused attempt (issue 34: an entry of bounded size): the first characters of its move and
# of the engine's sentence about it (which may quote the move), the rest said by "…".  A move as text is at most 1,000
# characters, but as steps 100 of them each as long (openapi.yaml Move), up to the body's 256 KiB: a refused list of
# steps was kept whole, an entry as large as the body (twice that where the sentence quotes it all).  The longest real
# moves here ("C up 2, 2 right 3, A down 1") are some thirty characters, and an umpire reading the record needs no more
# of a nonsense.  A forfeit, one a match, is kept whole: a retry of it is recognised by its move.
KEPT_MOVE_CHARS = 100
KEPT_MESSAGE_CHARS = 300
REOPEN_MS = 10 * 60 * 1000  # how long after a move ended the game the umpire may take it back (the game reopens)


def _kept(text: str, limit: int) -> str:
    """``text`` to at most ``limit`` characters, its end said by "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
                new = replace(live, clock=flagged, refused=0)  # the window is a turn of its own
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


# Each result is sealed: what the change is (its kind), the live part after it, its record
# entry, its events (the engine's; a refused attempt's and an umpire's control's the match's
# own) and the engine's state after it.  What to answer is not here: the change is described
# once committed (service/matches/description.py), and each channel writes that.


@dataclass(frozen=True, slots=True)
class Accepted:
    """A legal move, applied."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any


@dataclass(frozen=True, slots=True)
class Refused:
    """An illegal move refused (the ``reject`` policy, or a proxy's move): the match is
    unchanged but for the record entry (``live`` is the live part as it was)."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any


@dataclass(frozen=True, slots=True)
class Forfeit:
    """An illegal move that lost the game (the ``forfeit`` policy)."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any


@dataclass(frozen=True, slots=True)
class Ended:
    """A match ended by a resignation, an abort or an adjudication."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any


@dataclass(frozen=True, slots=True)
class Controlled:
    """An umpire's control that leaves the game as it is (start, pause, resume, add_time, token)."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any = None


@dataclass(frozen=True, slots=True)
class TakenBack:
    """The last move taken back: the game is where that move was played from, the same seat to
    move with the clocks as they were just before it (its turn restarted at the take-back)."""

    live: Live
    entry: Entry
    events: list[Json]
    position: Any
    undone: Entry  # the move taken back, as the record keeps it


@dataclass(frozen=True, slots=True)
class Exhausted:
    """An illegal move past the turn's :data:`REFUSED_PER_TURN` refused ones: refused, and nothing
    recorded nor changed (the clock runs on); ``limit`` the bound."""

    limit: int


Judged = Accepted | Refused | Forfeit | Exhausted  # what a submitted move comes to
Result = Accepted | Refused | Forfeit | Ended | Controlled | TakenBack


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
    policy: the flagged seat did not make it, and must not lose by it.  A turn
    keeps at most :data:`REFUSED_PER_TURN` refused attempts; one more is
    :class:`Exhausted` (the seeds' umpire rejects, and the clock runs)."""
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
        new = Live(dumped, after, now if next_mover is None else None)
        return Accepted(new, made, verdict.events, verdict.state)
    error = verdict.error
    assert isinstance(error, MoveError)
    raw = text if isinstance(text, str) else compact(list(text))
    forfeit = meta.illegal == "forfeit" and by == mover
    said_error = error.to_json()
    if not forfeit:  # refused: the record keeps a bounded echo of it (KEPT_MOVE_CHARS)
        raw = _kept(raw, KEPT_MOVE_CHARS)
        said_error["message"] = _kept(error.message, KEPT_MESSAGE_CHARS)
    made = Entry(
        "illegal",
        live.ply,
        mover,
        by,
        raw,
        clock.turn_start,
        now,
        clock.banks,
        forfeit=forfeit,
        error=said_error,
        clock=None if clock.running or forfeit else clock.to_json(),
        proxy=True if clock.proxy else None,
    )  # fmt: skip  (in an R-X6 window the clocks it leaves are the window's: ``x``)
    if forfeit:
        new, after_position, events = finish(game, clock.spec, position, made)
        return Forfeit(new, made, events, after_position)
    if live.refused >= REFUSED_PER_TURN:  # a client's loop of attempts must not grow the record without end
        return Exhausted(REFUSED_PER_TURN)
    _, events = made.apply(game, position, clock.spec)  # the attempt's event: it names the seat that sent it
    return Refused(replace(live, refused=live.refused + 1), made, events, position)


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


def control(
    game: AnyGame, meta: Meta, live: Live, kind: str, now: int, seat: int | None = None, ms: int = 0,
    reason: str | None = None, link: int | None = None, handed: tuple[str | None, str] | None = None,
) -> Controlled:  # fmt: skip
    """The umpire's ``kind`` at ``now`` (the caller has checked it applies: see
    service/matches/controls.py's operations): ``start`` or ``resume`` the clocks, ``pause``
    them (for ``reason``, when given), ``add_time`` (``ms`` to ``seat``'s bank), reissue
    ``seat``'s ``token`` (``handed``: to another player, the names before and after), ``add_umpire`` or
    ``remove_umpire`` (co-umpire ``link``)."""
    clock = live.clock
    if kind in ("start", "resume"):
        clock = clock.resume(now)
    elif kind == "pause":
        clock = clock.pause(now, reason)
    elif kind == "add_time":
        assert seat is not None
        clock = clock.add_time(seat, ms)
    concerned = seat if seat is not None else (0 if clock.mover is None else clock.mover)
    made = Entry(
        kind, live.ply, concerned, None, None, clock.turn_start, now, clock.banks, given=ms if kind == "add_time" else None,
        reason=reason, clock=clock.to_json(), link=link, handed=handed,
    )  # fmt: skip
    new = replace(live, clock=clock)
    _, events = made.apply(game, game.load(live.state), clock.spec)
    return Controlled(new, made, events)


def _ended(game: AnyGame, meta: Meta, live: Live, made: Entry) -> Ended:
    new, position, events = finish(game, live.clock.spec, game.load(live.state), made)
    return Ended(new, made, events, position)


# -- the umpire's take-back of the last move (issue 35) ------------------------------


@dataclass(frozen=True, slots=True)
class NoTakeBack:
    """Why there is nothing to take back: ``start`` (no move yet), ``taken_back`` (the last move was
    taken back already: only the last move, once), ``not_a_move`` (the last change of the game was
    ``kind``: a flag, an R-X6 pass, a resignation, a forfeit, an abort, an adjudication), ``too_late``
    (the move ended the game more than :data:`REOPEN_MS` ago)."""

    why: str
    kind: str | None = None
    entry: Entry | None = None  # the last change of the game, if any (a take-back's retry is answered from it)


def may_reopen(live: Live, now: int) -> bool:
    """A finished game a take-back may still reopen at ``now``: ended naturally (by a move, as far as the
    live part says: not a resignation, a flag, a forfeit, an abort nor an adjudication) less than
    :data:`REOPEN_MS` ago.  (A natural end by an R-X6 pass cannot be taken back either, which only the
    record says: this errs on the side of "may", for the streams and pictures that ask.)"""
    state = live.state
    if state["status"] != "finished" or state.get("end") in COMMON_ENDS or live.finished_ms is None:
        return False
    return now - live.finished_ms <= REOPEN_MS


def last_change(entries: list[Entry]) -> int | None:
    """The index of the record's last entry that changed the game (its replay word), or None."""
    return next((i for i in range(len(entries) - 1, -1, -1) if entries[i].replay_word() is not None), None)


def take_back(game: AnyGame, meta: Meta, live: Live, entries: list[Entry], now: int) -> TakenBack | NoTakeBack:
    """The umpire takes back the last move at ``now`` (``entries``: the whole record).

    Only a move may be taken back (a player's slip of the hand, which hosts let a player "promptly
    fix"), and only the last change of the game, once: a take-back right after a take-back has
    nothing to take back, so a repeated request never undoes two moves.  A flag, a pass, a
    resignation, a forfeit, an abort or an adjudication is no slip: the clock, a player or the
    umpire decided it, and it stands.  A move that ended the game may be taken back for
    :data:`REOPEN_MS`: the game reopens.

    The game goes back to the position the move was played from, its player to move.  The clocks:
    both banks as they were just before the move was played (so time the umpire gave since is
    undone with it, and a flag that fell after it is undone with it), and that player's turn
    restarted at ``now`` - whole, or in an R-X6 window the window whole (a move made for a flagged
    seat) - still paused if the clocks are paused, still waiting if they had not started before
    that move (``clock.start: first_move``).  The turn's refused attempts count from 0 again."""
    found = last_change(entries)
    if found is None:
        return NoTakeBack("start")
    move = entries[found]
    if move.kind == TAKEBACK:
        return NoTakeBack("taken_back", TAKEBACK, move)
    if move.kind != "move":
        return NoTakeBack("not_a_move", "forfeit" if move.forfeited else move.kind, move)
    if live.finished and not may_reopen(live, now):
        return NoTakeBack("too_late", "move", move)
    spec = meta.spec
    step = last_step(game, meta, entries[: found + 1])
    position = step.before
    mover = move.seat
    if found == 0:  # the match's first clocks (service/matches/routes.py: referee.start)
        was = MatchClock.start(spec, mover, meta.created_ms, running=meta.start == "created")
    else:
        was = entries[found - 1].clock_after(spec, mover)
    if not was.started:
        clock = MatchClock(spec, was.banks, mover, now, False, paused_at=now, started=False)
    else:
        paused = live.clock.paused  # a take-back while paused stays paused, for the same reason
        clock = MatchClock(
            spec, was.banks, mover, now, was.proxy, paused_at=now if paused else None,
            paused_for=live.clock.paused_for if paused else None,
        )  # fmt: skip
    made = Entry(
        TAKEBACK, live.ply, mover, None, move.move, now, now, clock.banks, clock=clock.to_json(), position=game.dump(position)
    )
    after, events = game.take_back(position, move.move or "")
    return TakenBack(Live(game.dump(after), clock), made, events, after, move)
