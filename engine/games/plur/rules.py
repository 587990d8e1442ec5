"""Plur (seed 001; RULES R-E1, R-E1a on the boards of R-H1 to R-H3).

Black (player 0) and white (player 1) take turns placing one stone on an
empty cell of a hexhex board until it is full.  Then every group of both
colours is listed by size, largest first, and the owner of more of the three
largest groups wins; when the third and fourth groups are the same size the
three largest are not clearly identified, so the five largest decide, and so
on up the ladder 3, 5, 7, ... until the k-th and (k+1)-th sizes differ or
every group counts (R-E1).  Equal counts are a draw: only possible when all
groups count and their number is even.

Optional pie rule (R-E1a, option ``pie``): on player 1's first turn, ``swap``
turns black's one stone white (player 1's) and player 0 moves next, with
black.  Whether a swap happened is read off the position: player 1 then has
one stone more than in a game without it.

A position keeps each player's stones as a bit set and their groups as a
tuple of bit sets; a stone merges only the groups it touches, as in Catchup
(engine/games/catchup/rules.py), so a move never re-floods the board.  Scores during play
are each player's group sizes, largest first (R-E1).

Choices where the texts are silent (tested): a set-up position (``new`` with
``position``) gets the ply a game would have reached it in (stones placed,
plus one for a swap), so a client's ``ply`` can be checked exactly; a swap
is offered whenever player 1 is to move and the board holds exactly one
stone, black's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove
from engine.game import Game, Json, LegalMoves, MoveInput, movers_at_end
from engine.groups import groups as find_groups
from engine.groups import place
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, hexhex
from engine.options import BLOCKED, TO_MOVE, Option, position, ref
from engine.stateio import COMMON_FIELDS, cells_json, check_frame, read_blocked, read_board

VERSION = 1
DEFAULT_SIZE = 5
SWAP = -1  # the pie move (R-E1a), beside cell bits
FIRST_K = 3  # R-E1: the three largest groups decide, then 5, 7, ...
STATE_FIELDS = (*COMMON_FIELDS, "blocked")

OPTIONS = (
    Option("size", "integer", DEFAULT_SIZE, "side of the hexhex board", min=MIN_SIDE, max=MAX_SIDE, rule="R-E1"),
    position("stone"),
    BLOCKED,
    TO_MOVE,
    Option("pie", "boolean", False, "player 1 may answer the first stone with swap", rule="R-E1a"),
)

SIZES: Json = {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "Group sizes, largest first."}
STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["blocked"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["size", "pie"],
            "additionalProperties": False,
            "properties": {"size": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE}, "pie": {"type": "boolean"}},
        },
        "scores": {"items": SIZES, "description": "Each player's group sizes, largest first (R-E1)."},
        "board": ref("HexBoardCells"),
        "blocked": ref("CellList"),
    },
}

Move = tuple[int, ...]  # one cell, or (SWAP,)


@dataclass(slots=True)
class PlurState:
    """One position.  Treated as an immutable value (not ``frozen``, for speed,
    as :class:`engine.games.catchup.rules.CatchupState`)."""

    board: HexBoard
    pie: bool
    stones: tuple[int, int]  # black's (player 0's) and white's (player 1's) stones
    groups: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)  # derived from stones
    blocked: int
    to_move: int | None
    ply: int
    winner: int | None
    end: str | None
    empty: int = field(compare=False)  # derived

    def sizes(self, player: int) -> list[int]:
        """``player``'s group sizes, largest first (R-E1's scores)."""
        return sorted((g.bit_count() for g in self.groups[player]), reverse=True)

    @property
    def may_swap(self) -> bool:
        """R-E1a: player 1's first turn, with the pie rule on."""
        return self.pie and self.to_move == 1 and not self.stones[1] and self.stones[0].bit_count() == 1


