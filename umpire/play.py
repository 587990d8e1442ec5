"""One game between two bots, played through the managed-match API.

:func:`play_game` creates the match, plays the opening (the harness moves for
both seats), then asks the bot of the seat to move, submits its answer with
the ply, and so on until the match is finished; then it reads the record.
Everything the results file says about the game comes from here:

``reason`` (a stable word) and ``detail`` (a sentence):

* ``end``: the game ended by its own rules; ``detail`` the tie-break that
  decided it (from the final state and the last move's events);
* ``resign``: a bot resigned;
* ``flag``: a seat's clock ran out on the server (its answer came too late);
* ``illegal``: the service refused a bot's move (its error code, message and
  step); the seat then loses: the match's ``forfeit`` policy ends it (the
  record's ``forfeit N``; umpire/client.py ``create_match``);
* ``crash``: a bot exited or answered something that is not the protocol
  (its last stderr lines);
* ``timeout``: a bot gave no answer within its remaining time plus a grace,
  and was stopped ("no answer ... in N s").

A bot that cannot start a game (its program cannot be run, or exits, hangs or
answers something else before answering ``hello``) loses nothing: the game is
not played (:class:`umpire.bots.BotStartError`, before any match exists).

A Crystal seat that flags (R-X6) is not asked to move for its opponent: the
harness waits for the proxy window to lapse and the turn to pass, as the
record then shows (``timeout``).

A match that ends ``aborted`` (the harness stopping, a worker that took the
game over, an umpire) is no result at all: :class:`Aborted`, never a line.
Without a clock (``--engine-only``) each move has ``move_limit_s``, told to
the bot as its remaining time.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from engine.registry import ROOMS
from umpire.bots import Bot, BotFailure, BotStartError, Turn
from umpire.client import LEGAL_LIMIT, Json, Legal, Match, MoveOutcome, answer_legal, remaining_ms, replay_moves
from umpire.config import GRACE_S, short_name


class MatchService(Protocol):
    """What the game loop needs from the service: :class:`umpire.client.MatchClient`
    over HTTP, or :class:`umpire.local.LocalMatches` on the engine alone."""

    calls: int

    def create_match(
        self,
        game: str,
        options: Mapping[str, Any],
        clock: str | Mapping[str, Any] | None = None,
        names: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> Match: ...

    def move(self, match: Match, seat: int, ply: int, text: str, complete: bool = False, book: bool = False) -> MoveOutcome: ...

    def resign(self, match: Match, seat: int) -> Json | None: ...

    def abort(self, match_id: str, umpire: str | None = None) -> Json | None: ...

    def get(self, match_id: str, wait_ply: int | None = None, timeout_s: float | None = None) -> Json: ...

    def record(self, match_id: str) -> Json: ...

    def close(self) -> None: ...


class OpeningError(Exception):
    """An opening move the service refused (the book was checked on the engine, so a server that disagrees)."""


class Aborted(Exception):
    """No result: the tournament is stopping (this game is left unfinished and unrecorded), or
    the match was aborted under the game (it ended ``aborted``, which is never a result)."""


class InPlay:
    """The matches being played, so that an interrupted tournament can abort them on the
    server (they end ``aborted``, with no winner) instead of leaving them to flag; each
    with its own umpire token, so no admin token is needed."""

    def __init__(self) -> None:
        self._matches: dict[str, Match] = {}
        self._lock = threading.Lock()

    def add(self, match: Match) -> None:
        with self._lock:
            self._matches[match.match_id] = match

    def remove(self, match: Match) -> None:
        with self._lock:
            self._matches.pop(match.match_id, None)

    def take(self) -> list[Match]:
        """The matches in play, forgotten here (each is aborted once)."""
        with self._lock:
            taken, self._matches = list(self._matches.values()), {}
        return taken


def seat_name(bot: Bot, spec: str, name: str | None) -> str:
    """A seat's short name: the engine's ``name=``, else the name the bot gave in
    ``hello``, else a short form of its spec (umpire/config.py ``short_name``)."""
    if name:
        return name
    hello = getattr(bot, "name", None)
    if isinstance(hello, str) and hello.strip() and hello != spec:
        return hello.strip()
    return short_name(spec)


def clock_incidents(record: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    """Each seat's flags (its clock ran out: the flag that lost, or under R-X6 each one that
    opened a proxy window) and its proxy turns (R-X6: turns the opponent played for it, or that
    passed on time), from the record's entries, so that a bot that flags every turn and never
    moves is seen in the report though the game's own rule scored it."""
    flags, proxied = [0, 0], [0, 0]
    for e in record.get("moves") or []:
        seat, kind = e.get("seat"), e.get("kind")
        if seat not in (0, 1):
            continue
        if kind == "flag":
            flags[seat] += 1
        elif kind == "pass" or (kind == "move" and e.get("by") not in (None, seat)):
            proxied[seat] += 1
    return flags, proxied


