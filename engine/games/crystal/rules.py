"""Crystal Connector (seed 003; RULES R-H5, R-X1 to R-X6).

A game has two parts.  The draft (R-X1), each step a move: player 0 says
``first``/``second`` (who picks a colour first), the first picker names a
colour, the second picker names two of the other three, and player 1 says
``first``/``second`` (who shifts first).  Then turns of shifts (R-X2); after
every turn both players add the product of their colours' largest groups to
their running totals (R-X3); at the end of each round a total at or past the
threshold ends the game unless the totals are equal (R-X4).

The grid is nine bit sets (engine/games/crystal/grid.py), so a turn is a few dozen
integer operations per shift and one bit-set flood fill per group at scoring.

Choices where the rules are silent (each tested):

* Spikes vanish (R-X5) when, after a turn, both players have made at least
  15 turns: the spiked crystals become plain ones (lower case -> upper case).
  A spiked crystal gives the opponent one point per cell of the shift's
  amount (``C up 5`` carries it five cells), even where the rotation ends
  where a shorter one would.
* A chameleon counts as a crystal of every colour in every respect, so on a
  pylon line it counts 2 like any crystal (R-X5).
* A conversion (color-convertor) keeps a spike on the crystal; it is allowed
  on every turn, at most once, as the first item of the move.
* A flag (R-X6) in the shift phase passes the turn with no shifts, scored as
  usual and counted as a turn (for shift-plus and for spikes); it leaves the
  opponent nothing barred.  A flag in the draft makes the default choice,
  the first entry of the legal-move list: ``first`` / red or the first colour
  left / the first two colours left, in the order red, blue, green, yellow.
* A grid given in ``options.grid`` must hold the exact piece counts of its
  anomalies but may place rocks anywhere (an umpire may set up any diagram);
  a dealt grid always has its rocks on four rows and four columns.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove, InvalidMove
from engine.game import UNDECIDED_ENDS, Game, Json, LegalMoves, MoveInput, Steps
from engine.games.crystal import grid as cg
from engine.games.crystal.grid import (
    BOMB,
    CHAMELEON,
    COLOUR_INDEX,
    COLOURS,
    FILE,
    FILE_INDEX,
    FILE_NAMES,
    PYLON,
    ROCK,
    SPIKES,
    WRAP,
    Grid,
)
from engine.options import Option, ref
from engine.stateio import COMMON_FIELDS, check_frame, is_player

VERSION = 1
ANOMALIES = ("bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes")  # canonical, sorted
ALIASES = {"colour-convertor": "color-convertor", "color-converter": "color-convertor", "colour-converter": "color-convertor"}
THRESHOLD = 250  # R-X4
THRESHOLD_CHANGE = {"bombs": -50, "chameleons": 50, "pylons": 50, "rocks": -50, "spikes": 50}  # R-X5
SPIKE_TURNS = 15  # R-X5: spikes vanish once both players have made this many turns
PHASES = ("pick_order", "pick_one", "pick_two", "move_order", "shift")
NATURAL_END = "threshold"
# The draft's moves before the first shift (R-X1): the whole draft, or player 1's
# choice of who shifts first after colours set up at creation, or nothing.
DRAFT_PLIES = (4, 1, 0)
DRAFT_PHASE_PLIES = {"pick_order": (0,), "pick_one": (1,), "pick_two": (2,), "move_order": (3, 0)}
# More than a turn can add to a total: a colour's largest group is at most 36
# crystals, counting 2 each on a pylon's lines (72 x 72), plus spiked crystals
# travelling (8 of them, 5 cells a shift, 5 shifts).
MAX_TURN_POINTS = 72 * 72 + 8 * 5 * 5
MAX_SEED = 200  # characters of a seed (and digits of a seed given as a number)

# Every field of a dumped state; load() wants exactly these, so that
# dump(load(x)) == x for any state the engine gave out.
STATE_FIELDS = (*COMMON_FIELDS, "phase", "colors", "first", "threshold", "barred", "shifts_due", "turns", "seed")

Pair = tuple[int, ...]  # colour indices, ascending (red, blue, green, yellow order)

SCHEMAS: dict[str, Json] = {
    "CrystalGrid": {
        "type": "array",
        "description": "Six strings, one per row, top first: `R B G Y` crystals, `r b g y` spiked, "
        "`*` bomb, `@` chameleon, `+` pylon, `#` rock.",
        "minItems": 6,
        "maxItems": 6,
        "items": {"type": "string", "pattern": "^[RBGYrbgy*@+#]{6}$"},
    },
    "CrystalColor": {"type": "string", "enum": list(cg.COLOURS)},
    "CrystalColors": {
        "type": "array",
        "description": "Player 0's pair first.",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": ref("CrystalColor")},
    },
}  # fmt: skip

OPTIONS = (
    Option(
        "anomalies", "array", (), "anomalies in play", choices=ANOMALIES, aliases=tuple(ALIASES.items()), rule="R-X5",
        schema={"type": "array", "uniqueItems": True, "items": {"type": "string", "enum": [*ANOMALIES, *ALIASES]}},
    ),
    Option(
        "seed", "any", None,
        "deals the grid (same seed and options, same grid); drawn by the server when absent; not with grid",
        rule="R-X1",
        schema={"oneOf": [
            {"type": "string", "minLength": 1, "maxLength": MAX_SEED},
            {"type": "integer", "minimum": 0, "maximum": 10**MAX_SEED - 1},  # at most MAX_SEED digits, as new() reads it
        ]},
    ),
    Option("grid", "array", None, "a set-up grid: six strings, one per row, top first", setup=True, schema=ref("CrystalGrid")),
    Option(
        "colors", "array", None, "each player's pair of colours, player 0's first: skips the colour draft", rule="R-X1",
        setup=True, schema=ref("CrystalColors"),
    ),
    Option(
        "first", "player", None, "who shifts first; with colors, skips the whole draft", rule="R-X1", setup=True,
        schema={"type": "integer", "minimum": 0, "maximum": 1},
    ),
)  # fmt: skip

STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["phase", "colors", "first", "threshold", "barred", "shifts_due", "turns", "seed"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["anomalies"],
            "additionalProperties": False,
            "properties": {"anomalies": {"type": "array", "items": {"type": "string", "enum": list(ANOMALIES)}}},
        },
        "scores": {"items": {"type": "integer", "minimum": 0}, "description": "Each player's running total (R-X3)."},
        "board": ref("CrystalGrid"),
        "phase": {"type": "string", "enum": list(PHASES)},
        "colors": {
            "description": "Each player's colours (player 0's first), as far as the draft has dealt them; a pair once known.",
            "type": "array", "minItems": 2, "maxItems": 2,
            "items": {"type": "array", "maxItems": 2, "uniqueItems": True, "items": ref("CrystalColor")},
        },
        "first": ref("PlayerOrNull"),
        "threshold": {"type": "integer", "description": "Totals that end the game at a round's end (R-X4, R-X5)."},
        "barred": {
            "type": "array", "items": {"type": "string", "pattern": "^([A-F]|[1-6])$"},
            "description": "Files the player to move may not shift (R-X2).",
        },
        "shifts_due": {
            "type": "integer", "minimum": 0,
            "description": "Shifts the player to move makes this turn (R-X2; 0 in the draft).",
        },
        "turns": {
            "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0},
            "description": "Turns each player has made (Shift Plus and spikes count them).",
        },
        "seed": {"type": ["string", "null"], "description": "The seed that dealt the grid; null when the grid was given."},
    },
}  # fmt: skip


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Order:
    """``first`` or ``second``: who picks first (pick_order) or who shifts first (move_order)."""

    first: bool


@dataclass(frozen=True, slots=True)
class Pick:
    """A draft pick: one colour (pick_one) or two (pick_two)."""

    colours: tuple[int, ...]


class Convert(NamedTuple):  # named tuples: made on every parse, and cheaper than frozen dataclasses
    """color-convertor: turn the crystal on ``cell`` into the mover's other colour."""

    cell: int


