"""What a tournament is: its settings as read from the command line
(``--option``, ``--clock``, ``--openings``), and the schedule of its games.

The schedule is a pure function of the settings, and every game in it has a
stable ``key`` (``"0v1#3"``: bots 0 and 1, game 3 of their match), so an
interrupted tournament can tell from its results file which games are still
missing (``--resume``).

* Formats: ``round-robin`` (every pair of bots) and ``gauntlet`` (the first bot
  against each other one); each pairing plays ``games`` games.
* Colours alternate within each pair of games: game ``2r`` of a pairing has
  its first bot in seat 0, game ``2r + 1`` in seat 1; both games of the pair
  start from opening ``r`` of the book (cycling), and in games whose options
  deal a position from a seed (Crystal's grid) from the same seed.
* Games are ordered round by round: game pair 0 of every pairing, then game
  pair 1, and so on, so every pairing progresses evenly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMATS = ("round-robin", "gauntlet")

# --clock turn=5,bank=30,step=1,increment=2: the names on the command line and the
# fields of the API's clock object.  ``increment`` is passed through for the server
# that will take it (its field name is the one line to change if it differs).
CLOCK_FIELDS = {
    "turn": "turn_s",
    "bank": "bank_s",
    "step": "step_s",
    "increment": "increment_s",
    "on_flag": "on_flag",
    "preset": "preset",
}


def parse_value(text: str) -> Any:
    """An option's value: JSON when it parses (``4``, ``true``, ``["rocks"]``), else the string itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["size=4", "variant=bolanos"]`` -> ``{"size": 4, "variant": "bolanos"}``."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--option wants KEY=VALUE, not {item!r}")
        out[key] = parse_value(value.strip())
    return out


def parse_clock(text: str | None) -> str | dict[str, Any] | None:
    """``--clock``: a preset name (R-T2: catchup, catchup-short-bank, bug,
    bug-green-meadow, crystal; the server knows which exist) or
    ``turn=5,bank=30,step=1`` (also ``increment=``, ``on_flag=``, ``preset=``),
    seconds as numbers."""
    if text is None:
        return None
    text = text.strip()
    if "=" not in text:
        if not text:
            raise ValueError("--clock wants a preset name or turn=...,bank=...,step=...")
        return text
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in CLOCK_FIELDS:
            raise ValueError(f"--clock: {part!r}: use {', '.join(k + '=' for k in CLOCK_FIELDS)} (seconds)")
        field_name = CLOCK_FIELDS[key]
        if field_name in ("on_flag", "preset"):
            out[field_name] = value.strip()
            continue
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"--clock: {key} wants a number of seconds, not {value!r}") from None
        out[field_name] = int(number) if number.is_integer() else number
    return out


def read_openings(path: str | Path) -> list[list[str]]:
    """An opening book: one opening a line, either a JSON list of moves in the
    rules' notation (``["C3", "B2 B3"]``; the only form for Crystal, whose
    turns hold commas and semicolons) or the moves separated by semicolons
    (``C3; B2 B3; C2 C4 D3``).  Blank lines and lines starting with ``#`` are
    skipped."""
    book: list[list[str]] = []
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            try:
                moves = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not a JSON list of moves: {e}") from None
            if not isinstance(moves, list) or not all(isinstance(m, str) and m.strip() for m in moves):
                raise ValueError(f"{path}:{n}: a JSON opening is a list of move strings")
        else:
            moves = [m.strip() for m in line.split(";") if m.strip()]
        if not moves:
            raise ValueError(f"{path}:{n}: an empty opening")
        book.append([m.strip() for m in moves])
    if not book:
        raise ValueError(f"{path}: the opening book has no openings")
    return book


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game."""

    index: int  # its place in the schedule
    key: str  # stable across runs of the same settings: "0v1#3"
    pairing: tuple[int, int]  # the two bots (indices into the bot list), as paired
    number: int  # its number in the pairing's match, 0-based
    seats: tuple[int, int]  # the bot at seat 0, the bot at seat 1
    opening: int | None  # index into the opening book

    @property
    def round(self) -> int:
        """The game pair it belongs to (both games of a pair share the opening)."""
        return self.number // 2


def pairings(bots: int, fmt: str) -> list[tuple[int, int]]:
    if fmt == "gauntlet":
        return [(0, j) for j in range(1, bots)]
    if fmt == "round-robin":
        return [(i, j) for i in range(bots) for j in range(i + 1, bots)]
    raise ValueError(f"unknown format {fmt!r}: use {' or '.join(FORMATS)}")


def schedule(bots: int, fmt: str, games: int, openings: int = 0) -> list[GameSpec]:
    """Every game of the tournament, in playing order (module docstring)."""
    pairs = pairings(bots, fmt)
    out: list[GameSpec] = []
    for r in range((games + 1) // 2):
        for a, b in pairs:
            for number in (2 * r, 2 * r + 1):
                if number >= games:
                    continue
                seats = (a, b) if number % 2 == 0 else (b, a)
                opening = r % openings if openings else None
                out.append(GameSpec(len(out), f"{a}v{b}#{number}", (a, b), number, seats, opening))
    return out


@dataclass(frozen=True)
class Settings:
    """Everything that decides which games a tournament plays (its fingerprint)
    and how (``concurrency`` and the rest do not change the games)."""

    game: str
    options: dict[str, Any]
    bots: list[str]
    games: int
    fmt: str = "round-robin"
    clock: str | dict[str, Any] | None = None
    openings: list[list[str]] = field(default_factory=list)
    seed: int = 0

    def fingerprint(self) -> str:
        """A short hash of what makes the games what they are; every results line carries it."""
        what = {
            "game": self.game,
            "options": self.options,
            "bots": self.bots,
            "games": self.games,
            "format": self.fmt,
            "clock": self.clock,
            "openings": self.openings,
            "seed": self.seed,
        }
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]

    def schedule(self) -> list[GameSpec]:
        return schedule(len(self.bots), self.fmt, self.games, len(self.openings))

    def game_options(self, spec: GameSpec, seeded: bool) -> dict[str, Any]:
        """The options of one game: the tournament's, plus for a game dealt from a
        seed (``seeded``: Crystal) one seed per game pair, unless a seed or a
        grid is given, so both games of a pair start alike and a rerun deals the same."""
        options = dict(self.options)
        if seeded and "seed" not in options and options.get("grid") is None:
            options["seed"] = f"t{self.seed}-r{spec.round}"
        return options


def option_text(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in options.items()) or "default options"
