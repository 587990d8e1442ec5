"""Reading a position back from the text diagram :func:`views.text` prints
(and every post carries in its code block): the inverse of the text
rendering, so an umpire can paste a position the way umpires have it
(issue 22).

Generic, like the renderer: the board comes from the game's show (its
board for the options, the diagram's rows telling the side), and the
pieces from the show's declared ``symbols`` (each board value's one
character, upper case; lower case marks the last move and reads the
same).  ``.`` is an empty cell (a cell's name too, as ``coords`` prints
it), ``#`` a cell off the board: one of the board's own, or a blocked one.
Whose turn it is: ``to_move`` when given, else the ``<name> to move`` line
under the diagram when it names one of the game's players.

A game whose show is not a hex board of stones by value (a grid of
coloured pieces, whose position also holds a draft the diagram does not
draw) has no reader: :func:`readable` says which.

The answer is the options that set the position up (``position``,
``blocked``, ``to_move`` where the game declares them, ``size`` from the
diagram), checked by the engine as ``new`` checks them.  A line that
cannot be read is a :class:`BadDiagram` naming the line and the token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.errors import FieldError
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard
from engine.hexshow import HexShow
from engine.registry import ROOMS

FORMAT = "diagram"
TITLE = "the text diagram of a post or GET render?format=text (read only; with whose turn)"

_CELL_NAME = re.compile(r"^[A-Z]\d{1,2}$")
_ROW = re.compile(r"^\s*([A-Z]|\d{1,2})((?:\s+\S{1,3})+)\s*$")


class BadDiagram(FieldError):
    """A diagram that cannot be read: ``line`` (1-based, of the text sent) and ``token`` say where."""

    def __init__(self, line: int, token: str, message: str) -> None:
        super().__init__("text", f"Line {line}: {message}" if line else message, "bad_record")
        self.line = line
        self.token = token

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "line": self.line, "token": self.token}


def readable(game: str) -> bool:
    """Whether ``game``'s diagram can be read back (its show draws a hex board of stones by value)."""
    room = ROOMS.get(game)
    return room is not None and isinstance(room.show, HexShow)


_OPEN = re.compile(r"(?i)^\s*(```[\w-]*|~~~[\w-]*|\[code\])\s*$")
_CLOSE = re.compile(r"(?i)^\s*(```|~~~|\[/code\])\s*$")


def _block(text: str) -> list[tuple[int, str]]:
    """The lines of the diagram's block, numbered as in ``text``: inside a post's code
    block (Markdown's fence, BBCode's ``[code]``), else the whole text."""
    lines = list(enumerate(text.splitlines(), start=1))
    opened = next((i for i, (_, line) in enumerate(lines) if _OPEN.match(line)), None)
    if opened is None:
        return lines
    rest = lines[opened + 1 :]
    closed = next((i for i, (_, line) in enumerate(rest) if _CLOSE.match(line)), len(rest))
    return rest[:closed]


def _rows(lines: list[tuple[int, str]]) -> list[tuple[int, str, list[str]]]:
    """The board's rows: the longest run of consecutive lines labelled A, B, C... (or 1,
    2, 3... on Green Meadow, under its line of diagonal letters) followed by the cells."""
    best: list[tuple[int, str, list[str]]] = []
    run: list[tuple[int, str, list[str]]] = []
    for number, line in lines:
        found = _ROW.match(line)
        label = found.group(1) if found else ""
        if found and run and label in (chr(65 + len(run)), str(len(run) + 1)) and label.isdigit() == run[0][1].isdigit():
            run.append((number, label, found.group(2).split()))
        elif found and label in ("A", "1"):
            run = [(number, label, found.group(2).split())]
        else:
            run = []
        if len(run) > len(best):
            best = list(run)
    return best


def _to_move(lines: list[tuple[int, str]], names: tuple[str, str]) -> int | None:
    """The player the line under the diagram names as to move, if it names exactly one."""
    text = "\n".join(line for _, line in lines)
    said = [seat for seat, name in enumerate(names) if re.search(rf"(?m)^(?:\W|\[\w+\])*{re.escape(name)} to move\b", text)]
    return said[0] if len(said) == 1 else None


def _board(show: HexShow, options: dict[str, Any], rows: list[tuple[int, str, list[str]]]) -> HexBoard:
    """The game's board for ``options``, its side set from the number of rows."""
    kind, _ = show.board_kind({k: v for k, v in options.items() if k != "size"})  # the side is the diagram's
    if kind == "hexhex":
        side = (len(rows) + 1) // 2
        if len(rows) % 2 == 0 or not MIN_SIDE <= side <= MAX_SIDE:
            said = f"a hexhex board has an odd number of rows, 3 to 19; the diagram has {len(rows)}."
            raise BadDiagram(rows[-1][0], rows[-1][1], said)
        options["size"] = side
    board = show.board(options)
    if len(board.rows) != len(rows):
        raise BadDiagram(rows[-1][0], rows[-1][1], f"this board has {len(board.rows)} rows; the diagram has {len(rows)}.")
    return board


def read(game: str, text: str, to_move: int | None = None, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The options that set up the position ``text`` draws (with the game's other
    ``options`` as given), checked by the engine; :class:`BadDiagram` when a line
    cannot be read, the engine's ``bad_options`` when the position is impossible."""
    room = ROOMS[game]
    show = room.show
    if not isinstance(show, HexShow):
        raise BadDiagram(0, "", f"{show.title}'s diagram cannot be read back.")
    declared = {opt.name for opt in room.game.options}
    out: dict[str, Any] = {k: v for k, v in (options or {}).items() if k not in ("position", "blocked", "to_move")}
    lines = _block(text)
    rows = _rows(lines)
    if not rows:
        first = next(((n, line) for n, line in lines if line.strip()), (1, ""))
        raise BadDiagram(first[0], first[1].strip()[:20], "no board in it: its rows start A, B, C... (as the post's diagram).")
    board = _board(show, out, rows)
    symbols = {sym.upper(): value for value, sym in enumerate(show.symbols)}
    own_off = set(board.names(board.black))
    position: dict[str, int] = {}
    blocked: list[str] = []
    for (number, label, tokens), row in zip(rows, board.rows, strict=True):
        if len(tokens) != len(row):
            raise BadDiagram(number, label, f"row {label} has {len(row)} cells on this board; the diagram gives {len(tokens)}.")
        for token, b in zip(tokens, row, strict=True):
            cell = board.name(b)
            if token == "#":
                if cell not in own_off:
                    blocked.append(cell)
                continue
            if cell in own_off:
                raise BadDiagram(number, token, f"{cell} is off the board (#), not {token!r}.")
            if token == "." or (_CELL_NAME.match(token.upper()) and token.upper() == cell.upper()):
                continue
            value = symbols.get(token.upper()) if len(token) == 1 else None
            if value is None:
                known = ", ".join(show.symbols)
                said = f"{token!r} on {cell} is no piece of {show.title} (its pieces: {known}; . empty, # off the board)."
                raise BadDiagram(number, token, said)
            position[cell] = value
    out["position"] = position
    if blocked and "blocked" in declared:
        out["blocked"] = blocked
    elif blocked:
        raise BadDiagram(rows[0][0], "#", f"{show.title} has no blocked cells: {', '.join(blocked)} cannot be off the board.")
    seat = to_move if to_move is not None else _to_move(list(enumerate(text.splitlines(), 1)), show.default_names)
    if seat is not None and "to_move" in declared:
        out["to_move"] = seat
    room.game.new(out)  # the engine's judgement: an impossible position is its 422 bad_options
    return out