class Shift(NamedTuple):
    file: int  # 0-5 columns A-F, 6-11 rows 1-6
    sign: int  # +1 down/right, -1 up/left
    amount: int  # 1-5


@dataclass(frozen=True, slots=True)
class Turn:
    items: tuple[Convert | Shift, ...]


Move = Order | Pick | Turn


# -- the state -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CrystalState:
    anomalies: tuple[str, ...]  # canonical names, sorted
    seed: str | None  # None when the grid was given explicitly
    grid: Grid
    phase: str
    colors: tuple[Pair, Pair]  # each player's colours known so far
    first: int | None  # who shifts first, once the draft has said
    to_move: int | None  # None once finished
    ply: int
    turns: tuple[int, int]  # shift turns each player has made (passed turns included)
    scores: tuple[int, int]  # running totals (R-X3)
    barred: int  # bit f set: the player to move may not shift file f (R-X2)
    winner: int | None = None
    end: str | None = None  # None, "threshold" (R-X4) or "resign"


def seat_words(p: int) -> str:
    """A seat as the rules' words name it: the seed's "Player 1" and "Player 2", with the seat the
    API numbers from 0 (RULES: player 0 is the seed's Player 1), so no "player 1" reads two ways."""
    return f"Player {p + 1} (seat {p})"


def is_seed(raw: Any) -> bool:
    """A seed the deal can read: 1 to MAX_SEED characters of text, all of them
    encodable in UTF-8 (JSON can carry a lone surrogate, ``"\\ud800"``; UTF-8 cannot)."""
    if not isinstance(raw, str) or not 1 <= len(raw) <= MAX_SEED:
        return False
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def threshold(anomalies: Sequence[str]) -> int:
    """R-X4 with R-X5's adjustments."""
    return THRESHOLD + sum(THRESHOLD_CHANGE.get(a, 0) for a in anomalies)