def ladder(groups: tuple[tuple[int, ...], tuple[int, ...]]) -> Json:
    """R-E1's tie-break ladder over every group of both colours (see :func:`size_ladder`)."""
    return size_ladder([g.bit_count() for g in groups[0]], [g.bit_count() for g in groups[1]])


def size_ladder(black: Sequence[int], white: Sequence[int]) -> Json:
    """R-E1's tie-break ladder from each player's group sizes: the ``k``
    (3, 5, 7, ...) at which the ``k`` largest are clearly identified, capped
    at the number of groups (``all``: every group counts), those groups as
    ``[size, owner]`` largest first, and how many each player owns."""
    listed = sorted([(s, 0) for s in black] + [(s, 1) for s in white], key=lambda x: (-x[0], x[1]))
    n = len(listed)
    k = FIRST_K
    while k < n and listed[k - 1][0] == listed[k][0]:
        k += 2  # the k-th and (k+1)-th are tied: the k largest are not clearly identified
    top = listed[: min(k, n)]
    counts = [sum(1 for _, owner in top if owner == p) for p in (0, 1)]
    return {"k": k, "all": k >= n, "largest": [list(x) for x in top], "counts": counts}


def ladder_winner(result: Json) -> int | None:
    """Who a ladder (:func:`size_ladder`) makes the winner: the owner of more of
    the counted groups; ``None`` for equal counts, a draw (R-E1)."""
    c0, c1 = result["counts"]
    return 0 if c0 > c1 else 1 if c1 > c0 else None


def feasible(c0: int, c1: int, to_move: int, pie: bool) -> bool:
    """Can a game reach ``c0`` black and ``c1`` white stones with ``to_move``
    next?  Turns alternate one stone each from black (R-E1); a swap (R-E1a)
    gives white black's first stone and the turn back to black."""
    if (to_move == 0 and c0 == c1) or (to_move == 1 and c0 == c1 + 1):
        return True
    return pie and ((to_move == 0 and c1 == c0 + 1) or (to_move == 1 and c0 == c1 and c0 > 0))


def _ply(c0: int, c1: int, to_move: int) -> int:
    """The ply of a game that reached these counts with ``to_move`` next: one
    per stone, and one more for a swap (white ahead, or even with white to move)."""
    swapped = c1 > c0 or (c0 == c1 and to_move == 1)
    return c0 + c1 + int(swapped)


