"""Reading a position back from the text diagram :func:`views.text` prints
(and every post carries in its code block): the inverse of the text
rendering, so an umpire can paste a position the way umpires have it
(issue 22), and get back all of it (issue 35).

A diagram draws the board; the rest of the position - whose turn, the ply,
Catchup's bonus, Bug's phase, Crystal Connector's draft, totals, turns and
barred files - travels on the diagram's last line, ``[State {...}]``: the
state's JSON without the fields the diagram draws (the show's ``drawn``),
written by :func:`state_line` under every diagram (``views.text``, the code
block of each post in every format).  :func:`read` puts the two together and
has the engine check the whole (``load``), so a post pasted gives exactly the
state it was made from: "Blue to move: up to 3 stones" comes back with its
bonus.

Generic, like the renderer.  A hex board's cells come from the game's show
(its board for the options, the diagram's rows telling the side), the
pieces from the show's declared ``symbols`` (each board value's one
character, upper case; lower case marks the last move and reads the same);
``.`` is an empty cell (a cell's name too, as ``coords`` prints it), ``#`` a
cell off the board: one of the board's own, or a blocked one.  A grid's
symbols are its show's to read (:meth:`engine.show.Show.read_grid`).

Which games: every game whose show draws a hex board of stones by value
(Catchup, Bug, Plur, Too, Product) or reads its grid back (Crystal
Connector): :func:`readable`.  Without its ``[State]`` line a hex diagram
still sets up the position it draws (``position``, ``blocked``,
``to_move``, ``size``: whose turn from ``to_move``, else the ``<name> to
move`` line under the diagram), as ``new`` checks it; a grid's draws too
little of Crystal's position (the draft, the totals) to be read without it.
A ``to_move`` given that the line contradicts sets the line aside: the
position is set up from the board and that choice.

The answer (:class:`Reading`) is the state, exactly, and the options of the
set-up nearest it that ``new`` takes.  A line that cannot be read is a
:class:`BadDiagram` naming the line and the token.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import BadOptions, BadState, FieldError
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard
from engine.hexshow import HexShow
from engine.registry import ROOMS
from engine.room import Room
from engine.show import Show

FORMAT = "diagram"
TITLE = "the text diagram of a post or GET render?format=text (read only; with its [State] line, the whole position)"

_CELL_NAME = re.compile(r"^[A-Z]\d{1,2}$")
_ROW = re.compile(r"^\s*([A-Z]|\d{1,2})((?:\s+\S{1,3})+)\s*$")
_STATE = re.compile(r"^\s*\[State\s+(\{.*\})\]\s*$")
# What a post's writer does to a line of its code block that the diagram must survive: a zero-width
# space after "@" (Crystal's chameleon) and inside "://" (views/posts.py defuse), BBCode's brackets full width.
_UNDONE = str.maketrans({"\u200b": None, "\uff3b": "[", "\uff3d": "]"})


class BadDiagram(FieldError):
    """A diagram that cannot be read: ``line`` (1-based, of the text sent) and ``token`` say where."""

    def __init__(self, line: int, token: str, message: str) -> None:
        super().__init__("text", f"Line {line}: {message}" if line else message, "bad_record")
        self.line = line
        self.token = token

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "line": self.line, "token": self.token}


@dataclass(frozen=True)
class Reading:
    """A diagram read back: ``state``, the position exactly (the game's JSON, checked
    by the engine), and ``options``, the set-up nearest it that ``new`` takes (the
    board, whose turn, Catchup's bonus; not a ply, nor Crystal's totals)."""

    state: dict[str, Any]
    options: dict[str, Any]


def state_line(show: Show, state: Mapping[str, Any]) -> str:
    """The diagram's last line: the state without what the diagram draws, as one line of
    JSON that no post's writer changes (ASCII only, no backquote to close a code block)."""
    rest = {k: v for k, v in state.items() if k not in show.drawn and k != "sig"}
    return "[State " + json.dumps(rest, separators=(",", ":"), ensure_ascii=True).replace("`", "\\u0060") + "]"


def readable(game: str) -> bool:
    """Whether ``game``'s diagram can be read back (a hex board of stones by value, or a grid its show reads)."""
    room = ROOMS.get(game)
    return room is not None and (isinstance(room.show, HexShow) or room.show.read_grid([]) is not None)


_OPEN = re.compile(r"(?i)^\s*(```[\w-]*|~~~[\w-]*|\[code\])\s*$")
_CLOSE = re.compile(r"(?i)^\s*(```|~~~|\[/code\])\s*$")


def _block(text: str) -> list[tuple[int, str]]:
    """The lines of the diagram's block, numbered as in ``text``: inside a post's code
    block (Markdown's fence, BBCode's ``[code]``), else the whole text."""
    lines = [(number, line.translate(_UNDONE)) for number, line in enumerate(text.splitlines(), start=1)]
    opened = next((i for i, (_, line) in enumerate(lines) if _OPEN.match(line)), None)
    if opened is None:
        return lines
    rest = lines[opened + 1 :]
    closed = next((i for i, (_, line) in enumerate(rest) if _CLOSE.match(line)), len(rest))
    return rest[:closed]


def _rows(lines: list[tuple[int, str]]) -> list[tuple[int, str, list[str]]]:
    """The board's rows: the longest run of consecutive lines labelled A, B, C... (or 1,
    2, 3... on Green Meadow and a grid, under their line of letters) followed by the cells."""
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


