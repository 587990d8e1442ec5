"""What a tournament is: its settings as read from the command line
(``--option``, ``--clock``, ``--openings``), the schedule of its games, and
its run (:class:`Run`: its identity and how it is played).

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
import random
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from umpire.bots.external import HELLO_TIMEOUT_S

GRACE_S = 1.0  # how much longer than the seat's remaining time the harness waits for an answer
MOVE_LIMIT_S = 10.0  # --engine-only: a bot's time for a move (there is no clock)
CLAIM_TIMEOUT_S = 30.0  # --queue: a game whose worker stopped renewing its claim this long is played by another

# --engine-only keeps no clock (the engine alone has none): a --clock there would be silently
# ignored, each move having --move-limit instead, so the two are refused together
ENGINE_ONLY_CLOCK = (
    "--clock and --engine-only: without a server there is no clock, so it would be ignored; "
    "leave out --clock (each move then has --move-limit S, 10 s by default) or --engine-only"
)

FORMATS = ("round-robin", "gauntlet")
OPENINGS_ORDERS = ("sequential", "random")
# record entries that are no move (engine.game.RESERVED; the umpire's adjudication: issue 22)
RESERVED = re.compile(r"^(timeout|abort|resign [01]|forfeit [01]|adjudicate ([01]|draw))$")

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


# --clock 10+0.1: seconds on the bank, seconds added after each move (cutechess's and
# fastchess's tc=base+inc); also a bare 10 (no increment)
_FISCHER = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)(?:\+(\d+(?:\.\d*)?|\.\d+))?$")
# R-T1's turn allowance and bank step may not be 0 (engine/clock.py: at least 1 ms): a Fischer
# clock is a turn of 1 ms, everything else from the bank, charged to the millisecond
FISCHER_TURN_S = 0.001


def parse_clock(text: str | None) -> str | dict[str, Any] | None:
    """``--clock``: a preset name (R-T2: one of engine.registry's ``PRESETS``;
    checked with the other settings before the first game),
    ``turn=5,bank=30,step=1`` (also ``increment=``, ``on_flag=``, ``preset=``),
    seconds as numbers, or ``BASE+INCREMENT`` as cutechess and fastchess write a
    time control (``10+0.1``: a Fischer clock, R-T1's bank of ``BASE`` seconds
    with ``INCREMENT`` added after each move, a turn allowance and a bank step of
    1 ms, the least the service takes)."""
    if text is None:
        return None
    text = text.strip()
    fischer = _FISCHER.match(text.replace(" ", ""))
    if fischer:
        bank, increment = float(fischer.group(1)), float(fischer.group(2) or 0)
        if bank <= 0:  # every game would flag at its first move (its turn allowance is 1 ms)
            raise ValueError(
                f"--clock {text}: the base time must be more than 0 seconds (BASE+INCREMENT: 10+0.1 is a bank of 10 s)"
            )
        out: dict[str, Any] = {"turn_s": FISCHER_TURN_S, "bank_s": bank, "step_s": FISCHER_TURN_S}
        if increment:
            out["increment_s"] = increment
        return {k: int(v) if float(v).is_integer() else v for k, v in out.items()}
    if "/" in text and "=" not in text:
        raise ValueError(
            f"--clock {text}: moves/time controls (40/60) are not one of this service's clocks (R-T1: a turn "
            "allowance and a bank); use BASE+INCREMENT (10+0.1), turn=S,bank=S,step=S or a preset"
        )
    if "=" not in text:
        if not text:
            raise ValueError("--clock wants a preset name, BASE+INCREMENT (10+0.1) or turn=...,bank=...,step=...")
        return text
    out = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in CLOCK_FIELDS:
            raise ValueError(f"--clock: {part!r}: use {', '.join(k + '=' for k in CLOCK_FIELDS)} (seconds), or BASE+INCREMENT")
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


_MOVE_LINE = re.compile(r"^(\d+)\. (.*?)(?: \{(.*)\})?$")


def read_records(path: str | Path) -> list[list[str]]:
    """The moves of every game in a records file (``--records``: the record as
    text in the seeds' notation, a header of ``[Tag "value"]`` lines then one
    numbered line per move, ``1. C3 {book}``), in order; a game's moves stop at
    its first entry that is no move (``timeout``, ``resign 0``, ``abort``...)."""
    games: list[list[str]] = []
    current: list[str] | None = None
    stopped = False
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("[Game "):
            current, stopped = [], False
            games.append(current)
            continue
        found = _MOVE_LINE.match(line)
        if found is None or current is None or stopped:
            continue
        move = found.group(2).strip()
        if RESERVED.match(move):
            stopped = True
            continue
        current.append(move)
    return [g for g in games if g]


def read_result_moves(path: str | Path) -> list[list[str]]:
    """The moves of every game of a results file (``--out``), in the file's order."""
    from umpire.results import read_results

    out = []
    for line in read_results(path):
        moves = [m for m in line.get("moves", []) if isinstance(m, str)]
        cut = next((i for i, m in enumerate(moves) if RESERVED.match(m)), len(moves))
        if moves[:cut]:
            out.append(moves[:cut])
    return out