class Plur(Game[PlurState, Move]):
    name = "plur"
    title = "Plur"
    natural_ends = ("full",)  # R-E1: the board is full
    move_rule = "R-E1"
    end_rule = "R-E1"
    turn_needs = "every turn places one stone"
    move_codes = {  # the codes of its illegal moves beside the common ones (engine/errors.py)
        "no_swap": "`swap` where the pie rule does not allow it (R-E1a)",
    }
    options = OPTIONS
    state_schema = STATE_SCHEMA
    presets = {"plur": seconds(60, 300, 1, "loses")}  # Catchup's clock (R-T2) fits its forerunner

    # -- building states -------------------------------------------------------------

    def _build(self, board: HexBoard, pie: bool, stones: tuple[int, int], blocked: int, to_move: int, ply: int) -> PlurState:
        """A state from a board; finished when the board is full (R-E1)."""
        groups = (tuple(find_groups(board, stones[0])), tuple(find_groups(board, stones[1])))
        empty = board.mask & ~blocked & ~stones[0] & ~stones[1]
        state = PlurState(board, pie, stones, groups, blocked, to_move, ply, None, None, empty)
        if not empty:
            state.to_move, state.end = None, "full"  # still being built
            state.winner = ladder_winner(ladder(groups))
        return state

    def new(self, options: Mapping[str, Any]) -> PlurState:
        options = self.check_options(options)
        board = hexhex(self.read_option(options, "size"))
        pie = self.read_option(options, "pie")
        blocked = read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        raw = options.get("position")
        stones = read_board(board, {} if raw is None else raw, blocked, "options.position", BadOptions, piece="stone")
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        to_move = self.read_option(options, "to_move")
        if to_move is None:
            to_move = 1 if c0 > c1 else 0
        if not feasible(c0, c1, to_move, pie):
            raise BadOptions(
                "options.to_move" if "to_move" in options else "options.position", self._counts(c0, c1, to_move, pie)
            )
        return self._build(board, pie, stones, blocked, to_move, _ply(c0, c1, to_move))

    @staticmethod
    def _counts(c0: int, c1: int, to_move: int | None, pie: bool) -> str:
        who = "" if to_move is None else f" with player {to_move} to move"
        swap = " (or, after a swap, white one stone ahead, R-E1a)" if pie else ""
        return (
            f"No game of Plur reaches {c0} black and {c1} white stones{who}: black moves first and turns alternate, "
            f"one stone each, so black has as many stones as white or one more{swap} (R-E1)."
        )

    # -- the JSON form ---------------------------------------------------------------

    def dump(self, state: PlurState) -> Json:
        board = state.board
        cells = cells_json(board, *state.stones)
        return {
            **self.state_head(state, VERSION, {"size": board.side, "pie": state.pie}),
            "scores": [state.sizes(0), state.sizes(1)],
            "board": cells,
            "blocked": board.names(state.blocked),
        }

    def load(self, data: Mapping[str, Any]) -> PlurState:
        """A client's state, checked field by field; nothing is taken on trust."""
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = self.read_state_options(data, ("size", "pie"))
        board, pie = hexhex(opts["size"]), opts["pie"]
        blocked = read_blocked(board, data["blocked"], "state.blocked", BadState)
        stones = read_board(board, data["board"], blocked, "state.board", BadState, piece="stone")
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        full = not (board.mask & ~blocked & ~stones[0] & ~stones[1])
        if full and data["end"] != "full":
            raise BadState("state.end", f"The board is full, so the game has ended with end 'full' (R-E1), not {data['end']!r}.")
        if not full and data["end"] == "full":
            raise BadState("state.end", "end is 'full' but the board still has empty cells.")
        end, to_move, winner = self.read_end(data)
        # who could be to move: the one named while ongoing; the loser of a flag; anyone otherwise
        candidates = (to_move,) if to_move is not None else movers_at_end(end or "", winner)
        movers = [p for p in candidates if feasible(c0, c1, p, pie)]
        if not movers:
            raise BadState("state.board", self._counts(c0, c1, to_move, pie))
        plies = {_ply(c0, c1, p) for p in movers}
        ply = data["ply"]
        if type(ply) is not int or ply not in plies:
            want = " or ".join(str(p) for p in sorted(plies))
            raise BadState("state.ply", f"ply must be {want}: one per stone on the board, and one for a swap (R-E1, R-E1a).")
        state = self._build(board, pie, stones, blocked, movers[0], ply)
        if end == "full":
            if winner != state.winner:
                raise BadState("state.winner", f"state.winner is {winner!r} but the full board gives {state.winner!r} (R-E1).")
        elif end is not None:
            state = self._finished(state, winner, end)
        scores = data["scores"]
        if scores != [state.sizes(0), state.sizes(1)] or not all(type(x) is int for side in scores for x in side):
            raise BadState(
                "state.scores",
                f"state.scores is {scores!r} but they are each player's group sizes, largest first (R-E1): "
                f"expected {[state.sizes(0), state.sizes(1)]!r}.",
            )
        return state

    # -- moves -------------------------------------------------------------------------

    def parse(self, state: PlurState, text: MoveInput) -> Move:
        if isinstance(text, str) and (b := state.board.lookup(text)) is not None:
            return (b,)  # the plain case: one cell, written as given out
        words = [text] if isinstance(text, str) else list(text)
        if len(words) == 1 and isinstance(words[0], str) and words[0].strip().lower() == "swap":
            return (SWAP,)
        return state.board.parse_move(text)

    def notation(self, state: PlurState, move: Move) -> str:
        if len(move) == 1:
            return "swap" if move[0] == SWAP else state.board.labels[move[0]]
        return " ".join(state.board.labels[b] for b in move)

    def apply(self, state: PlurState, move: Move) -> tuple[PlurState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        if move == (SWAP,):
            return self._swap(state)
        if len(move) != 1:
            extra = state.board.name(move[1])  # a move of several steps is cells (parse)
            raise IllegalMove(
                "too_many_stones", f"A turn places one stone, not {len(move)}: {extra} is one too many.", step=1, rule="R-E1"
            )
        b = move[0]
        bit = 1 << b
        if not state.empty & bit:
            raise self._bad_cell(state, b)
        mine = state.stones[p]
        touch = state.board.neighbours[b] & mine
        grown = place(state.groups[p], touch, bit)
        if p == 0:
            stones, groups = (mine | bit, state.stones[1]), (grown, state.groups[1])
        else:
            stones, groups = (state.stones[0], mine | bit), (state.groups[0], grown)
        empty = state.empty ^ bit
        events: list[Json] = [{"type": "place", "player": p, "cells": [state.board.labels[b]]}]
        if empty:
            new = PlurState(state.board, state.pie, stones, groups, state.blocked, 1 - p, state.ply + 1, None, None, empty)
            return new, events
        result = ladder(groups)  # R-E1: the board is full
        winner = ladder_winner(result)
        new = PlurState(state.board, state.pie, stones, groups, state.blocked, None, state.ply + 1, winner, "full", 0)
        events.append({"type": "end", "winner": winner, "end": "full", **self.decided_by(new)})
        return new, events

    def _swap(self, state: PlurState) -> tuple[PlurState, list[Json]]:
        """R-E1a: black's one stone becomes white's; black moves next."""
        if not state.may_swap:
            why = (
                "the pie rule is off in this game"
                if not state.pie
                else "only player 1 may swap, on their first turn, when black's first stone is the only stone"
            )
            raise IllegalMove("no_swap", f"Swapping is not allowed here: {why}.", step=0, rule="R-E1a")
        stone = state.stones[0]
        new = PlurState(
            state.board, state.pie, (0, stone), ((), (stone,)), state.blocked, 0, state.ply + 1, None, None, state.empty
        )
        return new, [{"type": "swap", "player": 1, "cell": state.board.labels[stone.bit_length() - 1]}]

    @staticmethod
    def _bad_cell(state: PlurState, b: int) -> IllegalMove:
        board = state.board
        if state.blocked >> b & 1:
            return IllegalMove("blocked", f"{board.name(b)} is blocked: it is not part of the board.", step=0, rule="R-H4")
        return IllegalMove("occupied", f"{board.name(b)} is already occupied.", step=0, rule="R-E1")

    def legal_moves(self, state: PlurState, limit: int | None = None) -> LegalMoves:
        """Every empty cell, and ``swap`` when the pie rule allows it (R-E1a)."""
        if state.to_move is None:
            return LegalMoves([], complete=True)
        moves = state.board.names(state.empty) + (["swap"] if state.may_swap else [])
        truncated = limit is not None and len(moves) > limit
        return LegalMoves(moves[:limit] if limit is not None else moves, truncated, complete=True)

    def setup_options(self, state: PlurState) -> Json:
        return self.board_setup_options(state)

    # -- ends ----------------------------------------------------------------------------

    def _finished(self, state: PlurState, winner: int | None, end: str) -> PlurState:
        return PlurState(
            state.board, state.pie, state.stones, state.groups, state.blocked, None, state.ply, winner, end, state.empty
        )

    def decided_by(self, state: PlurState) -> Json:
        """The full board's groups and the step of R-E1's ladder that decided."""
        if state.end != "full":
            return {}
        return {"groups": [state.sizes(0), state.sizes(1)], "ladder": ladder(state.groups)}
