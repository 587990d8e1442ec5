"""Little Golem's Catchup records, read and written (seed 001).

Little Golem writes a hexhex board of side ``n`` in *doubled columns*: rows
``1`` .. ``2n-1`` from the top (R-H1's ``A``, ``B`` ...), columns ``a`` ..
(``4n-3`` letters: ``a``-``q`` on side 5), each row's cells on every other
column, its first cell ``|n-1-r|`` columns in.  So on side 5 ``i5`` is the
centre ``E5`` and ``g3`` is ``C3``.  In axial terms (engine/hexboard.py) the
column is ``2q + r - (n-1)``.

A record is a table of turns, one numbered line per pair of turns, the
fields separated by tabs (or by two or more spaces)::

    :   abcdefghijklmnopq       B       J
    :   . . . B j   1.  ... i5  g3 f6
    :   j . j j b . 2.  f4 l7   k5 d4
    ...
    :   B           8.  d8 k1   resign

Everything before a line's number (``1.``) is Little Golem's diagram and is
not read; after it come the first player's turn and the second's: cells
(``g3 f6``), ``resign``, or nothing.  People paste a space after the number as
often as a tab (``1. ... i5<TAB>g3 f6``), which reads the same; but where the
number's space is the only thing between it and two or more cells with no
field after them (``2. f4 l7 k5 d4``), nothing tells one player's turn from the
other's, and the line is refused as ambiguous.  ``...`` stands for no cells (Little
Golem prints it before the opening stone); a leading ``:`` is a quote mark.
The first player (player 0, RULES "Players are indexed 0 and 1") is the
first column.  Little Golem plays Catchup's standard rules (R-C3's
``littlegolem`` alias).

A record starts from the empty board: it has no place for a set-up position
(``position``, ``blocked``, ``bonus``, ``to_move``) nor for other rules than
the standard ones, so :func:`write` refuses such a game (a 422 ``bad_options``
naming the option) rather than write a record that replays to another game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.errors import BadOptions, FieldError
from engine.game import RESERVED
from engine.games.catchup.rules import ALIASES
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, hexhex
from engine.room import RecordFormat

FORMAT = "littlegolem"
# A turn's number, at the end of a field (Little Golem's diagram may stand before it, after one space) and, as
# people paste records, maybe followed by one space and the first player's turn rather than a tab.
_NUMBER = re.compile(r"(?:^|\s)(\d+)\.(?:\s+(\S.*))?$")
_CELL = re.compile(r"^([a-z])(\d{1,2})$")
_FIELDS = re.compile(r"[ \t]*\t[ \t]*| {2,}")  # a tab, with any spaces around it, or two spaces or more
_HEADER = re.compile(r"^[a-z]{3,}$")


class BadRecord(FieldError):
    """A record that cannot be read: ``line`` (1-based) and ``token`` say where."""

    def __init__(self, line: int, token: str, message: str) -> None:
        super().__init__("text", f"Line {line}: {message}", "bad_record")
        self.line = line
        self.token = token

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "line": self.line, "token": self.token}


def lg_cell(board: HexBoard, name: str) -> str:
    """R-H3 notation -> Little Golem's (``E5`` -> ``i5`` on side 5)."""
    q, r = board.axial(board.parse_cell(name))
    return f"{chr(97 + 2 * q + r - (board.side - 1))}{r + 1}"


