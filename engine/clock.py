"""Clock arithmetic for managed matches (RULES R-T1, R-T2, R-X6): pure, exact, and told the time.

Every time here is an integer number of milliseconds and every function that
needs the time takes ``now`` as an argument, so tests are exact and the
service decides where time comes from (it uses the Redis server's ``TIME``).

The model (R-T1): each turn has an allowance ``turn``; time past it is taken
from the seat's ``bank``, rounded *up* to the bank's ``step``.  A seat whose
bank cannot cover the overrun has flagged.  So the seat to move is in time
until ``turn_start + turn + bank``; the first millisecond after that the flag
is due.  Because flags are dated at the deadline (not when somebody noticed),
a match's clocks come out the same whether the flag was applied by a sweeper
at once or by a read an hour later.

What a flag does (``on_flag``): ``"loses"`` ends the game (Catchup, Bug);
``"proxy"`` opens R-X6's window: the flagged seat's bank is spent, the
opponent may move for it until ``flag time + turn``, and when that window
lapses unused the turn passes.  The flagged seat keeps the plain turn
allowance (bank 0) on its later turns.

An umpire's controls (issue 22: "The umpire is allowed freedom in measuring
time usage"): a clock may wait for its start (``started`` false: no turn
runs, no deadline), be paused (``paused_at``: the running turn's time used so
far is frozen, no deadline) and resumed (the turn's start moves later by the
pause, so the turn and the bank left are exactly what they were), and a seat
may be given time (added to its bank; when its turn runs, its deadline moves
by as much).  A clock waiting for its start is a clock paused at the moment
its turn began: starting it is resuming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import BadOptions

ON_FLAG = ("loses", "proxy")
STARTS = ("created", "first_move", "umpire")  # when a match's clock starts (issue 22)

# Upper bounds keep deadlines and banks in sane integer ranges.
MAX_TURN_S = 7 * 24 * 3600
MAX_BANK_S = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A match's time control: turn allowance, bank, bank step, what a flag
    does, and an increment added to a seat's bank after each of its moves
    (0 in every R-T2 preset; a harness's Fischer increment)."""

    turn_ms: int
    bank_ms: int
    step_ms: int
    on_flag: str  # "loses" (R-T1) or "proxy" (R-X6)
    increment_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_s": self.turn_ms / 1000,
            "bank_s": self.bank_ms / 1000,
            "step_s": self.step_ms / 1000,
            "increment_s": self.increment_ms / 1000,
            "on_flag": self.on_flag,
        }


def seconds(turn: int, bank: int, step: int, on_flag: str) -> ClockSpec:
    """A preset written in whole seconds, as RULES R-T2 gives them (each game declares its own)."""
    return ClockSpec(turn * 1000, bank * 1000, step * 1000, on_flag)


def _ms(raw: Any, field: str, least_ms: int, most_s: int) -> int:
    """A number of seconds from a client, as whole milliseconds within bounds."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise BadOptions(field, f"{field} must be a number of seconds.")
    if not least_ms / 1000 <= raw <= most_s:
        raise BadOptions(field, f"{field} must be from {least_ms / 1000:g} to {most_s} seconds.")
    return round(raw * 1000)


def spec_from(raw: Any, default: str, presets: Mapping[str, ClockSpec]) -> ClockSpec:
    """Read a match's ``clock``: a preset name, or an object with any of
    ``preset``, ``turn_s``, ``bank_s``, ``step_s``, ``increment_s``, ``on_flag``; fields left
    out come from ``preset`` or else from ``default`` (R-T2).  ``presets`` are
    every game's (engine.registry.PRESETS).  Raises BadOptions naming the field."""
    if raw is None:
        return presets[default]
    if isinstance(raw, str):
        if raw not in presets:
            raise BadOptions("clock", f"There is no clock preset '{raw}'; presets: {', '.join(presets)}.")
        return presets[raw]
    if not isinstance(raw, Mapping):
        raise BadOptions("clock", "clock must be a preset name or an object.")
    known = ("preset", "turn_s", "bank_s", "step_s", "increment_s", "on_flag")
    for key in raw:
        if key not in known:
            raise BadOptions(f"clock.{key}", f"A clock has no field '{key}'; fields: {', '.join(known)}.")
    base_name = raw.get("preset", default)
    if not isinstance(base_name, str) or base_name not in presets:
        raise BadOptions("clock.preset", f"There is no clock preset {base_name!r}; presets: {', '.join(presets)}.")
    spec = presets[base_name]
    if "turn_s" in raw:
        spec = replace(spec, turn_ms=_ms(raw["turn_s"], "clock.turn_s", 1, MAX_TURN_S))
    if "bank_s" in raw:
        spec = replace(spec, bank_ms=_ms(raw["bank_s"], "clock.bank_s", 0, MAX_BANK_S))
    if "step_s" in raw:
        spec = replace(spec, step_ms=_ms(raw["step_s"], "clock.step_s", 1, MAX_TURN_S))
    if "increment_s" in raw:
        spec = replace(spec, increment_ms=_ms(raw["increment_s"], "clock.increment_s", 0, MAX_TURN_S))
    if "on_flag" in raw:
        if raw["on_flag"] not in ON_FLAG:
            raise BadOptions("clock.on_flag", f"on_flag must be one of {', '.join(ON_FLAG)}.")
        spec = replace(spec, on_flag=raw["on_flag"])
    return spec