def _carried(lines: list[tuple[int, str]], room: Room) -> tuple[int, dict[str, Any]] | None:
    """The ``[State {...}]`` line of the diagram's block, if it has one: its number and its JSON."""
    for number, raw in lines:
        found = _STATE.match(raw)
        if found is None:
            continue
        try:
            data = json.loads(found.group(1))
        except ValueError as err:
            raise BadDiagram(number, "[State", f"the [State ...] line is not JSON as a post writes it ({err}).") from None
        if not isinstance(data, dict):
            raise BadDiagram(number, "[State", "the [State ...] line holds a JSON object, the state without its board.")
        other = data.get("game")
        if other != room.name:
            what = ROOMS[other].show.title if isinstance(other, str) and other in ROOMS else repr(other)
            raise BadDiagram(number, "[State", f"this is a position of {what}, not {room.show.title}: read it as that game.")
        return number, data
    return None


def _hex_board(show: HexShow, options: dict[str, Any], rows: list[tuple[int, str, list[str]]]) -> HexBoard:
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


def _hex_cells(show: HexShow, board: HexBoard, rows: list[tuple[int, str, list[str]]]) -> tuple[dict[str, int], list[str]]:
    """Each stone's board value by cell, and the cells off the board that are not its own (blocked)."""
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
    return position, blocked


def _grid(show: Show, rows: list[tuple[int, str, list[str]]]) -> dict[str, Any]:
    """A grid's drawn fields, each symbol read by the show (a wrong one named by its line)."""
    shape = show.shape({})
    if len(rows) != shape.rows:
        raise BadDiagram(rows[-1][0], rows[-1][1], f"the grid has {shape.rows} rows; the diagram has {len(rows)}.")
    for number, label, tokens in rows:
        if len(tokens) != shape.columns:
            raise BadDiagram(number, label, f"row {label} has {shape.columns} cells; the diagram gives {len(tokens)}.")
        for token in tokens:
            try:
                show.read_grid([[token]])
            except ValueError as err:
                raise BadDiagram(number, token, str(err)) from None
    found = show.read_grid([tokens for _, _, tokens in rows])
    assert found is not None
    return found


def read(game: str, text: str, to_move: int | None = None, options: Mapping[str, Any] | None = None) -> Reading:
    """The position ``text`` draws, with its ``[State]`` line the whole of it, checked by
    the engine (the game's other ``options`` as given where the text has no such line);
    :class:`BadDiagram` when a line cannot be read, the engine's ``bad_options`` when a
    position set up from the board alone is impossible."""
    room = ROOMS[game]
    show, g = room.show, room.game
    if not readable(game):
        raise BadDiagram(0, "", f"{show.title}'s diagram cannot be read back.")
    lines = _block(text)
    rows = _rows(lines)
    if not rows:
        first = next(((n, line) for n, line in lines if line.strip()), (1, ""))
        raise BadDiagram(first[0], first[1].strip()[:20], "no board in it: its rows start A, B, C... (as the post's diagram).")
    carried = _carried(lines, room)
    if carried is not None and to_move is not None and carried[1].get("to_move") != to_move:
        if not isinstance(show, HexShow):  # a grid's board alone is no position: nothing to set up with the choice
            said = f"the [State ...] line has seat {carried[1].get('to_move')} to move, not seat {to_move} as sent."
            raise BadDiagram(carried[0], "[State", said)
        carried = None  # whose turn was chosen: the board is set up with that choice, the line set aside
    given = {k: v for k, v in (options or {}).items() if k not in ("position", "blocked", "to_move")}
    if carried is not None:
        return _whole(room, rows, *carried)
    if not isinstance(show, HexShow):
        said = f"a {show.title} diagram reads back with its [State ...] line: the grid alone does not say the rest."
        raise BadDiagram(rows[0][0], rows[0][1], said)
    declared = {opt.name for opt in g.options}
    board = _hex_board(show, given, rows)
    position, blocked = _hex_cells(show, board, rows)
    given["position"] = position
    if blocked and "blocked" in declared:
        given["blocked"] = blocked
    elif blocked:
        raise BadDiagram(rows[0][0], "#", f"{show.title} has no blocked cells: {', '.join(blocked)} cannot be off the board.")
    seat = to_move if to_move is not None else _to_move(list(enumerate(text.splitlines(), 1)), show.default_names)
    if seat is not None and "to_move" in declared:
        given["to_move"] = seat
    state = g.new(given)  # the engine's judgement: an impossible position is its 422 bad_options
    return Reading(g.dump(state), given)


def _whole(room: Room, rows: list[tuple[int, str, list[str]]], number: int, data: dict[str, Any]) -> Reading:
    """The state of the board the rows draw and the rest its ``[State]`` line (``number``) carries."""
    show, g = room.show, room.game
    if isinstance(show, HexShow):
        options = data.get("options")
        try:
            board = show.board(options if isinstance(options, Mapping) else {})
        except ValueError as err:
            raise BadDiagram(number, "[State", f"the [State ...] line's options set up no board: {err}") from None
        if len(board.rows) != len(rows):
            said = f"the [State ...] line is of a board of {len(board.rows)} rows; the diagram has {len(rows)}."
            raise BadDiagram(number, "[State", said)
        position, blocked = _hex_cells(show, board, rows)
        drawn: dict[str, Any] = {"board": position, "blocked": blocked}
    else:
        drawn = _grid(show, rows)
    try:
        state = g.load({**data, **drawn})
    except BadState as err:
        said = f"the [State ...] line does not fit the diagram ({err.field}): {err.message}"
        raise BadDiagram(number, "[State", said) from None
    return Reading(g.dump(state), _nearest(g, state))


def _nearest(g: Any, state: Any) -> dict[str, Any]:
    """The options of the set-up nearest ``state`` that ``new`` takes: its own set-up options
    where ``new`` takes them, else the game's options alone (Bug's blackening turns)."""
    options: dict[str, Any] = g.setup_options(state)
    try:
        g.new(options)
    except BadOptions:
        return dict(g.dump(state)["options"])
    return options