def record_times(record: Mapping[str, Any], moves: Sequence[str]) -> list[list[Any]]:
    """``[seconds used, book, seat]`` for each entry of the replay list ``moves``, from
    the record's entries (the server's ``used_s``; ``book`` for opening moves);
    ``[None, False, None]`` where the record does not say."""
    out: list[list[Any]] = []
    for e in record.get("moves") or []:
        kind = e.get("kind")
        if kind == "flag" and e.get("proxy"):  # R-X6's window opened: no entry of the replay list
            continue
        if kind == "illegal" and not e.get("forfeit"):  # an attempt the service refused, the turn running on
            continue
        used = e.get("used_s") if kind in ("move", "pass") else None
        out.append([None if used is None else round(float(used), 3), bool(e.get("book")), e.get("seat")])
    return out if len(out) == len(moves) else [[None, False, None] for _ in moves]


@dataclass
class Ending:
    """Why a game ended, when the harness (not the game's rules) decided it."""

    reason: str
    detail: str
    seat: int
    illegal: Json | None = None


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _legal(game: str, state: Json, answer: Json | None) -> Legal:
    """The complete legal moves for a bot that asked for them (docs/BOTS.md):
    from the move answer (``legal_moves`` with ``complete=true``), or from the
    engine here (before the first answer, or after a read)."""
    sent = answer_legal(answer)
    if sent is not None:
        return sent
    engine = ROOMS[game].game
    legal = engine.complete_moves(engine.load(state), LEGAL_LIMIT)
    return Legal(legal.moves, legal.truncated, legal.info)


def _clock_spec(clock: Mapping[str, Any] | None) -> Json | None:
    if not clock:
        return None
    keys = ("turn_s", "bank_s", "step_s", "increment_s", "on_flag")
    return {k: clock[k] for k in keys if k in clock}


