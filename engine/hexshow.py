"""The show of a game played with stones on a hex board (R-H1 to R-H4):
the board's shape from the options, a stone per occupied cell (upper case in
the diagram, lower case where the last move put it), group sizes, and the
marks of a move that places stones.  Games subclass :class:`HexShow` and say
what their stones are and what the scores mean."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from engine.groups import group_sizes
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, green_meadow, hexhex
from engine.show import BoardShape, Glyph, Json, LastMove, Piece, Show, marks


@cache
def _board(kind: str, side: int) -> HexBoard:
    return green_meadow() if kind == "green-meadow" else hexhex(side)


class HexShow(Show):
    default_size: ClassVar[int] = 5
    min_size: ClassVar[int] = MIN_SIDE
    max_size: ClassVar[int] = MAX_SIDE
    symbols: ClassVar[tuple[str, str]] = ("X", "O")  # the diagram's stones, by board value
    drawn: ClassVar[tuple[str, ...]] = ("board", "blocked")  # a stone by value on each cell, # on each blocked one

    def board_kind(self, options: Mapping[str, Any]) -> tuple[str, int]:
        """("hexhex", side) or ("green-meadow", 6) for these options."""
        size = options.get("size", self.default_size)
        if isinstance(size, bool) or not isinstance(size, int) or not self.min_size <= size <= self.max_size:
            raise ValueError(f"A {self.title} board has a side from {self.min_size} to {self.max_size}, not {size!r}.")
        return "hexhex", size

    def board(self, options: Mapping[str, Any]) -> HexBoard:
        return _board(*self.board_kind(options))

    def shape(self, options: Mapping[str, Any], blocked: Sequence[str] = ()) -> BoardShape:
        kind, side = self.board_kind(options)
        board = _board(kind, side)
        off = board.black
        for cell in blocked:
            if not isinstance(cell, str) or not board.has(cell):
                raise ValueError(f"{cell!r} is not a cell of this {self.title} board, so it cannot be blocked.")
            off |= 1 << board.parse_cell(cell)
        return BoardShape(kind, side=side, off=tuple(board.names(off)))

    def pieces(self, state: Mapping[str, Any], last: LastMove) -> tuple[Piece, ...]:
        moved = last.cells("last", "bonus")
        out = []
        for name, value in (state.get("board") or {}).items():
            style = self.styles[int(value)]
            sym = self.symbols[int(value)]
            out.append(Piece(name, Glyph("stone", style.name, style.mark), sym.lower() if name in moved else sym))
        return tuple(out)

    def stone(self, value: int) -> Glyph:
        """The glyph of a board value's stone, as a panel icon."""
        style = self.styles[value]
        return Glyph("stone", style.name, style.mark)

    def board_sizes(self, state: Mapping[str, Any]) -> tuple[list[int], list[int]]:
        """Each board value's group sizes, largest first (owners, or colours)."""
        board = self.board(state.get("options") or {})
        bits = [0, 0]
        for name, value in (state.get("board") or {}).items():
            bits[int(value)] |= 1 << board.parse_cell(name)
        return group_sizes(board, bits[0]), group_sizes(board, bits[1])

    @staticmethod
    def placed(events: Sequence[Json]) -> LastMove:
        """The last move of a turn that places stones (``place`` events with ``cells``)."""
        for e in events:
            if e.get("type") == "place":
                cells = [str(c) for c in e.get("cells") or ()]
                return LastMove(mover=e.get("player"), move=" ".join(cells), marks=marks("last", cells))
        return LastMove()

    def size_text(self, state: Mapping[str, Any]) -> str:
        kind, side = self.board_kind(state.get("options") or {})
        return "Green Meadow board" if kind == "green-meadow" else f"side {side}"

    def off_note(self, state: Mapping[str, Any], sep: str = ", ") -> str:
        """The legend's words for ``#``, only on a board that has cells off it (Green Meadow's
        black corners, blocked cells): a plain hexhex board has none to explain (issue 35)."""
        return f"{sep}# off the board" if self.state_shape(state).off else ""

    @staticmethod
    def blocked_note(state: Mapping[str, Any]) -> str:
        blocked = state.get("blocked") or ()
        return f", {len(blocked)} blocked" if blocked else ""
