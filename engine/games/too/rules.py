"""Too (seed 001; RULES R-E2 on the boards of R-H1 to R-H3).

Players take turns, player 0 first, each placing one stone of *either*
colour on an empty cell, until the board is full.  Then player 0 wins if
black's second-largest group is larger than white's second-largest group;
otherwise player 1 wins, so there are no draws.  A colour with fewer than two
groups has second-largest 0, and groups of equal size count separately
(sizes 4, 4, 2: the second-largest is 4).

So the board holds colours, not owners: ``board`` maps a cell to 0 (black)
or 1 (white), and a move is written colour then cell, ``B D4`` or ``W D4``
(case-insensitive; written back as ``B D4``).  Whose turn it is follows from
the number of stones (turns alternate, one stone each), as does the ply.

A position keeps each colour's stones as a bit set and its groups as a tuple
of bit sets; a stone merges only the groups of its colour it touches, as in
Catchup (engine/games/catchup/rules.py).  Scores during play are each colour's
second-largest group, black's first (R-E2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove, InvalidMove
from engine.game import ON_THE_MOVER, Game, Json, LegalMoves, MoveInput
from engine.groups import groups as find_groups
from engine.groups import place
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, hexhex
from engine.options import BLOCKED, Option, ref
from engine.stateio import COMMON_FIELDS, cells_json, check_frame, read_blocked, read_board

VERSION = 1
DEFAULT_SIZE = 5
COLOURS = ("black", "white")  # the board's values 0 and 1
LETTERS = {"b": 0, "black": 0, "w": 1, "white": 1, "B": 0, "W": 1}
STATE_FIELDS = (*COMMON_FIELDS, "blocked")

OPTIONS = (
    Option("size", "integer", DEFAULT_SIZE, "side of the hexhex board", min=MIN_SIDE, max=MAX_SIDE, rule="R-E2"),
    Option(
        "position", "object", None, "set-up board: each occupied cell and the colour on it, 0 black or 1 white",
        setup=True, schema=ref("HexBoardCells"),
    ),
    BLOCKED,
)  # fmt: skip

STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["blocked"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["size"],
            "additionalProperties": False,
            "properties": {"size": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE}},
        },
        "scores": {
            "items": {"type": "integer", "minimum": 0},
            "description": "The second-largest group of each colour, black's first (R-E2); "
            "0 for a colour with fewer than two groups.",
        },
        "board": {
            **ref("HexBoardCells"),
            "description": "Occupied cells only; the value is the stone's colour, 0 black, 1 white.",
        },
        "blocked": ref("CellList"),
    },
}  # fmt: skip

Move = tuple[tuple[int, int], ...]  # (colour, cell) per stone named; a legal move names one
_SPLIT = re.compile(r"[\s,]+")


def second(groups: tuple[int, ...]) -> int:
    """The second-largest group's size; 0 with fewer than two groups (R-E2)."""
    return second_largest([g.bit_count() for g in groups])


def second_largest(sizes: Sequence[int]) -> int:
    """R-E2's score from a colour's group sizes: the second-largest, equal sizes
    counted separately (4, 4, 2 gives 4); 0 with fewer than two groups."""
    ordered = sorted(sizes, reverse=True)
    return ordered[1] if len(ordered) > 1 else 0


def winner_of(black_second: int, white_second: int) -> int:
    """R-E2: player 0 wins iff black's second-largest group is larger than white's; no draws."""
    return 0 if black_second > white_second else 1


@dataclass(slots=True)
class TooState:
    """One position.  Treated as an immutable value (not ``frozen``, for speed,
    as :class:`engine.games.catchup.rules.CatchupState`)."""

    board: HexBoard
    stones: tuple[int, int]  # black's and white's stones (colours, not owners)
    groups: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)  # derived from stones
    blocked: int
    to_move: int | None
    ply: int
    winner: int | None
    end: str | None
    empty: int = field(compare=False)  # derived

    def sizes(self, colour: int) -> list[int]:
        return sorted((g.bit_count() for g in self.groups[colour]), reverse=True)

    @property
    def scores(self) -> list[int]:
        return [second(self.groups[0]), second(self.groups[1])]