def round_up(ms: int, step_ms: int) -> int:
    """``ms`` rounded up to a whole number of steps (R-T1)."""
    return -(-ms // step_ms) * step_ms


@dataclass(frozen=True, slots=True)
class Charge:
    """What one turn cost: time used, what the bank paid (rounded per step), the bank left."""

    used_ms: int
    charged_ms: int
    bank_left_ms: int


@dataclass(frozen=True, slots=True)
class MatchClock:
    """The clocks of one match.

    ``mover`` is the seat whose turn is running (``None`` once the match has
    finished).  ``turn_start`` is when that turn began - or, while ``proxy``
    is set, when the mover flagged and R-X6's window opened."""

    spec: ClockSpec
    banks: tuple[int, int]
    mover: int | None
    turn_start: int
    proxy: bool = False
    paused_at: int | None = None  # when the running turn was paused (or, not yet started, when it began)
    started: bool = True  # False until the clock's first start (the umpire's, or the first move's)
    paused_for: str | None = None  # why the umpire paused them, when they said (issue 35): told while paused

    @classmethod
    def start(cls, spec: ClockSpec, mover: int | None, now: int, running: bool = True) -> MatchClock:
        """A new match's clocks at ``now``: running, or (``running`` false) waiting for their start."""
        if running or mover is None:
            return cls(spec, (spec.bank_ms, spec.bank_ms), mover, now)
        return cls(spec, (spec.bank_ms, spec.bank_ms), mover, now, paused_at=now, started=False)

    @property
    def running(self) -> bool:
        """A turn's time is running: somebody is to move, and the clock is neither paused nor waiting."""
        return self.mover is not None and self.paused_at is None

    @property
    def paused(self) -> bool:
        """Paused by the umpire (a clock waiting for its start is not paused)."""
        return self.started and self.paused_at is not None

    def used(self, now: int) -> int:
        """The running (or paused) turn's time used at ``now``."""
        return (now if self.paused_at is None else self.paused_at) - self.turn_start

    def pause(self, now: int, reason: str | None = None) -> MatchClock:
        """Stop the running turn's time at ``now`` (for ``reason``, when given): no deadline until :meth:`resume`."""
        assert self.running and self.started
        return replace(self, paused_at=now, paused_for=reason)

    def resume(self, now: int) -> MatchClock:
        """Run the paused (or waiting) turn again from ``now``: its start moves later
        by the pause, so the time used before it and the bank left are unchanged."""
        assert self.mover is not None and self.paused_at is not None
        return replace(self, turn_start=self.turn_start + (now - self.paused_at), paused_at=None, started=True, paused_for=None)

    def add_time(self, seat: int, ms: int) -> MatchClock:
        """``ms`` more in ``seat``'s bank (the umpire's gift); its deadline moves by as much
        when its turn runs (not an R-X6 window's, which lasts one turn timer)."""
        assert seat in (0, 1) and ms >= 0
        return replace(self, banks=self._with_bank(seat, self.banks[seat] + ms))

    @property
    def deadline(self) -> int | None:
        """The last millisecond the mover (or, in a proxy window, the opponent) may move in;
        None when nobody is to move, and while the clock is paused or waiting for its start."""
        if self.mover is None or self.paused_at is not None:
            return None
        if self.proxy:  # R-X6: the window lasts one turn timer
            return self.turn_start + self.spec.turn_ms
        return self.turn_start + self.spec.turn_ms + self.banks[self.mover]

    def due(self, now: int) -> bool:
        """True once a flag (or the end of a proxy window) is due."""
        deadline = self.deadline
        return deadline is not None and now > deadline

    def charge(self, now: int) -> Charge:
        """What the running turn has cost at ``now`` (R-T1); the caller has
        checked it is not yet due, so the bank covers it."""
        assert self.mover is not None
        used = now - self.turn_start
        bank = self.banks[self.mover]
        if self.proxy:  # the flagged seat's bank is already spent
            return Charge(used, 0, bank)
        overrun = max(0, used - self.spec.turn_ms)
        # A bank that is not a whole number of steps (an override) pays at most what it holds.
        charged = min(bank, round_up(overrun, self.spec.step_ms))
        return Charge(used, charged, bank - charged)

    def _with_bank(self, seat: int, bank: int) -> tuple[int, int]:
        return (bank, self.banks[1]) if seat == 0 else (self.banks[0], bank)

    def after_move(self, now: int, next_mover: int | None) -> tuple[MatchClock, Charge]:
        """The mover's turn ended at ``now`` with a move; ``next_mover``'s turn
        starts.  The mover's bank gets the increment, if any (not after a move
        made for them in an R-X6 window, and not once the game is over)."""
        assert self.mover is not None
        # A clock that waits for its start runs from the first move (``first_move``): that move is untimed.
        charge = self.charge(now) if self.started else Charge(0, 0, self.banks[self.mover])
        if self.spec.increment_ms and not self.proxy and next_mover is not None:
            charge = Charge(charge.used_ms, charge.charged_ms, charge.bank_left_ms + self.spec.increment_ms)
        banks = self._with_bank(self.mover, charge.bank_left_ms)
        return MatchClock(self.spec, banks, next_mover, now, False), charge

    def flag(self) -> MatchClock:
        """The mover flagged at the deadline: with ``on_flag == "proxy"`` the
        R-X6 window opens, else the clocks stop (the game ends).  Either way
        the flagged seat's bank is spent."""
        assert self.mover is not None and not self.proxy
        at = self.deadline
        assert at is not None
        banks = self._with_bank(self.mover, 0)
        if self.spec.on_flag == "proxy":
            return MatchClock(self.spec, banks, self.mover, at, True)
        return MatchClock(self.spec, banks, None, at, False)

    def lapse(self, next_mover: int | None) -> MatchClock:
        """R-X6: the proxy window ended unused, the turn passed; ``next_mover``'s
        turn starts at the moment the window closed."""
        assert self.proxy
        at = self.deadline
        assert at is not None
        return MatchClock(self.spec, self.banks, next_mover, at, False)

    def stop(self, now: int) -> MatchClock:
        """The match finished at ``now`` (by resignation): nobody is to move."""
        return MatchClock(self.spec, self.banks, None, now, False)

    # -- storage form (integers only, so it round-trips exactly) ---------------

    def to_json(self) -> dict[str, Any]:
        s = self.spec
        out: dict[str, Any] = {
            "spec": [s.turn_ms, s.bank_ms, s.step_ms, s.on_flag, s.increment_ms],
            "banks": list(self.banks),
            "mover": self.mover,
            "turn_start": self.turn_start,
            "proxy": self.proxy,
        }
        if self.paused_at is not None:  # written only when set: a running clock's form is as it always was
            out["paused_at"] = self.paused_at
        if not self.started:
            out["started"] = False
        if self.paused_for is not None:
            out["paused_for"] = self.paused_for
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchClock:
        turn, bank, step, on_flag, *increment = data["spec"]
        b0, b1 = data["banks"]
        spec = ClockSpec(turn, bank, step, on_flag, increment[0] if increment else 0)
        return cls(
            spec, (b0, b1), data["mover"], data["turn_start"], data["proxy"], data.get("paused_at"), data.get("started", True),
            data.get("paused_for"),
        )  # fmt: skip