def shifts_due(anomalies: Sequence[str], turn: int) -> int:
    """Shifts in a player's ``turn``-th turn (1-based): 3, or with shift-plus
    2 for turns 1-3, 3 for 4-6, 4 for 7-9 and 5 from then on (R-X2, R-X5)."""
    if "shift-plus" not in anomalies:
        return 3
    return min(5, 2 + (turn - 1) // 3)


def _names(pair: Pair) -> list[str]:
    return [COLOURS[c] for c in pair]


def _files(mask: int) -> list[str]:
    return [FILE_NAMES[f] for f in range(12) if mask >> f & 1]


_SPLIT = re.compile(r"[\s,;]+")
_ITEMS = re.compile(r"[,;]")
_DIGIT = re.compile(r"[0-9]")
_CONVERT = re.compile(r"^convert\s+([A-Za-z]\s*[0-9]+)$", re.IGNORECASE)


_SHIFTS = tuple(Shift(f, sign, amount) for f in range(12) for sign in (-1, 1) for amount in range(1, 6))
_TEXTS = {x: cg.shift_text(*x) for x in _SHIFTS}


@lru_cache(maxsize=4096)
def _open(rocks: int, barred: int) -> tuple[tuple[Shift, ...], tuple[str, ...]]:
    """The single shifts that no barred file (R-X2) or rock carried over the edge
    (R-X5) forbids, in file, direction, amount order, and their texts (cached:
    the same few rock and barred sets come back turn after turn)."""
    out = tuple(x for x in _SHIFTS if not barred >> x.file & 1 and not (rocks and rocks & WRAP[x.file][x.sign][x.amount]))
    return out, tuple(_TEXTS[x] for x in out)


class Crystal(Game[CrystalState, Move]):
    name = "crystal"
    title = "Crystal Connector"
    natural_ends = (NATURAL_END,)  # R-X4: a round ends with a total at or past the threshold, one player ahead
    flag_rule = "proxy"  # R-X6: a flag never ends the game
    move_rule = "R-X2"
    end_rule = "R-X4"
    turn_needs = "every turn makes its shifts, and every step of the draft is a choice"
    move_codes = {  # the codes of its illegal moves beside the common ones (engine/errors.py)
        "wrong_phase": "a move of another phase (a draft word while shifting, ...)",
        "not_in_draft": "a word the draft does not take now (R-X1)",
        "not_your_colour": "a colour that is not the player's, or taken (R-X1, R-X5)",
        "wrong_colour_count": "too few or too many colours in a pick (R-X1)",
        "bad_shift": "a shift that cannot be read (file, direction, amount 1-5; R-X2)",
        "wrong_shift_count": "not the number of shifts the turn makes (R-X2, shift-plus)",
        "not_your_file": "a file the opponent shifted on their last turn (R-X2)",
        "rock_over_edge": "a shift that carries a rock over the edge (R-X5)",
        "no_convertor": "`convert` without the color-convertor anomaly (R-X5)",
        "convert_not_first": "`convert` after the first shift, or twice (R-X5)",
    }
    options = OPTIONS
    state_schema = STATE_SCHEMA
    schemas = SCHEMAS
    presets = {"crystal": seconds(90, 180, 1, "proxy")}  # R-T2

    def check_replay_options(self, options: Mapping[str, Any]) -> None:
        """A record replays on the grid it was played on: its seed (a state's ``seed``, which its
        ``options`` leave out) or the grid itself.  Without either, ``new`` deals another grid (R-X1)
        and the moves, shifts legal on any grid, would replay "valid" to another game."""
        if options.get("seed") is None and options.get("grid") is None:
            raise BadOptions(
                "options.seed",
                "A Crystal Connector record replays on the grid it was dealt: give its seed (a state's seed) or"
                " its grid in options; without them a new grid would be dealt and the moves replayed on another board.",
            )

    def replay_options(self, options: Mapping[str, Any], state: CrystalState) -> Json:
        """With the seed the server drew (R-X1), a record replays to the same deal."""
        out = dict(options)
        if state.seed is not None and "seed" not in out:
            out["seed"] = state.seed
        return out

    # -- options -------------------------------------------------------------------

    @staticmethod
    def _anomalies(raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> tuple[str, ...]:
        if not isinstance(raw, list | tuple):
            raise err(field, f"anomalies must be a list of names from: {', '.join(ANOMALIES)}.")
        out: set[str] = set()
        for i, name in enumerate(raw):
            a = ALIASES.get(name.lower(), name.lower()) if isinstance(name, str) else None
            if a not in ANOMALIES:
                raise err(f"{field}.{i}", f"{name!r} is not an anomaly; use one of {', '.join(ANOMALIES)} (R-X5).")
            if a in out:
                raise err(f"{field}.{i}", f"The anomaly {a} is listed twice.")
            out.add(a)
        return tuple(sorted(out))

    @staticmethod
    def _colour(raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> int:
        c = COLOUR_INDEX.get(raw.lower()) if isinstance(raw, str) else None
        if c is None:
            raise err(field, f"{raw!r} is not a colour: use red, blue, green or yellow.")
        return c

    def _grid(self, raw: Any, anomalies: tuple[str, ...], field: str, err: type[BadOptions] | type[BadState]) -> Grid:
        try:
            grid = cg.parse_rows(raw)
        except ValueError as e:
            where, why = e.args
            raise err(f"{field}.{where}" if where else field, f"The grid {why} (API.md).") from None
        if grid[SPIKES] and "spikes" not in anomalies:
            b = grid[SPIKES] & -grid[SPIKES]
            raise err(f"{field}.{cg.cell_name(b.bit_length() - 1)}", "Lower-case (spiked) crystals need the spikes anomaly.")
        return grid

    def _check_counts(
        self,
        grid: Grid,
        anomalies: tuple[str, ...],
        colors: tuple[Pair, Pair] | None,
        spikes: int,
        field: str,
        err: type[BadOptions] | type[BadState],
    ) -> None:
        """R-X1/R-X5 piece counts.  ``colors`` given: conversions may have moved
        crystals between the two colours of a pair, so only each pair's sum is fixed."""
        want = cg.piece_counts(anomalies)
        have = cg.counts(grid)
        for k, sym in ((BOMB, "bombs (*)"), (CHAMELEON, "chameleons (@)"), (PYLON, "pylons (+)"), (ROCK, "rocks (#)")):
            if have[k] != want[k]:
                raise err(field, f"The grid holds {have[k]} {sym} but its anomalies call for {want[k]} (R-X5).")
        if colors is None:
            for c in range(4):
                if have[c] != want[c]:
                    raise err(field, f"The grid holds {have[c]} {COLOURS[c]} crystals but should hold {want[c]} (R-X1, R-X5).")
        else:
            for pair in colors:
                h, w = sum(have[c] for c in pair), sum(want[c] for c in pair)
                if h != w:
                    raise err(
                        field,
                        f"The grid holds {h} {' and '.join(_names(pair))} crystals together but should hold {w} "
                        "(R-X1, R-X5; a conversion only moves crystals between the two colours of a pair).",
                    )
        if have[SPIKES] != spikes:
            raise err(field, f"The grid holds {have[SPIKES]} spiked crystals but should hold {spikes} (R-X5).")
        if spikes and colors is None:
            for c in range(4):
                n = (grid[c] & grid[SPIKES]).bit_count()
                if n != 2:
                    raise err(field, f"Two {COLOURS[c]} crystals carry spikes, not {n} (R-X5).")

    def _pairs(self, raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> tuple[Pair, Pair]:
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise err(field, 'colors must be two pairs of colours, seat 0\'s first: [["red","green"],["blue","yellow"]].')
        seen: set[int] = set()
        pairs = []
        for p, pair in enumerate(raw):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise err(f"{field}.{p}", f"{seat_words(p)}: the colours must be a pair of colour names (R-X1).")
            cs = [self._colour(x, f"{field}.{p}.{i}", err) for i, x in enumerate(pair)]
            for i, c in enumerate(cs):
                if c in seen:
                    raise err(
                        f"{field}.{p}.{i}", f"{COLOURS[c].capitalize()} is given twice: each colour belongs to one player (R-X1)."
                    )
                seen.add(c)
            pairs.append(tuple(sorted(cs)))
        return pairs[0], pairs[1]

    def new(self, options: Mapping[str, Any]) -> CrystalState:
        options = self.check_options(options)
        anomalies = self._anomalies(options.get("anomalies", []), "options.anomalies", BadOptions)
        raw_seed = options.get("seed")
        if options.get("grid") is not None:
            if raw_seed is not None:
                raise BadOptions("options.seed", "Give either a grid or a seed to deal one, not both.")
            seed = None
            grid = self._grid(options["grid"], anomalies, "options.grid", BadOptions)
            spikes = 8 if "spikes" in anomalies else 0
            self._check_counts(grid, anomalies, None, spikes, "options.grid", BadOptions)
        else:
            if raw_seed is None:
                seed = secrets.token_hex(16)  # R-X1: unpredictable when the client gives none
            elif is_seed(raw_seed):
                seed = raw_seed
            elif type(raw_seed) is int and 0 <= raw_seed < 10**MAX_SEED:
                seed = str(raw_seed)
            else:
                raise BadOptions(
                    "options.seed",
                    f"seed must be a string of 1 to {MAX_SEED} characters or a whole number of at most {MAX_SEED} digits.",
                )
            grid = cg.deal(seed, anomalies)
        colors_raw, first = options.get("colors"), options.get("first")
        if colors_raw is None:
            if first is not None:
                raise BadOptions("options.first", "first (who shifts first) needs colors too: the draft decides both in turn.")
            return CrystalState(anomalies, seed, grid, "pick_order", ((), ()), None, 0, 0, (0, 0), (0, 0), 0)
        colors = self._pairs(colors_raw, "options.colors", BadOptions)
        if first is None:  # colours settled, player 1 still says who shifts first (R-X1)
            return CrystalState(anomalies, seed, grid, "move_order", colors, None, 1, 0, (0, 0), (0, 0), 0)
        if not is_player(first):
            raise BadOptions("options.first", "first must be 0 or 1: the player who shifts first.")
        return CrystalState(anomalies, seed, grid, "shift", colors, first, first, 0, (0, 0), (0, 0), 0)

    # -- the JSON form -----------------------------------------------------------------

    def dump(self, state: CrystalState) -> Json:
        return {
            **self.state_head(state, VERSION, {"anomalies": list(state.anomalies)}),
            "scores": list(state.scores),
            "board": cg.render(state.grid),
            "phase": state.phase,
            "colors": [_names(state.colors[0]), _names(state.colors[1])],
            "first": state.first,
            "threshold": threshold(state.anomalies),
            "barred": _files(state.barred),
            "shifts_due": self.shifts_due(state),
            "turns": list(state.turns),
            "seed": state.seed,
        }

    def shifts_due(self, state: CrystalState) -> int:
        """Shifts the player to move must make now (0 outside the shift phase)."""
        if state.to_move is None or state.phase != "shift":
            return 0
        return shifts_due(state.anomalies, state.turns[state.to_move] + 1)

    @staticmethod
    def _count(data: Mapping[str, Any], key: str) -> int:
        v = data[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise BadState(f"state.{key}", f"{key} must be a whole number, 0 or more.")
        return v

    def load(self, data: Mapping[str, Any]) -> CrystalState:
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = data["options"]
        if not isinstance(opts, Mapping):
            raise BadState("state.options", "state.options must be an object.")
        for key in opts:
            if key != "anomalies":
                raise BadState(f"state.options.{key}", f"A Crystal Connector state's options hold only anomalies, not '{key}'.")
        if "anomalies" not in opts:
            raise BadState("state.options.anomalies", "state.options lacks 'anomalies'.")
        anomalies = self._anomalies(opts["anomalies"], "state.options.anomalies", BadState)
        if list(anomalies) != opts["anomalies"]:  # as dumped: canonical names, sorted
            raise BadState(
                "state.options.anomalies", f"A state lists its anomalies by their names in order: {', '.join(anomalies)}."
            )
        seed = data["seed"]
        if seed is not None and not is_seed(seed):
            raise BadState("state.seed", f"seed must be null or a string of 1 to {MAX_SEED} characters.")
        ply = self._count(data, "ply")

        # turns and totals
        turns_raw, scores_raw = data["turns"], data["scores"]
        for key, raw in (("turns", turns_raw), ("scores", scores_raw)):
            if not isinstance(raw, list) or len(raw) != 2:
                raise BadState(f"state.{key}", f"{key} must be a list of two whole numbers.")
            for i, v in enumerate(raw):
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise BadState(f"state.{key}.{i}", f"{key} holds whole numbers, 0 or more, not {v!r}.")
        assert isinstance(turns_raw, list) and isinstance(scores_raw, list)
        turns = (turns_raw[0], turns_raw[1])
        scores = (scores_raw[0], scores_raw[1])

        # the draft's progress
        phase = data["phase"]
        if phase not in PHASES:
            raise BadState("state.phase", f"phase must be one of {', '.join(PHASES)}.")
        colors = self._load_colors(data["colors"], phase)
        first = data["first"]
        if phase == "shift":
            if not is_player(first):
                raise BadState("state.first", "In the shift phase first must be 0 or 1: the player who shifts first.")
        elif first is not None:
            said = f"first (who shifts first) is null until {seat_words(1)} has said it in the draft (R-X1)."
            raise BadState("state.first", said)

        # The totals say whether the game has ended (R-X4), so that is checked first.
        at_round_end = phase == "shift" and turns[0] == turns[1] and turns[0] > 0
        decided = at_round_end and max(scores) >= threshold(anomalies) and scores[0] != scores[1]
        if data["end"] == NATURAL_END and not decided:
            raise BadState(
                "state.end", "The game ends by the threshold only at a round's end with a total past it and no tie (R-X4)."
            )
        end, to_move, winner = self.read_end(data)
        if end is not None and end not in UNDECIDED_ENDS and winner is None:
            raise BadState("state.winner", "A finished Crystal Connector game has a winner, 0 or 1 (R-X4: ties play on).")

        if phase != "shift" and (turns != (0, 0) or scores != (0, 0)):
            field = "state.turns" if turns != (0, 0) else "state.scores"
            raise BadState(field, "Nobody has shifted or scored before the draft is over (R-X1).")
        if phase == "shift":
            assert isinstance(first, int)
            second = 1 - first
            if turns[first] not in (turns[second], turns[second] + 1):
                raise BadState("state.turns", "The first mover has made as many turns as the second, or one more (R-X4).")
            if turns == (0, 0) and scores != (0, 0):
                raise BadState("state.scores", "Totals are 0 before the first turn (R-X3).")
            draft = ply - turns[0] - turns[1]
            if draft not in DRAFT_PLIES:
                raise BadState(
                    "state.ply",
                    f"ply is {ply}, but after {turns[0] + turns[1]} turns it is that many plus the draft's moves: "
                    f"4 (the whole draft), 1 (colours set up, {seat_words(1)} said who shifts first) or 0 (all set up) (R-X1).",
                )
            most = (turns[0] + turns[1]) * MAX_TURN_POINTS
            for i, total in enumerate(scores):
                if total > most:
                    raise BadState(
                        f"state.scores.{i}",
                        f"A total of {total} after {turns[0] + turns[1]} turns is more than any game scores: "
                        f"a turn adds at most {MAX_TURN_POINTS} to each total (R-X3, R-X5).",
                    )
        if to_move is not None:
            expect = {"pick_order": 0, "move_order": 1}.get(phase)
            if phase == "pick_two":
                expect = 0 if not colors[0] else 1  # the second picker, who has no colour yet
            elif phase == "shift":
                assert isinstance(first, int)
                expect = first if turns[first] == turns[1 - first] else 1 - first
            if expect is not None and to_move != expect:
                raise BadState(
                    "state.to_move", f"In this position {seat_words(expect)} is to move, not seat {to_move} (R-X1, R-X4)."
                )
        if phase != "shift" and ply not in DRAFT_PHASE_PLIES[phase]:
            want = " or ".join(str(p) for p in DRAFT_PHASE_PLIES[phase])
            raise BadState(
                "state.ply", f"The {phase} phase is reached at ply {want}, not {ply}: each draft word is a move (R-X1)."
            )

        # the grid
        grid = self._grid(data["board"], anomalies, "state.board", BadState)
        vanished = min(turns) >= SPIKE_TURNS
        spikes = 8 if "spikes" in anomalies and not vanished else 0
        converted = phase == "shift" and "color-convertor" in anomalies
        self._check_counts(grid, anomalies, colors if converted else None, spikes, "state.board", BadState)

        # barred files
        barred_raw = data["barred"]
        if not isinstance(barred_raw, list):
            raise BadState("state.barred", "barred must be a list of files (A-F, 1-6).")
        barred = 0
        for i, name in enumerate(barred_raw):
            f = FILE_INDEX.get(name) if isinstance(name, str) else None  # as dumped: upper case
            if f is None:
                raise BadState(f"state.barred.{i}", f"{name!r} is not a file: columns are A-F and rows 1-6 (R-H5).")
            if barred >> f & 1:
                raise BadState(f"state.barred.{i}", f"{FILE_NAMES[f]} is listed twice.")
            if barred >> f:
                raise BadState(f"state.barred.{i}", f"A state lists barred files in the order A-F, 1-6; {name} comes too late.")
            barred |= 1 << f
        if barred:
            if to_move is None or phase != "shift" or turns[1 - to_move] == 0:
                raise BadState("state.barred", "Files are barred only to a player whose opponent has shifted (R-X2).")
            last = shifts_due(anomalies, turns[1 - to_move])
            if barred.bit_count() > last:
                raise BadState("state.barred", f"The opponent's last turn had {last} shifts, so at most {last} files are barred.")

        state = CrystalState(anomalies, seed, grid, phase, colors, first, to_move, ply, turns, scores, barred, winner, end)

        # the end of the game follows from the totals
        if end == NATURAL_END:
            if winner != (0 if scores[0] > scores[1] else 1):
                raise BadState("state.winner", "The higher total wins (R-X4).")
        elif end is None and decided:
            raise BadState(
                "state.status", "A total has reached the threshold at a round's end without a tie, so the game is over (R-X4)."
            )

        for key, value in (("threshold", threshold(anomalies)), ("shifts_due", self.shifts_due(state))):
            if type(data[key]) is not int or data[key] != value:
                raise BadState(f"state.{key}", f"state.{key} is {data[key]!r} but follows from the rules: expected {value!r}.")
        return state

    def _load_colors(self, raw: Any, phase: str) -> tuple[Pair, Pair]:
        if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(p, list) for p in raw):
            raise BadState("state.colors", "colors must be two lists of colour names, seat 0's first.")
        seen: set[int] = set()
        pairs: list[Pair] = []
        for p, lst in enumerate(raw):
            cs: list[int] = []
            for i, x in enumerate(lst):
                c = self._colour(x, f"state.colors.{p}.{i}", BadState)
                if x != COLOURS[c] or (cs and c < cs[-1]):  # as dumped: lower case, in the order red, blue, green, yellow
                    raise BadState(
                        f"state.colors.{p}.{i}",
                        "A state names each pair's colours in lower case, in the order red, blue, green, yellow.",
                    )
                if c in seen:
                    raise BadState(
                        f"state.colors.{p}.{i}",
                        f"{COLOURS[c].capitalize()} is given twice: each colour belongs to one player (R-X1).",
                    )
                seen.add(c)
                cs.append(c)
            pairs.append(tuple(sorted(cs)))
        sizes = sorted(len(p) for p in pairs)
        want = {"pick_order": [0, 0], "pick_one": [0, 0], "pick_two": [0, 1]}.get(phase, [2, 2])
        if sizes != want:
            raise BadState("state.colors", f"In the {phase} phase the players hold {want} colours (R-X1), not {sizes}.")
        return pairs[0], pairs[1]

    # -- moves -----------------------------------------------------------------------

    def parse(self, state: CrystalState, text: MoveInput) -> Move:
        if isinstance(text, str):
            raw = text.strip()
            items = [t.strip() for t in _ITEMS.split(raw)]
        else:
            if not all(isinstance(t, str) for t in text):
                raise InvalidMove("Every item of a move must be a string.", rule=self._parse_rule(state))
            items = [t.strip() for t in text]
            raw = ", ".join(items)
        items = [t for t in items if t]
        if not items:
            raise InvalidMove("The move is empty.", code="empty_move", rule=self._parse_rule(state))
        if not _DIGIT.search(raw):  # every shift has an amount; draft words have no digits
            words = [w for w in _SPLIT.split(raw.lower()) if w and w != "and"]
            if not words:
                raise InvalidMove(
                    f"{raw!r} is not a move: say first/second, name colours, or give shifts like 'C up 2'.",
                    rule=self._parse_rule(state),
                )
            if words[0] in ("first", "second"):
                if len(words) != 1:
                    raise InvalidMove("Say just 'first' or 'second'.", rule="R-X1")
                return Order(words[0] == "first")
            if all(w in COLOUR_INDEX for w in words):
                return Pick(tuple(COLOUR_INDEX[w] for w in words))
            if state.phase in ("pick_one", "pick_two"):
                raise InvalidMove(f"{raw!r} is not a choice of colours: name red, blue, green or yellow.", rule="R-X1")
            if state.phase != "shift":
                raise InvalidMove(f"{raw!r} is not a choice of order: say 'first' or 'second'.", rule="R-X1")
        out: list[Convert | Shift] = []
        for i, item in enumerate(items):
            if item[:7].lower() == "convert":
                m = _CONVERT.match(item)
                cell = cg.parse_cell(m.group(1).replace(" ", "")) if m else None
                if cell is None:
                    raise InvalidMove(f"{item!r}: write 'convert' and a cell, A1 to F6.", step=i, rule="R-X5")
                out.append(Convert(cell))
                continue
            out.append(Shift(*cg.parse_shift(item, i)))
        return Turn(tuple(out))

    @staticmethod
    def _parse_rule(state: CrystalState) -> str:
        """The ruling of what a move is at this point: a draft word (R-X1) or shifts (R-X2)."""
        return "R-X2" if state.phase == "shift" else "R-X1"

    def notation(self, state: CrystalState, move: Move) -> str:
        if isinstance(move, Order):
            return "first" if move.first else "second"
        if isinstance(move, Pick):
            return " ".join(COLOURS[c] for c in sorted(move.colours))
        head = ""
        shifts = []
        for item in move.items:
            if isinstance(item, Convert):
                head = f"convert {cg.cell_name(item.cell)}; "
            else:
                shifts.append(cg.shift_text(item.file, item.sign, item.amount))
        return head + ", ".join(shifts)

    def apply(self, state: CrystalState, move: Move) -> tuple[CrystalState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        if isinstance(move, Turn):
            if state.phase != "shift":
                raise IllegalMove("wrong_phase", f"The draft is not over: {self._phase_hint(state)}.", rule="R-X1")
            return self._turn(state, p, move)
        if isinstance(move, Order):
            if state.phase == "pick_order":  # R-X1: player 0 says who picks a colour first
                picker = 0 if move.first else 1
                new = replace(state, phase="pick_one", to_move=picker, ply=state.ply + 1)
                return new, [{"type": "pick_order", "player": p, "picker": picker}]
            if state.phase == "move_order":  # R-X1: player 1 says who shifts first
                first = 1 if move.first else 0
                new = replace(state, phase="shift", first=first, to_move=first, ply=state.ply + 1)
                return new, [{"type": "move_order", "player": p, "first": first}]
            raise IllegalMove("wrong_phase", f"'first'/'second' is not a move now: {self._phase_hint(state)}.", rule="R-X1")
        # a pick
        if state.phase not in ("pick_one", "pick_two"):
            raise IllegalMove("wrong_phase", f"No colours are being picked now: {self._phase_hint(state)}.", rule="R-X1")
        taken = set(state.colors[0]) | set(state.colors[1])
        n = 1 if state.phase == "pick_one" else 2
        if len(move.colours) != n:
            raise IllegalMove(
                "wrong_colour_count",
                f"The {'first picker names one colour' if n == 1 else 'second picker names two colours'}, "
                f"not {len(move.colours)}.",
                rule="R-X1",
            )
        for i, c in enumerate(move.colours):
            if c in taken:
                raise IllegalMove(
                    "not_in_draft", f"{COLOURS[c].capitalize()} is already taken: pick from those left.", step=i, rule="R-X1"
                )
            if c in move.colours[:i]:
                raise IllegalMove(
                    "not_in_draft", f"{COLOURS[c].capitalize()} is named twice: name two different colours.", step=i, rule="R-X1"
                )
        colors = list(state.colors)
        if n == 1:
            colors[p] = (move.colours[0],)
            new = replace(state, phase="pick_two", colors=(colors[0], colors[1]), to_move=1 - p, ply=state.ply + 1)
            return new, [{"type": "pick", "player": p, "colors": _names(colors[p])}]
        last = next(c for c in range(4) if c not in taken and c not in move.colours)  # the first picker gets the last one
        colors[p] = tuple(sorted(move.colours))
        colors[1 - p] = tuple(sorted((*colors[1 - p], last)))
        new = replace(state, phase="move_order", colors=(colors[0], colors[1]), to_move=1, ply=state.ply + 1)
        return new, [
            {"type": "pick", "player": p, "colors": _names(colors[p])},
            {"type": "pick", "player": 1 - p, "colors": [COLOURS[last]], "last": True},
        ]

    @staticmethod
    def _phase_hint(state: CrystalState) -> str:
        return {
            "pick_order": f"{seat_words(0)} says 'first' or 'second' (who picks a colour first)",
            "pick_one": f"{seat_words(state.to_move or 0)} names one colour",
            "pick_two": f"{seat_words(state.to_move or 0)} names two colours",
            "move_order": f"{seat_words(1)} says 'first' or 'second' (who shifts first)",
            "shift": "it is the shift phase",
        }[state.phase]

    def _turn(self, state: CrystalState, p: int, move: Turn) -> tuple[CrystalState, list[Json]]:
        items = move.items
        self._count_shifts(state, p, items, partial=False)
        grid, shifted, spike_points, events = self._items(state, p, items)
        events.append(
            {"type": "shifts", "player": p, "shifts": self.notation(state, Turn(tuple(x for x in items if isinstance(x, Shift))))}
        )
        return self._end_turn(state, p, grid, shifted, spike_points, events)

    def _count_shifts(self, state: CrystalState, p: int, items: Sequence[Convert | Shift], partial: bool) -> int:
        """The turn's shifts must be exactly as many as due (R-X2, R-X5 shift-plus);
        a turn still being built (``partial``) may have fewer.  Returns the number due."""
        due = shifts_due(state.anomalies, state.turns[p] + 1)
        shift_steps = [i for i, x in enumerate(items) if isinstance(x, Shift)]
        n = len(shift_steps)
        if n > due or (n < due and not partial):
            plus = "shift-plus" in state.anomalies
            raise IllegalMove(
                "wrong_shift_count",
                f"This turn needs exactly {due} shifts{' (shift-plus)' if plus else ''}, not {n}.",
                step=shift_steps[due] if n > due else None,
                rule="R-X5" if plus else "R-X2",
            )
        return due

    def _items(self, state: CrystalState, p: int, items: Sequence[Convert | Shift]) -> tuple[Grid, int, int, list[Json]]:
        """Check and make a turn's conversion and shifts in order, each on the grid
        as the ones before left it: ``(grid, files shifted, spike points, events)``."""
        grid = state.grid
        events: list[Json] = []
        spike_points = 0
        shifted = 0
        barred = state.barred
        for i, item in enumerate(items):
            if isinstance(item, Convert):
                grid = self._convert(state, grid, p, item.cell, i, events)
                continue
            f = item.file
            fm = FILE[f]
            if barred >> f & 1:
                raise IllegalMove(
                    "not_your_file",
                    f"'{cg.shift_text(f, item.sign, item.amount)}' moves {'column' if f < 6 else 'row'} {FILE_NAMES[f]}, "
                    "which your opponent shifted on their last turn.",
                    step=i,
                    rule="R-X2",
                )
            rocks = grid[ROCK]
            if rocks & fm and rocks & WRAP[f][item.sign][item.amount]:
                raise IllegalMove(
                    "rock_over_edge",
                    f"'{cg.shift_text(f, item.sign, item.amount)}' would carry a rock over the edge (rocks).",
                    step=i,
                    rule="R-X5",
                )
            spiked = grid[SPIKES] & fm
            if spiked:
                spike_points += spiked.bit_count() * item.amount  # R-X5: one point per cell travelled
            grid = cg.shift(grid, f, item.sign, item.amount)
            shifted |= 1 << f
        return grid, shifted, spike_points, events

    def _convert(self, state: CrystalState, grid: Grid, p: int, cell: int, step: int, events: list[Json]) -> Grid:
        name = cg.cell_name(cell)
        if "color-convertor" not in state.anomalies:
            raise IllegalMove(
                "no_convertor",
                f"'convert {name}' needs the color-convertor anomaly, which this game does not have.",
                step=step,
                rule="R-X5",
            )
        if step != 0:
            raise IllegalMove(
                "convert_not_first",
                f"'convert {name}' comes too late: a turn has at most one conversion, before the first shift, "
                "as the move's first item.",
                step=step,
                rule="R-X5",
            )
        bit = 1 << cell
        a, b = state.colors[p]
        if grid[a] & bit:
            src, dst = a, b
        elif grid[b] & bit:
            src, dst = b, a
        else:
            held = next((k for k in range(8) if grid[k] & bit), None)
            what = "an empty cell" if held is None else f"a {cg.SYMBOLS[held]} piece"
            if held is not None and held < 4:
                what = f"a {COLOURS[held]} crystal"
            raise IllegalMove(
                "not_your_colour",
                f"{name} holds {what}; you may convert only a crystal of your colours, {COLOURS[a]} or {COLOURS[b]}.",
                step=step,
                rule="R-X5",
            )
        masks = list(grid)
        masks[src] &= ~bit
        masks[dst] |= bit
        events.append({"type": "convert", "player": p, "cell": name, "from": COLOURS[src], "to": COLOURS[dst]})
        return tuple(masks)

    def _end_turn(
        self, state: CrystalState, p: int, grid: Grid, shifted: int, spike_points: int, events: list[Json]
    ) -> tuple[CrystalState, list[Json]]:
        """Score both players (R-X3), count the turn, let spikes vanish (R-X5), and end the round (R-X4)."""
        opp = 1 - p
        scores = list(state.scores)
        if spike_points:
            scores[opp] += spike_points
            events.append({"type": "spikes", "player": opp, "points": spike_points})
        values = cg.colour_values(grid)
        for q in (0, 1):
            a, b = state.colors[q]
            points = values[a] * values[b]
            scores[q] += points
            events.append(
                {
                    "type": "score",
                    "player": q,
                    "largest": {COLOURS[a]: values[a], COLOURS[b]: values[b]},
                    "points": points,
                    "total": scores[q],
                }
            )
        turns = (state.turns[0] + 1, state.turns[1]) if p == 0 else (state.turns[0], state.turns[1] + 1)
        if grid[SPIKES] and min(turns) >= SPIKE_TURNS:
            masks = list(grid)
            masks[SPIKES] = 0
            grid = tuple(masks)
            events.append({"type": "spikes_vanish"})
        new = CrystalState(
            state.anomalies,
            state.seed,
            grid,
            "shift",
            state.colors,
            state.first,
            opp,
            state.ply + 1,
            turns,
            (scores[0], scores[1]),
            shifted,
        )
        if p != state.first and max(scores) >= threshold(state.anomalies):  # R-X4: only at a round's end
            if scores[0] != scores[1]:
                winner = 0 if scores[0] > scores[1] else 1
                new = self._finished(new, winner, NATURAL_END)
                events.append({"type": "end", "winner": winner, "end": NATURAL_END, "scores": scores})
            else:
                events.append({"type": "tie", "scores": scores})  # R-X4: equal totals play on
        return new, events

    # -- listing, ends ------------------------------------------------------------------

    def split_move(self, move: str) -> list[str]:
        """Draft words are steps (``blue green``); a turn's steps are its items
        (``convert C4``, ``C up 2``), separated by commas or semicolons."""
        if _DIGIT.search(move):
            return [t.strip() for t in _ITEMS.split(move) if t.strip()]
        return move.split()

    def join_steps(self, steps: Sequence[str]) -> str:
        if not steps or not any(_DIGIT.search(x) for x in steps):
            return " ".join(steps)
        head = "; " if steps[0].lower().startswith("convert") else ", "
        return steps[0] + (head if len(steps) > 1 else "") + ", ".join(steps[1:])

    def next_steps(self, state: CrystalState, prefix: Sequence[str]) -> Steps:
        """The draft: the words still open.  A turn: after the conversion and
        shifts so far, the single shifts legal on the grid as they left it
        (barred files, R-X2; rocks, R-X5), until the turn has its shifts."""
        p = state.to_move
        if p is None:
            raise self.game_over()
        if state.phase != "shift":
            return self._draft_steps(state, prefix)
        items: tuple[Convert | Shift, ...] = ()
        if prefix:
            move = self.parse(state, list(prefix))
            if not isinstance(move, Turn):
                raise IllegalMove("wrong_phase", "It is the shift phase: give shifts like 'C up 2'.", step=0, rule="R-X2")
            items = move.items
        due = self._count_shifts(state, p, items, partial=True)
        grid = self._items(state, p, items)[0]
        written = [f"convert {cg.cell_name(x.cell)}" if isinstance(x, Convert) else cg.shift_text(*x) for x in items]
        done = sum(1 for x in items if isinstance(x, Shift))
        steps: list[str] = []
        if done < due:
            if not items and "color-convertor" in state.anomalies:
                a, b = state.colors[p]
                steps += [f"convert {cg.cell_name(x)}" for x in cg.CELLS if (state.grid[a] | state.grid[b]) >> x & 1]
            steps += _open(grid[ROCK], state.barred)[1]
        complete = done == due
        return Steps(written, steps, complete, self.join_steps(written) if complete else None)

    def preview(self, state: CrystalState, prefix: Sequence[str]) -> CrystalState | None:
        """The grid as the conversion and shifts so far leave it (R-X2: each on
        the grid as the ones before left it), the turn not yet over."""
        p = state.to_move
        if p is None or state.phase != "shift" or not prefix:
            return None
        move = self.parse(state, list(prefix))
        if not isinstance(move, Turn):
            return None
        return replace(state, grid=self._items(state, p, move.items)[0])

    def _draft_steps(self, state: CrystalState, prefix: Sequence[str]) -> Steps:
        """R-X1's choices, one word a step: an order word, or colours still open
        (two different ones when the second picker picks)."""
        need = 2 if state.phase == "pick_two" else 1
        words = [w.strip().lower() for w in prefix]
        if len(words) >= need:
            text = " ".join(words[:need])
            verdict = self.play(state, text)
            if verdict.error is not None:
                raise verdict.error
            if len(words) > need:
                raise IllegalMove(
                    "bad_step", f"The choice is complete with {text!r}; nothing may follow.", step=need, rule="R-X1"
                )
            assert verdict.move is not None
            return Steps(words, [], True, verdict.move)
        open_words = self.legal_moves(state).moves if need == 1 else self._colours_left(state)
        if words:  # the second picker's first colour
            if words[0] not in open_words:
                if words[0] in COLOUR_INDEX:
                    message = f"{words[0].capitalize()} is already taken: pick from those left."
                    raise IllegalMove("not_in_draft", message, step=0, rule="R-X1")
                raise InvalidMove(f"{words[0]!r} is not a colour: name red, blue, green or yellow.", step=0, rule="R-X1")
            open_words = [c for c in open_words if c != words[0]]
        return Steps(words, open_words, False)

    @staticmethod
    def _colours_left(state: CrystalState) -> list[str]:
        taken = set(state.colors[0]) | set(state.colors[1])
        return [COLOURS[c] for c in range(4) if c not in taken]

    @staticmethod
    def _open_shifts(grid: Grid, barred: int) -> list[Shift]:
        """Single shifts on ``grid`` that no barred file (R-X2) or rock (R-X5) forbids."""
        return list(_open(grid[ROCK], barred)[0])

    def setup_options(self, state: CrystalState) -> Json:
        """In the shift phase the grid and the draft's outcome (R-X1); before it, the same deal."""
        data = self.dump(state)
        if state.phase == "shift":
            return {
                "anomalies": data["options"]["anomalies"],
                "grid": data["board"],
                "colors": data["colors"],
                "first": state.first,
            }
        if state.seed is not None:
            return {"anomalies": data["options"]["anomalies"], "seed": state.seed}
        return {"anomalies": data["options"]["anomalies"], "grid": data["board"]}

    def legal_shifts(self, state: CrystalState) -> list[Shift]:
        """Single shifts the player to move may make as the first shift of the turn."""
        return self._open_shifts(state.grid, state.barred)

    def shifted(self, state: CrystalState, shift: Shift) -> CrystalState:
        """``state`` with one shift made on its grid and nothing else changed: a
        turn in progress, for choosing the next shift (clients, random players)."""
        return replace(state, grid=cg.shift(state.grid, shift.file, shift.sign, shift.amount))

    def legal_moves(self, state: CrystalState, limit: int | None = None) -> LegalMoves:
        info: Json = {"phase": state.phase, "shifts_due": self.shifts_due(state)}
        moves: list[str]
        if state.to_move is None:
            moves = []
        elif state.phase in ("pick_order", "move_order"):
            moves = ["first", "second"]
        elif state.phase == "pick_one":
            moves = list(COLOURS)
        elif state.phase == "pick_two":
            left = [c for c in range(4) if c not in state.colors[0] + state.colors[1]]
            moves = [f"{COLOURS[a]} {COLOURS[b]}" for i, a in enumerate(left) for b in left[i + 1 :]]
        else:
            moves = list(_open(state.grid[ROCK], state.barred)[1])
            if "color-convertor" in state.anomalies:
                a, b = state.colors[state.to_move]
                cells = state.grid[a] | state.grid[b]
                info["converts"] = [f"convert {cg.cell_name(x)}" for x in cg.CELLS if cells >> x & 1]
        truncated = limit is not None and len(moves) > limit
        if limit is not None:
            moves = moves[:limit]
        return LegalMoves(moves, truncated, info)

    def complete_moves(self, state: CrystalState, limit: int | None = None) -> LegalMoves:
        """The draft's choices (R-X1: ``blue green`` is one move of two words),
        or every whole turn: ``shifts_due`` shifts, each legal on the grid as
        the ones before left it (barred files, R-X2; rocks, R-X5), first
        without a conversion, then (color-convertor) after each conversion
        in reading order.  Shifts are listed in :meth:`_open_shifts`' order,
        and a turn may shift a file twice; ``C up 2`` and ``C down 4`` are two
        moves (a spike travels as far as the shift says, R-X5)."""
        if state.phase != "shift" or state.to_move is None:
            return replace(self.legal_moves(state, limit), complete=True)
        p = state.to_move
        info: Json = {"phase": state.phase, "shifts_due": self.shifts_due(state)}
        due = self.shifts_due(state)
        heads = [""]
        if "color-convertor" in state.anomalies:
            a, b = state.colors[p]
            heads += [f"convert {cg.cell_name(x)}; " for x in cg.CELLS if (state.grid[a] | state.grid[b]) >> x & 1]
        cap = None if limit is None else limit + 1
        moves = list(itertools.islice(self._headed(heads, state, due), cap))
        truncated = limit is not None and len(moves) > limit
        return LegalMoves(moves[:limit] if truncated else moves, truncated, info, complete=True)

    def _headed(self, heads: list[str], state: CrystalState, due: int) -> Iterator[str]:
        for head in heads:  # a conversion changes no rock, so every head takes the same shifts
            for tail in self._turns(state.grid[ROCK], state.barred, due):
                yield head + tail

    def _turns(self, rocks: int, barred: int, due: int) -> Iterator[str]:
        """The ``due`` shifts of a turn as text, each open on the rocks as the ones before moved them."""
        if not rocks:  # nothing moves what is open: every sequence of open shifts
            texts = _open(0, barred)[1]
            for seq in itertools.product(texts, repeat=due):
                yield ", ".join(seq)
            return
        stack: list[tuple[int, str]] = [(rocks, "")]
        while stack:  # depth first, in the open shifts' order
            at, done = stack.pop()
            depth = done.count(",") + 1 if done else 0
            shifts, texts = _open(at, barred)
            if depth == due - 1:  # the last shift: nothing after it to move rocks for
                for text in texts:
                    yield f"{done}, {text}" if done else text
                continue
            nxt = []
            for (f, sign, amount), text in zip(shifts, texts, strict=True):
                moved = cg.shift((at,), f, sign, amount)[0]  # the rocks alone, shifted
                nxt.append((moved, f"{done}, {text}" if done else text))
            stack.extend(reversed(nxt))

    def _finished(self, state: CrystalState, winner: int | None, end: str) -> CrystalState:
        return replace(state, to_move=None, barred=0, winner=winner, end=end)

    def decided_by(self, state: CrystalState) -> Json:
        return {"scores": list(state.scores)} if state.end == NATURAL_END else {}

    def timeout(self, state: CrystalState) -> tuple[CrystalState, list[Json]]:
        """R-X6: nobody moved for the flagged player.  In the shift phase the turn
        passes with no shifts and is scored; in the draft the default choice
        (the first legal move) is made for them."""
        p = state.to_move
        if p is None:
            raise IllegalMove("game_over", "The game is over: nobody can flag.", rule="R-X6")
        flag: Json = {"type": "flag", "player": p}
        if state.phase != "shift":
            default = self.legal_moves(state).moves[0]
            new, events = self.apply(state, self.parse(state, default))
            flag["default"] = default
            return new, [flag, *events]
        return self._end_turn(state, p, state.grid, 0, 0, [flag, {"type": "pass", "player": p}])