def play_game(
    matches: MatchService,
    game: str,
    options: Mapping[str, Any],
    clock: str | Mapping[str, Any] | None,
    bots: tuple[Bot, Bot],
    specs: tuple[str, str],
    opening: Sequence[str] = (),
    abort: threading.Event | None = None,
    grace_s: float = GRACE_S,
    in_play: InPlay | None = None,
    names: Sequence[str | None] | None = None,
    tags: Sequence[str] | None = None,
    move_limit_s: float | None = None,
) -> Json:
    """Play one game; the fields of its results line that concern the game itself.

    The bots' ``hello`` comes before the match is created, so the server's clock
    does not run while a program starts (its ``match_id`` is null; each ``move``
    message has it).  ``in_play`` holds the match while it is played; ``abort``
    set stops the game (:class:`Aborted`) and the caller aborts the match.  A match
    that ends aborted raises :class:`Aborted` too.  ``move_limit_s`` is each move's
    time where the match has no clock."""
    started, t0 = iso_now(), time.perf_counter()
    ending: Ending | None = None
    for seat in (0, 1):
        if abort is not None and abort.is_set():
            raise Aborted
        try:
            bots[seat].begin(game, dict(options), seat, None)
        except BotFailure as f:  # not a game lost: a bot that cannot start (the tournament stops)
            raise BotStartError(f"{specs[seat]} (seat {seat}) could not start the game: {f.detail}") from None
    if abort is not None and abort.is_set():
        raise Aborted
    shown = [seat_name(bots[i], specs[i], names[i] if names else None) for i in (0, 1)]
    m = matches.create_match(game, options, clock, names=shown, tags=tags)
    if in_play is not None:
        in_play.add(m)
    if abort is not None and abort.is_set():
        raise Aborted
    state: Json = m.state
    clk: Json | None = m.clock
    answer: Json | None = None
    last_events: list[Json] = []
    think = [0.0, 0.0]
    moved = [0, 0]

    wants_legal = any(b.wants_legal for b in bots)  # ask the service for complete legal moves in its answers
    for text in opening if ending is None else ():
        seat = state["to_move"] if clk is None else clk["may_move"]
        out = matches.move(m, seat, state["ply"], text, complete=wants_legal, book=True)
        if out.kind != "accepted":
            matches.resign(m, seat)
            raise OpeningError(f"the service refused the opening move {text!r} at ply {state['ply']}: {out.kind} {out.error}")
        assert out.state is not None
        state, clk, answer = out.state, out.clock, out.answer

    while ending is None and state["status"] != "finished":
        if abort is not None and abort.is_set():
            raise Aborted
        ply = state["ply"]
        if clk is not None and clk.get("proxy"):
            # R-X6: the seat to move has flagged; its opponent is not asked to move for it.
            # Wait for the window to lapse (the turn passes) or anything else to change.
            read = matches.get(m.match_id, wait_ply=ply, timeout_s=30)
            state, clk, answer = read["state"], read["clock"], None
            continue
        seat = int(state["to_move"] if clk is None else clk["may_move"])
        bot = bots[seat]
        left = remaining_ms(clk) if clk is not None or move_limit_s is None else round(move_limit_s * 1000)
        legal = _legal(game, state, answer) if bot.wants_legal else None
        turn = Turn(
            game=game,
            options=dict(options),
            seat=seat,
            state=state,
            ply=ply,
            match_id=m.match_id,
            remaining_ms=left,
            deadline_ms=None if left is None else left + round(grace_s * 1000),
            turn_ms=left if clk is None else round(clk["turn_s"] * 1000),
            bank_ms=None if clk is None else round(clk["seats"][str(seat)]["bank_s"] * 1000),
            legal_moves=None if legal is None else legal.moves,
            legal_truncated=legal is not None and legal.truncated,
            legal_info=None if legal is None else legal.info,
        )
        asked = time.perf_counter()
        try:
            reply = bot.choose(turn)
        except BotFailure as f:
            if abort is not None and abort.is_set():
                raise Aborted from None  # its program was stopped by the interruption: no result
            think[seat] += time.perf_counter() - asked
            ending = Ending(f.reason, f"{specs[seat]} (seat {seat}) {f.detail}", seat)
            break
        if abort is not None and abort.is_set():
            raise Aborted
        took = time.perf_counter() - asked
        think[seat] += took
        if reply.resign or reply.move is None:
            ending = Ending("resign", f"{specs[seat]} (seat {seat}) resigned at ply {ply}", seat)
            break
        out = matches.move(m, seat, ply, reply.move, complete=wants_legal)
        if out.kind == "accepted":
            assert out.state is not None
            state, clk, answer, last_events = out.state, out.clock, out.answer, out.events
            moved[seat] += 1
            continue
        if out.kind == "illegal":
            err = out.error or {}
            where = [f"step {err['step']}"] if err.get("step") is not None else []
            where += [str(err["rule"])] if err.get("rule") else []
            step = f" ({', '.join(where)})" if where else ""
            detail = (
                f"{specs[seat]} (seat {seat}) played {reply.move!r} at ply {ply}, which the service refused: "
                f"{err.get('code')}: {err.get('message')}{step}"
            )
            ending = Ending("illegal", detail, seat, {"seat": seat, "ply": ply, "move": reply.move, **err})
            assert out.state is not None
            state = out.state
            break
        # finished (a flag fell first), stale or not_your_turn (a Crystal flag opened a proxy window): read it again
        read = matches.get(m.match_id)
        state, clk, answer = read["state"], read["clock"], None
        if out.kind == "finished" and state.get("end") == "flag":
            ending = Ending(
                "flag",
                f"{specs[seat]} (seat {seat}) ran out of time at ply {ply}: its answer came after {took:.2f} s, "
                f"with {0 if left is None else left / 1000:.2f} s on its clock when it was asked",
                seat,
            )

    if abort is not None and abort.is_set():
        raise Aborted
    if state["status"] != "finished" and ending is not None:
        # the harness ends the game for a bot that failed; a flag may have ended it first
        resigned = matches.resign(m, ending.seat)
        state = resigned["state"] if resigned is not None else matches.get(m.match_id)["state"]
    if state["status"] != "finished":  # pragma: no cover - the loop above only stops at the end
        raise RuntimeError(f"match {m.match_id} is not finished")
    if state.get("end") == "aborted":  # somebody else aborted it (a worker that took the game over, an umpire)
        if in_play is not None:
            in_play.remove(m)
        raise Aborted(f"match {m.match_id} was aborted on the server: no result")

    record = matches.record(m.match_id)
    if in_play is not None:
        in_play.remove(m)
    moves = replay_moves(record)
    entries = record["moves"]
    if not last_events and entries:
        last_events = entries[-1].get("events") or []
    winner = state["winner"]
    end = state.get("end")
    if ending is not None and (ending.reason not in ("flag",) or end == "flag"):
        reason, detail = ending.reason, ending.detail
    elif end == "flag":
        flagged = next((e["seat"] for e in reversed(entries) if e["kind"] == "flag"), None)
        who = specs[flagged] if flagged is not None else "a seat"
        reason, detail = "flag", f"{who} (seat {flagged}) ran out of time on the server's clock"
    elif end == "resign":
        reason, detail = "resign", "a seat resigned"
    else:
        explain = ROOMS[game].end_detail if game in ROOMS else None
        reason = "end"
        detail = explain(state, last_events) if explain is not None else f"{end}: winner {winner}, scores {state.get('scores')}"
    result: Json = {
        "game": game,
        "options": record.get("options", dict(options)),
        "players": list(specs),
        "names": shown,
        "clock": _clock_spec(m.clock),
        "match_id": m.match_id,
        "opening": list(opening),
        "moves": moves,
        "times": record_times(record, moves),
        "plies": len(moves),
        "winner": winner,
        "reason": reason,
        "detail": detail,
        "end": end,
        "scores": state.get("scores"),
        "started": started,
        "finished": iso_now(),
        "duration_s": round(time.perf_counter() - t0, 3),
        "think_s": [round(t, 3) for t in think],
        "bot_moves": moved,
    }
    result["flags"], result["proxy_turns"] = clock_incidents(record)
    if ending is not None and ending.illegal is not None:
        result["illegal"] = ending.illegal
    for seat in (0, 1):
        with contextlib.suppress(BotFailure):
            bots[seat].end(
                {"match_id": m.match_id, "seat": seat, "winner": winner, "reason": reason, "detail": detail, "moves": moves}
            )
    return result