class Too(Game[TooState, Move]):
    name = "too"
    title = "Too"
    natural_ends = ("full",)  # R-E2: the board is full
    move_rule = "R-E2"
    end_rule = "R-E2"
    turn_needs = "every turn places one stone, black or white"
    options = OPTIONS
    state_schema = STATE_SCHEMA
    presets = {"too": seconds(60, 300, 1, "loses")}  # Catchup's clock (R-T2) fits its forerunner

    @staticmethod
    def _winner(stones_groups: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
        """R-E2: player 0 wins iff black's second-largest group beats white's."""
        return winner_of(second(stones_groups[0]), second(stones_groups[1]))

    def _build(self, board: HexBoard, stones: tuple[int, int], blocked: int) -> TooState:
        """The position of these stones: the turn and ply follow from their number."""
        groups = (tuple(find_groups(board, stones[0])), tuple(find_groups(board, stones[1])))
        empty = board.mask & ~blocked & ~stones[0] & ~stones[1]
        placed = stones[0].bit_count() + stones[1].bit_count()
        if not empty:
            return TooState(board, stones, groups, blocked, None, placed, self._winner(groups), "full", 0)
        return TooState(board, stones, groups, blocked, placed % 2, placed, None, None, empty)

    def new(self, options: Mapping[str, Any]) -> TooState:
        options = self.check_options(options)
        board = hexhex(self.read_option(options, "size"))
        blocked = read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        raw = options.get("position")
        stones = read_board(board, {} if raw is None else raw, blocked, "options.position", BadOptions, piece="stone")
        return self._build(board, stones, blocked)

    # -- the JSON form ---------------------------------------------------------------

    def dump(self, state: TooState) -> Json:
        board = state.board
        cells = cells_json(board, *state.stones)
        return {
            **self.state_head(state, VERSION, {"size": board.side}),
            "scores": state.scores,
            "board": cells,
            "blocked": board.names(state.blocked),
        }

    def load(self, data: Mapping[str, Any]) -> TooState:
        """A client's state, checked field by field; nothing is taken on trust."""
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = self.read_state_options(data, ("size",))
        board = hexhex(opts["size"])
        blocked = read_blocked(board, data["blocked"], "state.blocked", BadState)
        stones = read_board(board, data["board"], blocked, "state.board", BadState, piece="stone")
        state = self._build(board, stones, blocked)
        if state.end == "full" and data["end"] != "full":
            raise BadState("state.end", f"The board is full, so the game has ended with end 'full' (R-E2), not {data['end']!r}.")
        if state.end is None and data["end"] == "full":
            raise BadState("state.end", "end is 'full' but the board still has empty cells.")
        end, to_move, winner = self.read_end(data)
        placed = stones[0].bit_count() + stones[1].bit_count()
        if data["ply"] != placed or type(data["ply"]) is not int:
            raise BadState("state.ply", f"ply must be {placed}: one move per stone on the board (R-E2).")
        if end is None and to_move != state.to_move:
            raise BadState(
                "state.to_move",
                f"With {placed} stones on the board player {state.to_move} is to move: turns alternate, player 0 first (R-E2).",
            )
        if end == "full" and winner != state.winner:
            raise BadState("state.winner", f"state.winner is {winner!r} but the full board gives {state.winner!r} (R-E2).")
        if end in ON_THE_MOVER and winner == placed % 2:
            raise BadState("state.winner", f"A {end} falls on the player to move, player {placed % 2}, who loses (R-T1).")
        if end is not None and end != "full":
            state = self._finished(state, winner, end)
        if data["scores"] != state.scores or not all(type(x) is int for x in data["scores"]):
            raise BadState(
                "state.scores",
                f"state.scores is {data['scores']!r} but they are black's and white's second-largest groups (R-E2): "
                f"expected {state.scores!r}.",
            )
        return state

    # -- moves -------------------------------------------------------------------------

    def parse(self, state: TooState, text: MoveInput) -> Move:
        """``B D4`` / ``w,d4``: colour then cell, per stone (R-E2)."""
        if isinstance(text, str):  # the plain case first: "B D4" as given out
            word, _, cell = text.partition(" ")
            if (c := LETTERS.get(word)) is not None and (b := state.board.lookup(cell)) is not None:
                return ((c, b),)
        words = [w for w in _SPLIT.split(text.strip())] if isinstance(text, str) else [str(t).strip() for t in text]
        words = [w for w in words if w]
        if not words:
            raise InvalidMove("The move is empty: name a colour and a cell, like B D4.", code="empty_move", rule="R-E2")
        out = []
        for i in range(0, len(words), 2):
            step = i // 2
            colour = LETTERS.get(words[i].lower())
            if colour is None:
                raise InvalidMove(
                    f"'{words[i]}' is not a colour: a move names the colour, B or W, then the cell, like B D4.",
                    step=step,
                    rule="R-E2",
                )
            if i + 1 >= len(words):
                raise InvalidMove(
                    f"'{words[i]}' names a colour but no cell: write the cell after it, like B D4.", step=step, rule="R-E2"
                )
            out.append((colour, state.board.parse_cell(words[i + 1], step=step)))
        return tuple(out)

    def notation(self, state: TooState, move: Move) -> str:
        if len(move) == 1:
            return ("B " if move[0][0] == 0 else "W ") + state.board.labels[move[0][1]]
        return ", ".join(f"{'BW'[c]} {state.board.labels[b]}" for c, b in move)

    def apply(self, state: TooState, move: Move) -> tuple[TooState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        if len(move) != 1:
            extra = self.notation(state, move[1:2])
            raise IllegalMove(
                "too_many_stones", f"A turn places one stone, not {len(move)}: {extra} is one too many.", step=1, rule="R-E2"
            )
        colour, b = move[0]
        bit = 1 << b
        board = state.board
        if not state.empty & bit:
            if state.blocked >> b & 1:
                raise IllegalMove("blocked", f"{board.name(b)} is blocked: it is not part of the board.", step=0, rule="R-H4")
            raise IllegalMove("occupied", f"{board.name(b)} is already occupied.", step=0, rule="R-E2")
        same = state.stones[colour]
        touch = board.neighbours[b] & same
        grown = place(state.groups[colour], touch, bit)
        if colour == 0:
            stones, groups = (same | bit, state.stones[1]), (grown, state.groups[1])
        else:
            stones, groups = (state.stones[0], same | bit), (state.groups[0], grown)
        empty = state.empty ^ bit
        events: list[Json] = [{"type": "place", "player": p, "color": COLOURS[colour], "cells": [board.labels[b]]}]
        if empty:
            return TooState(board, stones, groups, state.blocked, 1 - p, state.ply + 1, None, None, empty), events
        winner = self._winner(groups)  # R-E2: the board is full
        new = TooState(board, stones, groups, state.blocked, None, state.ply + 1, winner, "full", 0)
        events.append({"type": "end", "winner": winner, "end": "full", **self.decided_by(new)})
        return new, events

    def legal_moves(self, state: TooState, limit: int | None = None) -> LegalMoves:
        """Both colours on every empty cell: ``B D4``, ``W D4``, ... (R-E2)."""
        if state.to_move is None:
            return LegalMoves([], complete=True)
        moves = [f"{c} {name}" for name in state.board.names(state.empty) for c in "BW"]
        truncated = limit is not None and len(moves) > limit
        return LegalMoves(moves[:limit] if limit is not None else moves, truncated, complete=True)

    def split_move(self, move: str) -> list[str]:
        """A move is one step, colour and cell together: ``B D4`` (or ``B, D4``, as the parser takes it)."""
        return [" ".join(w for w in _SPLIT.split(move.strip()) if w)]

    def join_steps(self, steps: Sequence[str]) -> str:
        return ", ".join(steps)

    def setup_options(self, state: TooState) -> Json:
        data = self.dump(state)
        return {**data["options"], "position": data["board"], "blocked": data["blocked"]}

    # -- ends ----------------------------------------------------------------------------

    def _finished(self, state: TooState, winner: int | None, end: str) -> TooState:
        return TooState(state.board, state.stones, state.groups, state.blocked, None, state.ply, winner, end, state.empty)

    def decided_by(self, state: TooState) -> Json:
        """Each colour's second-largest group (R-E2) and all group sizes."""
        if state.end != "full":
            return {}
        return {"second": state.scores, "groups": {"black": state.sizes(0), "white": state.sizes(1)}}