def cell_of(board: HexBoard, text: str) -> str | None:
    """Little Golem's cell -> R-H3 notation, or None when it names no cell of ``board``."""
    m = _CELL.match(text)
    if not m:
        return None
    col, r = ord(m.group(1)) - 97, int(m.group(2)) - 1
    twice_q = col - r + (board.side - 1)
    if r < 0 or twice_q % 2:
        return None
    b = board.bit(twice_q // 2, r)
    return None if b is None else board.name(b)


@dataclass(frozen=True)
class Turn:
    line: int
    player: int
    tokens: tuple[str, ...]


def _turns(text: str) -> tuple[int | None, list[Turn]]:
    """The header's column count (None without one) and every turn, in order."""
    columns: int | None = None
    turns: list[Turn] = []
    expected = 1
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith(":"):
            line = line[1:].strip()
        if not line:
            continue
        fields = [f.strip() for f in _FIELDS.split(line)]
        found = next(((i, m) for i, f in enumerate(fields) if (m := _NUMBER.search(f))), None)
        if found is None:
            if columns is None and fields and _HEADER.match(fields[0]):
                columns = len(fields[0])
            continue
        at, m = found
        number = int(m.group(1))
        if number != expected:
            raise BadRecord(n, f"{number}.", f"turn {number} follows turn {expected - 1}: expected turn {expected}.")
        expected += 1
        rest = fields[at + 1 :]
        if m.group(2) is not None:  # "1. ... i5": the first player's turn after a space
            glued = [t for t in m.group(2).replace(",", " ").split() if t != "..."]
            if not rest and len(glued) > 1:
                raise BadRecord(
                    n,
                    glued[1],
                    f"the turns after {number}. are ambiguous: {' '.join(glued)!r} could be one player's turn or both"
                    " players'; put a tab (or two spaces) between the two players' turns.",
                )
            rest = [m.group(2), *rest]
        if len(rest) > 2:
            raise BadRecord(n, rest[2], f"{rest[2]!r} is a third turn on one line: a line holds the two players' turns.")
        for player, field in enumerate(rest):
            tokens = tuple(t for t in field.replace(",", " ").split() if t != "...")
            if tokens:
                turns.append(Turn(n, player, tokens))
    if not turns:
        raise BadRecord(1, "", "no numbered turns found: a Little Golem record has lines like '1.<TAB>i5<TAB>g3 f6'.")
    return columns, turns


def _side(columns: int | None, turns: Sequence[Turn]) -> int:
    if columns is not None:
        side, rem = divmod(columns + 3, 4)
        if rem or not MIN_SIDE <= side <= MAX_SIDE:
            raise BadRecord(1, "", f"a header of {columns} column letters fits no hexhex board (4n-3 letters for side n).")
        return side
    most_row, most_col = 1, 1
    for t in turns:
        for tok in t.tokens:
            m = _CELL.match(tok.lower())
            if m:
                most_row = max(most_row, int(m.group(2)))
                most_col = max(most_col, ord(m.group(1)) - 96)
    need = max(5, (most_row + 2) // 2, (most_col + 6) // 4)  # side 5 unless a cell lies beyond it
    return min(need, MAX_SIDE)


def read(text: str) -> tuple[dict[str, object], list[str]]:
    """A Little Golem record -> ``(options, moves)`` in the seeds' notation, as
    ``replay`` takes them; :class:`BadRecord` names the line and token it cannot read.
    A resignation is the record entry ``resign 0`` / ``resign 1``."""
    if not isinstance(text, str):
        raise BadRecord(1, "", "the record must be text.")
    columns, turns = _turns(text)
    side = _side(columns, turns)
    board = hexhex(side)
    moves: list[str] = []
    for t in turns:
        words = [w.lower() for w in t.tokens]
        if "resign" in words:
            if words != ["resign"]:
                raise BadRecord(t.line, t.tokens[0], "a resignation stands alone in its turn.")
            moves.append(f"resign {t.player}")
            continue
        cells = []
        for tok, word in zip(t.tokens, words, strict=True):
            cell = cell_of(board, word)
            if cell is None:
                raise BadRecord(t.line, tok, f"{tok!r} is not a cell of a side-{side} board in Little Golem's notation.")
            cells.append(cell)
        moves.append(" ".join(cells))
    return {"size": side, "variant": "standard"}, moves


_EMPTY_BOARD = "Little Golem's records start from the empty board"


def check_writable(options: Mapping[str, object]) -> None:
    """BadOptions naming the first of ``options`` a Little Golem record cannot
    carry: a set-up position or rules other than the standard ones (R-C3)."""
    variant = options.get("variant", "standard")
    if isinstance(variant, str) and ALIASES.get(variant.lower(), variant.lower()) != "standard":
        raise BadOptions(
            "options.variant",
            f"Little Golem plays Catchup's standard rules (R-C3): a {variant} game cannot be written as its record.",
        )
    for name, what in (("position", "a set-up position"), ("blocked", "blocked cells"), ("bonus", "an opening bonus")):
        if options.get(name):
            raise BadOptions(
                f"options.{name}", f"{_EMPTY_BOARD}, so a game begun with {what} (options.{name}) cannot be written as one."
            )
    if options.get("to_move") not in (None, 0):  # on the empty board player 0 opens
        raise BadOptions("options.to_move", f"{_EMPTY_BOARD} with player 0 to move, so options.to_move cannot be written.")


def write(options: Mapping[str, object], moves: Sequence[str], names: Sequence[str] = ("", "")) -> str:
    """Moves in the seeds' notation -> a Little Golem record (header of column
    letters and the players' initials, then one numbered line per pair of turns).
    Record entries that are not turns (``timeout``, ``abort``, ``forfeit``, ``adjudicate``) end the table
    as Little Golem has no word for them: they are written as a comment line.
    A game the record cannot carry (:func:`check_writable`) is a BadOptions."""
    check_writable(options)
    size = options.get("size", 5)
    side = size if isinstance(size, int) else 5
    board = hexhex(side)
    initials = [(n.strip()[:1] or "xo"[i]).upper() for i, n in enumerate(names)] if len(names) == 2 else ["X", "O"]
    out = [f"{''.join(chr(97 + c) for c in range(4 * side - 3))}\t\t{initials[0]}\t{initials[1]}"]
    row: list[str] = []
    note = ""
    for move in moves:
        words = move.split()
        if words and words[0] in ("resign",):
            row.append("resign")
        elif words and words[0] in RESERVED:  # timeout, forfeit, abort, adjudicate (engine.game.RESERVED)
            note = f"# {move}"
            break
        else:
            cells = " ".join(lg_cell(board, w) for w in words)
            row.append(f"... {cells}" if len(out) == 1 and not row else cells)  # as Little Golem prints the opening stone
        if len(row) == 2:
            out.append(f"{len(out)}.\t{row[0]}\t{row[1]}")
            row = []
    if row:
        out.append(f"{len(out)}.\t{row[0]}\t")
    if note:
        out.append(note)
    return "\n".join(out) + "\n"


RECORD_FORMAT = RecordFormat(FORMAT, "Little Golem's game record (doubled-column cells, turns per line)", read, write)
