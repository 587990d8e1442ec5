"""Small helpers every view shares: player names, escaping for XML and
Markdown, coordinates for SVG, and the match clock in a form an umpire reads
out ("turn 0:47 left, bank 4:10").  English words for numbers and lists are
:mod:`engine.words`, which the games' sentences use too.

Nothing here knows a game.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engine.words import parse_time

Json = dict[str, Any]

_SURROGATE = re.compile("[\ud800-\udfff]")


def player_names(names: Sequence[str] | None, default: tuple[str, str]) -> tuple[str, str]:
    """The two players' names: ``names`` if given (two non-empty strings), else
    the game's; trimmed of white space, and a lone surrogate (which no UTF-8
    text can hold) replaced by U+FFFD."""
    if names is None:
        return default
    if isinstance(names, str) or len(names) != 2 or not all(isinstance(n, str) and n for n in names):
        raise ValueError("names must be two non-empty strings, player 0's first.")
    first, second = (_SURROGATE.sub("\ufffd", n.strip() or n) for n in names)
    return first, second


# Characters XML 1.0 does not allow (control characters, lone surrogates, U+FFFE/U+FFFF):
# a player's name may hold them, a picture cannot.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml(text: str) -> str:
    """Text safe inside an XML element or a double-quoted attribute; a
    character XML cannot hold becomes U+FFFD, the replacement character."""
    text = _NOT_XML.sub("\ufffd", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@lru_cache(maxsize=16384)  # pictures repeat the same few hundred coordinates: format each once
def num(v: float) -> str:
    """A coordinate for SVG: at most two decimals, no trailing zeros, so the
    same picture is always the same bytes."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


# -- the match clock ---------------------------------------------------------------


def duration(seconds: float) -> str:
    """Seconds as a clock shows them: 47 -> "0:47", 250 -> "4:10", 3725 -> "1:02:05".
    Rounded down (an umpire never promises time that is not there); never negative."""
    s = max(0, math.floor(seconds + 1e-9))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


def seat_clock(clock: Mapping[str, Any], seat: int) -> str:
    """One seat's clock in words: "turn 0:47 left, bank 4:10" for the seat whose
    turn runs ("paused by the umpire, turn 0:47 left, ..." while the umpire has
    paused the clocks, "waiting for the start, ..." before the umpire starts
    them, "starts with the first move, ..." before a ``first_move`` match's first
    move), "bank 5:00" for the other.

    The seat to move flags at ``deadline`` = turn start + turn + bank (R-T1), so
    what is left now is ``deadline - now``: the turn's allowance first, then the
    bank.  A seat's ``remaining_s``, when the clock carries it, is that time
    left, already worked out by the server, and is preferred."""
    seats = clock.get("seats")
    one: Mapping[str, Any] = {}
    if isinstance(seats, Mapping):
        got = seats.get(str(seat), seats.get(seat))
        if isinstance(got, Mapping):
            one = got
    bank = _number(one.get("bank_s"))
    if bank is None:
        bank = 0.0
    if clock.get("to_move") != seat and "deadline" not in one:
        return f"bank {duration(bank)}"
    left = _number(one.get("remaining_s"))
    if left is None:
        deadline, now = parse_time(one.get("deadline")), parse_time(clock.get("now"))
        if deadline is not None and now is not None:
            left = (deadline - now).total_seconds()
    if left is None:
        return f"bank {duration(bank)}"
    if clock.get("proxy") and clock.get("to_move") == seat:
        return f"out of time; the opponent may move for them for {duration(left)} more (R-X6)"
    turn_left = max(0.0, left - bank)
    bank_left = min(bank, max(0.0, left))
    said = f"turn {duration(turn_left)} left, bank {duration(bank_left)}"
    if clock.get("started") is False:  # the umpire's controls (issue 22): nothing runs until the start
        if clock.get("start") == "first_move":
            return f"starts with the first move, {said}"
        return f"waiting for the start, {said}"
    if clock.get("paused"):
        return f"paused by the umpire, {said}"
    return said


def clock_lines(clock: Mapping[str, Any], names: tuple[str, str]) -> list[str]:
    """Both seats' clocks, player 0 first: ["Red: turn 0:47 left, bank 4:10", "Blue: bank 5:00"]."""
    return [f"{names[seat]}: {seat_clock(clock, seat)}" for seat in (0, 1)]
