"""Stand-ins for the engine's Plur and Too (RULES R-E1, R-E1a, R-E2), which are
being written on main: just enough of the spec the bots are coded to - moves
``D4`` (and ``swap``) / ``B D4``, the legal list, ``scores`` - for the bots'
tests to run before the real engines land.  Not a reference: after the merge
the same tests run against the real games (tests/tournament/test_upcoming.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import IllegalMove, InvalidMove
from engine.game import Game, Json, LegalMoves, MoveInput
from engine.groups import group_sizes
from engine.hexboard import HexBoard, hexhex, iter_bits


@dataclass(frozen=True)
class HexState:
    board: HexBoard
    stones: tuple[int, int]  # Plur: each player's stones; Too: black's and white's
    to_move: int | None
    ply: int
    pie: bool = False
    winner: int | None = None
    end: str | None = None

    @property
    def empty(self) -> int:
        return self.board.mask & ~self.stones[0] & ~self.stones[1]


def plur_winner(sizes0: list[int], sizes1: list[int]) -> int | None:
    groups = sorted([(s, 0) for s in sizes0] + [(s, 1) for s in sizes1], key=lambda g: -g[0])
    k = 3
    while k < len(groups) and groups[k - 1][0] == groups[k][0]:
        k += 2
    mine = sum(1 for _, owner in groups[:k] if owner == 0)
    theirs = len(groups[:k]) - mine
    return None if mine == theirs else 0 if mine > theirs else 1


def second(sizes: list[int]) -> int:
    return sizes[1] if len(sizes) > 1 else 0


class _HexGame(Game[HexState, tuple[int, int]]):
    def describe(self) -> Json:
        return {"name": self.name, "title": self.title, "options": {"size": {"default": 5}, "pie": {"default": False}}}

    def new(self, options: Mapping[str, Any]) -> HexState:
        return HexState(hexhex(int(options.get("size", 5))), (0, 0), 0, 0, bool(options.get("pie", False)))

    def load(self, data: Mapping[str, Any]) -> HexState:
        board = hexhex(data["options"]["size"])
        stones = [0, 0]
        for name, v in data["board"].items():
            stones[v] |= 1 << board.parse_cell(name)
        return HexState(board, (stones[0], stones[1]), data["to_move"], data["ply"], data["options"].get("pie", False),
                        data["winner"], data["end"])  # fmt: skip

    def _board(self, state: HexState) -> dict[str, int]:
        return {state.board.name(b): v for v in (0, 1) for b in iter_bits(state.stones[v])}

    def is_over(self, state: HexState) -> bool:
        return state.to_move is None

    def resign(self, state: HexState, player: int) -> tuple[HexState, list[Json]]:
        return replace(state, to_move=None, winner=1 - player, end="resign"), []

    def timeout(self, state: HexState) -> tuple[HexState, list[Json]]:
        assert state.to_move is not None
        return replace(state, to_move=None, winner=1 - state.to_move, end="flag"), []

    def _place(self, state: HexState, colour: int, cell: int) -> HexState:
        stones = list(state.stones)
        stones[colour] |= 1 << cell
        after = replace(state, stones=(stones[0], stones[1]), to_move=1 - (state.to_move or 0), ply=state.ply + 1)
        if not after.empty:
            after = replace(after, to_move=None, end="full", winner=self._winner(after))
        return after

    def _winner(self, state: HexState) -> int | None:
        raise NotImplementedError


class PlurStandIn(_HexGame):
    name = "plur"
    title = "Plur (stand-in)"

    def dump(self, state: HexState) -> Json:
        b = state.board
        return {
            "game": "plur", "version": 1, "options": {"size": b.side, "pie": state.pie},
            "status": "finished" if state.end else "ongoing", "to_move": state.to_move, "ply": state.ply,
            "winner": state.winner, "end": state.end, "board": self._board(state),
            "scores": [group_sizes(b, state.stones[0]), group_sizes(b, state.stones[1])],
        }  # fmt: skip

    def parse(self, state: HexState, text: MoveInput) -> tuple[int, int]:
        if isinstance(text, str) and text.strip().lower() == "swap":
            return (-1, -1)
        return (0, state.board.parse_cell(str(text).strip()))

    def apply(self, state: HexState, move: tuple[int, int]) -> tuple[HexState, list[Json]]:
        if move == (-1, -1):
            if not (state.pie and state.ply == 1):
                raise IllegalMove("no_swap", "swap is only player 1's first move, with the pie rule (R-E1a).")
            return replace(state, stones=(0, state.stones[0]), to_move=0, ply=2), []
        cell = move[1]
        if not state.empty >> cell & 1:
            raise IllegalMove("occupied", f"{state.board.name(cell)} is not empty.")
        assert state.to_move is not None
        return self._place(state, state.to_move, cell), []

    def notation(self, state: HexState, move: tuple[int, int]) -> str:
        return "swap" if move == (-1, -1) else state.board.name(move[1])

    def legal_moves(self, state: HexState, limit: int | None = None) -> LegalMoves:
        if state.to_move is None:
            return LegalMoves([])
        moves = state.board.names(state.empty) + (["swap"] if state.pie and state.ply == 1 else [])
        return LegalMoves(moves)

    def _winner(self, state: HexState) -> int | None:
        return plur_winner(group_sizes(state.board, state.stones[0]), group_sizes(state.board, state.stones[1]))


class TooStandIn(_HexGame):
    name = "too"
    title = "Too (stand-in)"

    def dump(self, state: HexState) -> Json:
        b = state.board
        return {
            "game": "too", "version": 1, "options": {"size": b.side}, "status": "finished" if state.end else "ongoing",
            "to_move": state.to_move, "ply": state.ply, "winner": state.winner, "end": state.end,
            "board": self._board(state),
            "scores": [second(group_sizes(b, state.stones[0])), second(group_sizes(b, state.stones[1]))],
        }  # fmt: skip

    def parse(self, state: HexState, text: MoveInput) -> tuple[int, int]:
        words = str(text).split()
        if len(words) != 2 or words[0].upper() not in ("B", "W"):
            raise InvalidMove("A Too move is a colour and a cell: B D4 or W D4 (R-E2).")
        return (0 if words[0].upper() == "B" else 1, state.board.parse_cell(words[1]))

    def apply(self, state: HexState, move: tuple[int, int]) -> tuple[HexState, list[Json]]:
        colour, cell = move
        if not state.empty >> cell & 1:
            raise IllegalMove("occupied", f"{state.board.name(cell)} is not empty.")
        return self._place(state, colour, cell), []

    def notation(self, state: HexState, move: tuple[int, int]) -> str:
        return f"{'BW'[move[0]]} {state.board.name(move[1])}"

    def legal_moves(self, state: HexState, limit: int | None = None) -> LegalMoves:
        if state.to_move is None:
            return LegalMoves([])
        names = state.board.names(state.empty)
        return LegalMoves([f"B {n}" for n in names] + [f"W {n}" for n in names])

    def _winner(self, state: HexState) -> int | None:
        b = state.board
        return 0 if second(group_sizes(b, state.stones[0])) > second(group_sizes(b, state.stones[1])) else 1