def openings_games(path: str | Path, kind: str) -> set[str]:
    """The games a records file (its ``[Game "..."]`` tags) or a results file (each line's ``game``) holds."""
    if kind == "results":
        from umpire.results import read_results

        return {str(line.get("game")) for line in read_results(path)}
    if kind == "records":
        found = set()
        for raw in Path(path).read_text(encoding="utf-8").splitlines():
            tag = re.match(r'^\[Game "(.*)"\]', raw.strip())
            if tag:
                found.add(json.loads(f'"{tag.group(1)}"'))
        return found
    return set()


def openings_kind(path: str | Path) -> str:
    """``records`` (``[Game "..."]`` headers), ``results`` (JSON objects a line) or ``book``."""
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[Game "):
            return "records"
        if line.startswith("{"):
            return "results"
        return "book"
    return "book"


def load_openings(
    path: str | Path, plies: int | None = None, order: str = "sequential", seed: int = 0, game: str | None = None
) -> list[list[str]]:
    """``--openings FILE``: a book, a records file or a results file; each
    opening cut to its first ``plies`` moves (``--opening-plies``); in the
    file's order, or shuffled by the tournament's seed (``--openings-order
    random``), so a resume deals them alike.  Records and results name their
    game: those of another ``game`` are refused (a book names none: its moves
    are replayed on the game before the first one is played)."""
    if order not in OPENINGS_ORDERS:
        raise ValueError(f"--openings-order is {' or '.join(OPENINGS_ORDERS)}, not {order!r}")
    if plies is not None and plies < 1:
        raise ValueError("--opening-plies must be at least 1")
    try:
        kind = openings_kind(path)
    except OSError as e:
        raise ValueError(f"--openings {path}: {e.strerror or e}") from None
    others = sorted(openings_games(path, kind) - {game}) if game is not None else []
    if others:
        raise ValueError(
            f"--openings {path}: its {kind} are of {', '.join(others)}, not {game}: openings come from games of the "
            "tournament's own game"
        )
    book = read_records(path) if kind == "records" else read_result_moves(path) if kind == "results" else read_openings(path)
    if not book:
        raise ValueError(f"{path}: no game in it has a move to open with")
    if plies is not None:
        book = [moves[:plies] for moves in book]
    if order == "random":
        random.Random(f"openings-{seed}").shuffle(book)
    return book


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


ENGINE_KEYS = ("name", "cmd", "args", "arg", "bot", "dir", "env", "stderr")


@dataclass(frozen=True)
class Engine:
    """A bot as cutechess-cli and fastchess name an engine (``--engine
    name=NAME cmd=PROGRAM args="..." dir=DIR env=KEY=VALUE stderr=FILE``, or
    ``bot=SPEC`` for a built-in or HTTP bot); a plain ``--bots`` spec is an
    Engine with only ``spec``."""

    spec: str  # what umpire.bots.BotFactory makes bots from: random, mcts:0.5, cmd:PROGRAM ARGS..., http://...
    name: str | None = None
    dir: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    stderr: str | None = None  # the program's stderr, appended to this file

    @property
    def label(self) -> str:
        """The short name of tables and plots: ``name=``, else a short form of the spec
        (a program's script, not its whole command line)."""
        if self.name:
            return self.name
        return short_name(self.spec)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"spec": self.spec}
        for key in ("name", "dir", "stderr"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.env:
            out["env"] = dict(self.env)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Engine:
        if isinstance(data, str):
            return cls(data)
        return cls(str(data["spec"]), data.get("name"), data.get("dir"), dict(data.get("env") or {}), data.get("stderr"))


def short_name(spec: str) -> str:
    """``cmd:python /a/b/my_bot.py --fast`` -> ``my_bot.py``; other specs as they are."""
    if not spec.startswith("cmd:"):
        return spec
    try:
        argv = shlex.split(spec[4:])
    except ValueError:
        return spec
    scripts = [a for a in argv[1:] if not a.startswith("-") and ("/" in a or "." in a)]
    return Path(scripts[0] if scripts else argv[0]).name if argv else spec


def parse_engine(items: Sequence[str]) -> Engine:
    """``--engine name=fast cmd=./bot args="--depth 3" dir=bots env=MODEL=m.bin stderr=fast.err``."""
    fields: dict[str, str] = {}
    args: list[str] = []
    env: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in ENGINE_KEYS:
            raise ValueError(f"--engine: {item!r}: use {', '.join(k + '=' for k in ENGINE_KEYS)}")
        if key == "env":
            name, sep, val = value.partition("=")
            if not sep or not name:
                raise ValueError(f"--engine: env wants env=NAME=VALUE, not {item!r}")
            env[name] = val
        elif key == "args":
            args += shlex.split(value)
        elif key == "arg":
            args.append(value)
        else:
            fields[key] = value
    if ("cmd" in fields) == ("bot" in fields):
        raise ValueError("--engine wants cmd=PROGRAM (with args=, dir=, env=) or bot=SPEC (random, greedy, mcts:S, a URL)")
    if "bot" in fields and (args or env or "dir" in fields or "stderr" in fields):
        raise ValueError("--engine: args=, dir=, env= and stderr= are for a program (cmd=)")
    spec = fields["bot"] if "bot" in fields else "cmd:" + shlex.join([fields["cmd"], *args])
    return Engine(spec, fields.get("name") or None, fields.get("dir"), env, fields.get("stderr"))


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
    engines: list[Engine] = field(default_factory=list)  # name, dir, env of each bot (empty: plain specs)

    def engine(self, i: int) -> Engine:
        return self.engines[i] if self.engines else Engine(self.bots[i])

    @property
    def labels(self) -> list[str]:
        return [self.engine(i).label for i in range(len(self.bots))]

    def fingerprint(self) -> str:
        """A short hash of what makes the games what they are; every results line carries it."""
        what: dict[str, Any] = {
            "game": self.game,
            "options": self.options,
            "bots": self.bots,
            "games": self.games,
            "format": self.fmt,
            "clock": self.clock,
            "openings": self.openings,
            "seed": self.seed,
        }
        if any(e.dir or e.env for e in self.engines):  # what changes how a program plays
            what["engines"] = [{"dir": e.dir, "env": e.env} for e in self.engines]
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """The settings as the results file keeps them (its first line), for ``--resume F`` alone."""
        return {
            "game": self.game,
            "options": self.options,
            "bots": self.bots,
            "engines": [self.engine(i).to_json() for i in range(len(self.bots))],
            "games": self.games,
            "format": self.fmt,
            "clock": self.clock,
            "openings": self.openings,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        engines = [Engine.from_json(e) for e in data.get("engines") or []]
        return cls(
            str(data["game"]),
            dict(data.get("options") or {}),
            [str(b) for b in data["bots"]],
            int(data["games"]),
            str(data.get("format", "round-robin")),
            data.get("clock"),
            [list(o) for o in data.get("openings") or []],
            int(data.get("seed", 0)),
            engines if any(e.to_json() != {"spec": e.spec} for e in engines) else [],
        )

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


@dataclass(frozen=True)
class Run:
    """One run of a tournament: its own identity (``id``: a new one for every tournament
    started, kept by ``--resume``) and everything that decides how it is played besides the
    games themselves: where (an embedded server, a ``--server``, or ``--engine-only``), how many
    games at once, the files it appends to, its limits, its queue.  The results file keeps it
    (the settings line, then a ``run`` line for each resume that changed it), so that
    ``--resume FILE`` alone plays on exactly as the run started.  Paths are absolute (and the
    folder it started in is kept for the bots' relative commands), so a resume from another
    folder appends to the same files and runs the same programs.  No secret is kept: a ``--token`` is
    given again (or taken from ``$UMPIRE_TOKEN``)."""

    id: str
    server: str | None = None  # None: a server of its own (embedded); else its URL
    engine_only: bool = False
    concurrency: int = 1
    records: str | None = None
    log: str | None = None
    report_every: int = 0
    grace_s: float = GRACE_S
    hello_timeout_s: float = HELLO_TIMEOUT_S
    move_limit_s: float = MOVE_LIMIT_S
    queue: str | None = None
    claim_timeout_s: float = CLAIM_TIMEOUT_S
    plot: str | None = None
    cwd: str | None = None  # the folder it was started in: where a bot's relative cmd: runs (None: the current one)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Run:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    @property
    def where(self) -> str:
        """Where its games are judged, as the progress line says it."""
        return "engine" if self.engine_only else self.server or "embedded"
