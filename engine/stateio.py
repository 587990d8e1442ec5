"""Reading a game's JSON, for every game: a state's frame (its exact fields,
game and version) and whole players (0 or 1 as JSON integers); and, shared by
the games played on hex boards, the ``board`` ({cell: 0|1}) and ``blocked``
list of set-up options and client states.

Nothing is taken on trust: a wrong value raises ``err`` (BadOptions for
options, BadState for states) naming its field - ``options.blocked.2``,
``state.board.E5`` - and saying why.  Options may spell cells loosely
(``e5``, blocked cells in any order); a state must spell them as the engine
dumps them (``E5``, blocked in reading order), so that it dumps back exactly
as it was read.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from engine.errors import BadOptions, BadState
from engine.hexboard import HexBoard

FieldErrorType = type[BadOptions] | type[BadState]  # BadOptions for set-up options, BadState for states


def is_player(x: Any) -> bool:
    """0 or 1 as a JSON integer (not ``true``, not ``1.0``), so that a state
    dumps back to the same JSON text."""
    return type(x) is int and x in (0, 1)


MAX_PLY = 1_000_000  # no game here lasts that long: a client's larger ply is refused, so nothing larger is echoed

# The fields every game's state has (API.md "Reading a state"); each game adds its own.
COMMON_FIELDS = ("game", "version", "options", "status", "to_move", "ply", "winner", "end", "scores", "board")


def check_frame(data: Any, fields: tuple[str, ...], game: str, title: str, version: int) -> None:
    """A state must be an object with exactly ``fields``, of ``game`` at ``version``,
    and a ``ply`` from 0 to :data:`MAX_PLY` (each game checks it against the position)."""
    if not isinstance(data, Mapping):
        raise BadState("state", "state must be an object.")
    if data.keys() != _field_set(fields):  # one comparison of sets; then the loops name the first odd field
        for key in data:
            if key not in fields:
                raise BadState(f"state.{key}", f"A {title} state has no field '{key}'.")
        for key in fields:
            if key not in data:
                raise BadState(f"state.{key}", f"The state lacks its '{key}' field.")
    if data["game"] != game:
        raise BadState("state.game", f"state.game must be '{game}'.")
    if type(data["version"]) is not int or data["version"] != version:
        raise BadState("state.version", f"Unsupported state version {data['version']!r}; this server reads {version}.")
    ply = data["ply"]
    if type(ply) is not int or not 0 <= ply <= MAX_PLY:
        raise BadState("state.ply", f"ply must be a whole number from 0 to {MAX_PLY}.")


@cache
def _field_set(fields: tuple[str, ...]) -> frozenset[str]:
    return frozenset(fields)


def _check_spelling(board: HexBoard, b: int, name: str, field: str) -> None:
    """A state names a cell exactly as the engine dumps it."""
    if board.name(b) != name:
        raise BadState(field, f"A state writes this cell {board.name(b)}, as the server gave it, not {name!r}.")


def _which(board: HexBoard) -> str:
    return f"a side-{board.side} board" if board.kind == "hexhex" else "the Green Meadow board"


def read_blocked(board: HexBoard, raw: Any, field: str, err: FieldErrorType) -> int:
    """The cells removed from the board, as a bit set.  The variant's own black
    cells (R-H4) are off the board already and never listed, so that a state
    dumps back exactly as it was read."""
    if not isinstance(raw, list):
        raise err(field, "blocked must be a list of cells.")
    out = 0
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not board.has(name):
            raise err(f"{field}.{i}", f"{name!r} is not a cell of {_which(board)}.")
        b = board.parse_cell(name)
        if err is BadState:
            _check_spelling(board, b, name, f"{field}.{i}")
            if out >> (b + 1):  # a cell later in reading order (a higher bit) is listed already
                raise BadState(f"{field}.{i}", f"A state lists its blocked cells in reading order; {name} comes too late.")
        if board.black >> b & 1:
            raise err(f"{field}.{i}", f"{name.upper()} is one of the board's own black cells (R-H4); list only others.")
        if out >> b & 1:
            raise err(f"{field}.{i}", f"{name.upper()} is listed twice.")
        out |= 1 << b
    return out


def read_board(board: HexBoard, raw: Any, blocked: int, field: str, err: FieldErrorType, *, piece: str) -> tuple[int, int]:
    """Each player's ``piece``s (the game's word: stone, piece) as bit sets,
    from ``{cell: 0|1}``; none may stand on a black or ``blocked`` cell."""
    if not isinstance(raw, Mapping):
        raise err(field, "board must be an object mapping cells to 0 or 1.")
    if err is BadState:
        found = _state_board(board, raw, blocked)
        if found is not None:
            return found
    return _walk_board(board, raw, blocked, field, err, piece)


def _walk_board(
    board: HexBoard, raw: Mapping[Any, Any], blocked: int, field: str, err: FieldErrorType, piece: str
) -> tuple[int, int]:
    """:func:`read_board` cell by cell, in the order given, each check in turn: the first wrong cell is named."""
    s = [0, 0]
    for name, who in raw.items():
        if err is BadOptions and isinstance(who, float) and who.is_integer():
            who = int(who)  # options may spell 0 as 0.0 (JSON Schema's integer); a state spells it as dumped
        if not isinstance(name, str) or not board.has(name):
            raise err(f"{field}.{name}", f"{name} is not a cell of {_which(board)}.")
        if not is_player(who):
            raise err(f"{field}.{name}", f"A cell holds player 0 or 1, not {who!r}.")
        b = board.parse_cell(name)
        if err is BadState:
            _check_spelling(board, b, name, f"{field}.{name}")
        if board.black >> b & 1:
            raise err(
                f"{field}.{name}", f"{name.upper()} is one of the board's own black cells (R-H4), so no {piece} can be on it."
            )
        if blocked >> b & 1:
            raise err(f"{field}.{name}", f"{name.upper()} is blocked, so no {piece} can be on it.")
        if (s[0] | s[1]) >> b & 1:
            raise err(f"{field}.{name}", f"{name.upper()} is given twice.")
        s[who] |= 1 << b
    return s[0], s[1]


def _state_board(board: HexBoard, raw: Mapping[Any, Any], blocked: int) -> tuple[int, int] | None:
    """A state's board as :func:`read_board` reads it, when nothing in it is wrong; else None, and
    :func:`read_board` walks it again cell by cell to name the first wrong one.  The common case in
    a few steps a cell: a state spells every cell exactly as dumped (``board.masks``: so the cell
    exists and is spelt right, and no two keys name one cell), each holds the JSON integer 0 or 1,
    and black and blocked cells are found on the bit sets at the end (issue 20: the checks cell by
    cell were most of a ``load``)."""
    masks = board.masks
    s0 = s1 = 0
    for name, who in raw.items():
        m = masks.get(name)
        if m is None or type(who) is not int:
            return None
        if who == 0:
            s0 |= m
        elif who == 1:
            s1 |= m
        else:
            return None
    if (s0 | s1) & (board.black | blocked):
        return None
    return s0, s1


def cells_json(board: HexBoard, first: int, second: int) -> dict[str, int]:
    """A hex board's ``board`` field: each occupied cell, in reading order, and
    0 or 1 for the bit set (``first`` or ``second``) holding it."""
    labels = board.labels
    out: dict[str, int] = {}
    both = first | second
    while both:  # iter_bits written out: a generator's resumption per cell was a fifth of a dump
        low = both & -both
        out[labels[low.bit_length() - 1]] = 0 if first & low else 1
        both ^= low
    return out
