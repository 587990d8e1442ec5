"""Product (seed 001; RULES R-E4, R-E4a, R-E4b on the boards of R-H1 to R-H4).

Player 0 owns the black stones and moves first, player 1 the white.  On a
turn a player places stones of *either* colour on empty cells, each written
colour then cell as in Too (``B D4``), the stones of one turn separated by
spaces or commas in any order (``B D4 W E5``, ``w e5, b d4``).  The game ends
when the board is full; a player's score is the product of the sizes of their
colour's two largest groups (R-E4), a missing group counting 0 or, with
``lone_group: size``, 1 (R-E4b).  How many stones a turn places and how equal
products are broken depend on the variant (R-E4a):

* ``produto`` (default): the first turn places one stone, every later turn
  two (one when a single empty cell is left); equal products go to the
  player with fewer stones of their colour, equal counts too are a draw;
* ``bentley``: every turn places one stone; equal products are a draw;
* ``abstractplay``: turns as in produto; equal products go to player 0.

The board holds colours, and the colours are owned: ``board`` maps a cell to 0
(black, player 0's) or 1 (white, player 1's).  A move is written back in one
canonical order, black's stones first, each colour's in reading order of the
board (``B D4 W E5``), so the same turn always reads the same.

A position keeps each colour's stones as a bit set and its groups as a tuple
of bit sets; a stone merges only the groups of its colour it touches, as in
Too (engine/games/too/rules.py), so a move never re-floods the board.

Choices where the texts are silent (tested):

* "the first turn" is a turn that finds the board without stones, so a set-up
  position's next turn places two stones unless the board is empty;
* ``to_move`` of a set-up position may name either player: either colour may
  have been placed by either player.  Its ``ply`` is the number of turns a game
  takes to place that many stones (produto: 1 + n // 2 for n > 0; bentley: n),
  plus one when the player named is not the one that count gives, so that
  ``ply`` stays even exactly when player 0 is to move;
* a turn naming one cell twice is refused (``duplicate_cell``), where
  AbstractPlay takes ``B H1 W H1`` as a two-stone turn placing one stone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove, InvalidMove
from engine.game import Game, Json, LegalMoves, MoveInput, Steps, movers_at_end
from engine.groups import groups as find_groups
from engine.groups import place
from engine.hexboard import MAX_SIDE, MIN_SIDE, HexBoard, hexhex
from engine.options import BLOCKED, TO_MOVE, Option, ref
from engine.stateio import COMMON_FIELDS, cells_json, check_frame, read_blocked, read_board

VERSION = 1
DEFAULT_SIZE = 5
VARIANTS = ("produto", "bentley", "abstractplay")  # R-E4a
LONE_GROUP = ("zero", "size")  # R-E4b
COLOURS = ("black", "white")  # the board's values 0 and 1, owned by players 0 and 1
LETTERS = {"b": 0, "black": 0, "w": 1, "white": 1, "B": 0, "W": 1}
STATE_FIELDS = (*COMMON_FIELDS, "blocked", "stones_due")

# What decided a full board (the ``decided_by`` of the end event, R-E4a).
PRODUCTS, FEWER_STONES, FIRST_PLAYER, DRAW = "products", "fewer_stones", "first_player", "draw"

OPTIONS = (
    Option("size", "integer", DEFAULT_SIZE, "side of the hexhex board", min=MIN_SIDE, max=MAX_SIDE, rule="R-E4"),
    Option(
        "variant", "string", "produto",
        "stones a turn places and how equal products are broken: produto (1, then 2; fewer stones win), "
        "bentley (1 a turn; a draw), abstractplay (1, then 2; player 0 wins)",
        choices=VARIANTS, rule="R-E4a",
    ),
    Option(
        "lone_group", "string", "zero",
        "what a colour's missing groups count in its product: zero, or size (AbstractPlay's 'one group needed', 1 each)",
        choices=LONE_GROUP, rule="R-E4b",
    ),
    Option(
        "position", "object", None, "set-up board: each occupied cell and its colour, 0 black (player 0's) or 1 white",
        setup=True, schema=ref("HexBoardCells"),
    ),
    BLOCKED,
    TO_MOVE,
)  # fmt: skip

STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["blocked", "stones_due"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["size", "variant", "lone_group"],
            "additionalProperties": False,
            "properties": {
                "size": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE},
                "variant": {"type": "string", "enum": list(VARIANTS)},
                "lone_group": {"type": "string", "enum": list(LONE_GROUP)},
            },
        },
        "scores": {
            "items": {"type": "integer", "minimum": 0},
            "description": "Each player's product: the sizes of their colour's two largest groups multiplied, "
            "black's (player 0's) first (R-E4, with R-E4b for a colour with fewer than two groups).",
        },
        "board": {
            **ref("HexBoardCells"),
            "description": "Occupied cells only; the value is the stone's colour, 0 black (player 0's), 1 white (player 1's).",
        },
        "blocked": ref("CellList"),
        "stones_due": {
            "type": "integer", "minimum": 0, "maximum": 2,
            "description": "How many stones the turn to move places (R-E4a); 0 once finished.",
        },
    },
}  # fmt: skip

Move = tuple[tuple[int, int], ...]  # (colour, cell) per stone, in the order given
_SPLIT = re.compile(r"[\s,]+")


def top_two(groups: tuple[int, ...], missing: int) -> tuple[int, int]:
    """The sizes of the two largest groups, ``missing`` for each one absent (R-E4, R-E4b)."""
    a = b = 0
    for g in groups:
        n = g.bit_count()
        if n > a:
            a, b = n, a
        elif n > b:
            b = n
    if len(groups) < 2:
        return (a if groups else missing), missing
    return a, b


def product(groups: tuple[int, ...], missing: int) -> int:
    """A colour's score: its two largest groups multiplied (R-E4)."""
    a, b = top_two(groups, missing)
    return a * b


def turns(variant: str, stones: int) -> int:
    """How many turns a game takes to place ``stones`` stones (R-E4a): one each
    in bentley; in produto and abstractplay one on the first turn, then two."""
    if variant == "bentley" or stones == 0:
        return stones
    return 1 + stones // 2


def ply_for(variant: str, stones: int, to_move: int) -> int:
    """The ply of a position of ``stones`` stones with ``to_move`` next: the
    turns it took, plus one when the player named is not the one they give."""
    base = turns(variant, stones)
    return base if base % 2 == to_move else base + 1


@dataclass(slots=True)
class ProductState:
    """One position.  Treated as an immutable value (not ``frozen``, for speed,
    as :class:`engine.games.catchup.rules.CatchupState`)."""

    variant: str
    lone_group: str
    board: HexBoard
    stones: tuple[int, int]  # black's (player 0's) and white's (player 1's) stones
    groups: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)  # derived from stones
    products: tuple[int, int] = field(compare=False)  # derived: each colour's product (R-E4, R-E4b)
    blocked: int
    to_move: int | None
    ply: int
    winner: int | None
    end: str | None
    empty: int = field(compare=False)  # derived

    @property
    def missing(self) -> int:
        """What a missing group counts (R-E4b)."""
        return 1 if self.lone_group == "size" else 0

    def sizes(self, colour: int) -> list[int]:
        return sorted((g.bit_count() for g in self.groups[colour]), reverse=True)

    def factors(self, colour: int) -> tuple[int, int]:
        """The two numbers multiplied for ``colour``'s product (R-E4, R-E4b)."""
        return top_two(self.groups[colour], self.missing)

    @property
    def scores(self) -> list[int]:
        return list(self.products)

    @property
    def stones_due(self) -> int:
        """How many stones the turn to move places (R-E4a)."""
        if self.to_move is None:
            return 0
        if self.variant == "bentley" or not (self.stones[0] | self.stones[1]) or (self.empty & (self.empty - 1)) == 0:
            return 1  # bentley; the first turn; a single empty cell left
        return 2


def decide(variant: str, products: Sequence[int], stones: Sequence[int]) -> tuple[int | None, str]:
    """The winner of a full board with these products and stone counts (black's
    first), and what decided it: the products, or the variant's tie-break (R-E4a)."""
    s0, s1 = products
    if s0 != s1:
        return (0 if s0 > s1 else 1), PRODUCTS
    if variant == "abstractplay":
        return 0, FIRST_PLAYER
    if variant == "produto" and stones[0] != stones[1]:
        return (0 if stones[0] < stones[1] else 1), FEWER_STONES
    return None, DRAW


def factors_of(sizes: Sequence[int], lone_group: str) -> tuple[int, int]:
    """The two numbers a colour with these group sizes multiplies (R-E4, R-E4b)."""
    missing = 1 if lone_group == "size" else 0
    top = sorted(sizes, reverse=True)[:2]
    return (top[0] if top else missing), (top[1] if len(top) > 1 else missing)


def judge(state: ProductState) -> tuple[int | None, str]:
    """The winner of a full board and what decided it (R-E4, R-E4a)."""
    return decide(state.variant, state.products, (state.stones[0].bit_count(), state.stones[1].bit_count()))


class Product(Game[ProductState, Move]):
    name = "product"
    title = "Product"
    natural_ends = ("full",)  # R-E4: the board is full
    move_rule = "R-E4"
    end_rule = "R-E4"
    turn_needs = "every turn places its stones, black or white"
    move_codes = {  # the codes of its illegal moves beside the common ones (engine/errors.py)
        "duplicate_cell": "a cell named twice in one turn (R-E4)",
        "too_few_stones": "fewer stones than the turn places (R-E4a)",
    }
    options = OPTIONS
    state_schema = STATE_SCHEMA
    presets = {"product": seconds(60, 300, 1, "loses")}  # Catchup's clock (R-T2) fits its ancestor

    # -- building states -------------------------------------------------------------

    def _build(
        self, variant: str, lone: str, board: HexBoard, stones: tuple[int, int], blocked: int, to_move: int, ply: int
    ) -> ProductState:
        """A state from a board; finished when the board is full (R-E4)."""
        groups = (tuple(find_groups(board, stones[0])), tuple(find_groups(board, stones[1])))
        missing = 1 if lone == "size" else 0
        products = (product(groups[0], missing), product(groups[1], missing))
        empty = board.mask & ~blocked & ~stones[0] & ~stones[1]
        state = ProductState(variant, lone, board, stones, groups, products, blocked, to_move, ply, None, None, empty)
        if not empty:
            state.to_move, state.end = None, "full"  # still being built
            state.winner = judge(state)[0]
        return state

    def new(self, options: Mapping[str, Any]) -> ProductState:
        options = self.check_options(options)
        board = hexhex(self.read_option(options, "size"))
        variant = self.read_option(options, "variant")
        lone = self.read_option(options, "lone_group")
        blocked = read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        raw = options.get("position")
        stones = read_board(board, {} if raw is None else raw, blocked, "options.position", BadOptions, piece="stone")
        n = stones[0].bit_count() + stones[1].bit_count()
        to_move = self.read_option(options, "to_move")
        if to_move is None:
            to_move = turns(variant, n) % 2
        return self._build(variant, lone, board, stones, blocked, to_move, ply_for(variant, n, to_move))

    # -- the JSON form ---------------------------------------------------------------

    def dump(self, state: ProductState) -> Json:
        board = state.board
        return {
            **self.state_head(state, VERSION, {"size": board.side, "variant": state.variant, "lone_group": state.lone_group}),
            "scores": state.scores,
            "board": cells_json(board, *state.stones),
            "blocked": board.names(state.blocked),
            "stones_due": state.stones_due,
        }

    def load(self, data: Mapping[str, Any]) -> ProductState:
        """A client's state, checked field by field; nothing is taken on trust."""
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = self.read_state_options(data, ("size", "variant", "lone_group"))
        board, variant, lone = hexhex(opts["size"]), opts["variant"], opts["lone_group"]
        blocked = read_blocked(board, data["blocked"], "state.blocked", BadState)
        stones = read_board(board, data["board"], blocked, "state.board", BadState, piece="stone")
        full = not (board.mask & ~blocked & ~stones[0] & ~stones[1])
        if full and data["end"] != "full":
            raise BadState("state.end", f"The board is full, so the game has ended with end 'full' (R-E4), not {data['end']!r}.")
        if not full and data["end"] == "full":
            raise BadState("state.end", "end is 'full' but the board still has empty cells.")
        end, to_move, winner = self.read_end(data)
        n = stones[0].bit_count() + stones[1].bit_count()
        # who could be to move: the one named while ongoing; the loser of a flag; anyone otherwise
        movers = (to_move,) if to_move is not None else movers_at_end(end or "", winner)
        plies = {ply_for(variant, n, p): p for p in movers}
        ply = data["ply"]
        if ply not in plies:
            want = " or ".join(str(p) for p in sorted(plies))
            raise BadState(
                "state.ply",
                f"ply must be {want}: the turns that place {n} stone{'s' if n != 1 else ''} in {variant} (R-E4a), "
                "and one more when the other player is to move.",
            )
        state = self._build(variant, lone, board, stones, blocked, plies[ply], ply)
        if end == "full":
            if winner != state.winner:
                raise BadState("state.winner", f"state.winner is {winner!r} but the full board gives {state.winner!r} (R-E4a).")
        elif end is not None:
            state = self._finished(state, winner, end)
        scores = data["scores"]
        if scores != state.scores or not all(type(x) is int for x in scores):
            raise BadState(
                "state.scores",
                f"state.scores is {scores!r} but they are each colour's two largest groups multiplied (R-E4, R-E4b): "
                f"expected {state.scores!r}.",
            )
        due = data["stones_due"]
        if type(due) is not int or due != state.stones_due:
            raise BadState(
                "state.stones_due",
                f"state.stones_due is {due!r} but the turn places {state.stones_due} (R-E4a).",
            )
        return state

    # -- moves -------------------------------------------------------------------------

    def parse(self, state: ProductState, text: MoveInput) -> Move:
        """``B D4 W E5`` / ``w e5, b d4`` / ``["B D4", "W E5"]``: colour then cell, per stone (R-E4)."""
        lookup = state.board.lookup
        if isinstance(text, str):  # the plain case first: "B D4 W E5" as given out
            words = text.split(" ")
            if len(words) in (2, 4):
                out = []
                for i in range(0, len(words), 2):
                    c, b = LETTERS.get(words[i]), lookup(words[i + 1])
                    if c is None or b is None:
                        break
                    out.append((c, b))
                else:
                    return tuple(out)
            words = _SPLIT.split(text.strip())
        else:
            words = []
            for i, t in enumerate(text):
                if not isinstance(t, str):
                    raise InvalidMove(f"A move's steps are a colour and a cell, like B D4, not {t!r}.", step=i, rule="R-E4")
                words += _SPLIT.split(t.strip())
        words = [w for w in words if w]
        if not words:
            raise InvalidMove("The move is empty: name a colour and a cell, like B D4.", code="empty_move", rule="R-E4")
        return tuple(self._stone(state.board, words[i : i + 2], i // 2) for i in range(0, len(words), 2))

    @staticmethod
    def _stone(board: HexBoard, pair: Sequence[str], step: int) -> tuple[int, int]:
        colour = LETTERS.get(pair[0].lower())
        if colour is None:
            raise InvalidMove(
                f"'{pair[0]}' is not a colour: each stone names its colour, B or W, then its cell, like B D4.",
                step=step,
                rule="R-E4",
            )
        if len(pair) < 2:
            raise InvalidMove(
                f"'{pair[0]}' names a colour but no cell: write the cell after it, like B D4.", step=step, rule="R-E4"
            )
        return colour, board.parse_cell(pair[1], step=step)

    @staticmethod
    def canonical(move: Move) -> Move:
        """The stones of a turn in their one written order: black's first, each
        colour's in the board's reading order."""
        return tuple(sorted(move))

    def notation(self, state: ProductState, move: Move) -> str:
        labels = state.board.labels
        if len(move) == 1:
            return ("B " if move[0][0] == 0 else "W ") + labels[move[0][1]]
        return " ".join(f"{'BW'[c]} {labels[b]}" for c, b in sorted(move))

    def apply(self, state: ProductState, move: Move) -> tuple[ProductState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        free = state.empty
        black, white = state.stones
        # R-E4a: one stone in bentley, on the first turn and on a last single cell; else two
        due = 1 if state.variant == "bentley" or not (black | white) or not free & (free - 1) else 2
        if len(move) != due:
            bad = self._first_bad(state, move[:due])  # the first wrong step is a cell's, else the count's
            if bad is not None:
                raise self._bad_cell(state, move, bad)
            raise self._too_many(state, len(move), due) if len(move) > due else self._too_few(state, len(move))
        board = state.board
        nbrs, labels = board.neighbours, board.labels
        groups = [state.groups[0], state.groups[1]]
        events: list[Json] = []
        for c, b in sorted(move) if due == 2 else move:
            bit = 1 << b
            if not free & bit:
                raise self._bad_cell(state, move, self._first_bad(state, move) or 0)
            free ^= bit
            if c:
                groups[1] = place(groups[1], nbrs[b] & white, bit)
                white |= bit
            else:
                groups[0] = place(groups[0], nbrs[b] & black, bit)
                black |= bit
            events.append({"type": "place", "player": p, "color": COLOURS[c], "cells": [labels[b]]})
        products = state.products
        missing = 1 if state.lone_group == "size" else 0
        for c in (0, 1):
            if groups[c] is not state.groups[c]:
                a, a2 = top_two(groups[c], missing)
                if a * a2 != products[c]:
                    events.append({"type": "score", "player": c, "from": products[c], "to": a * a2, "factors": [a, a2]})
                    products = (a * a2, products[1]) if c == 0 else (products[0], a * a2)
        new = ProductState(
            state.variant, state.lone_group, board, (black, white), (groups[0], groups[1]), products, state.blocked,
            1 - p, state.ply + 1, None, None, free,
        )  # fmt: skip
        if free:
            return new, events
        new.to_move, new.end = None, "full"  # R-E4: the board is full; still being built
        new.winner = judge(new)[0]
        events.append({"type": "end", "winner": new.winner, "end": "full", **self.decided_by(new)})
        return new, events

    @staticmethod
    def _first_bad(state: ProductState, move: Move) -> int | None:
        """The first stone of ``move``, in the order given, that cannot go on its
        cell (taken, blocked, or named before in the move); None when none."""
        free = state.empty
        for i, (_, b) in enumerate(move):
            if not free >> b & 1:
                return i
            free ^= 1 << b
        return None

    def _due_why(self, state: ProductState) -> str:
        due = state.stones_due
        if state.variant == "bentley":
            return "in the bentley variant every turn places one stone"
        if not (state.stones[0] | state.stones[1]):
            return "the first turn of the game places one stone"
        if due == 1:
            return "only one empty cell is left"
        return "every turn after the first places two"

    def _too_many(self, state: ProductState, n: int, step: int) -> IllegalMove:
        due = state.stones_due
        return IllegalMove(
            "too_many_stones",
            f"This turn places {due} stone{'s' if due > 1 else ''}, not {n}: {self._due_why(state)}.",
            step=step,
            rule="R-E4a",
        )

    def _too_few(self, state: ProductState, n: int) -> IllegalMove:
        due = state.stones_due
        return IllegalMove(
            "too_few_stones",
            f"This turn places {due} stones, not {n}: {self._due_why(state)}.",
            rule="R-E4a",
        )

    @staticmethod
    def _bad_cell(state: ProductState, move: Move, i: int) -> IllegalMove:
        """Why stone ``i`` of ``move`` cannot go on its cell."""
        board = state.board
        b = move[i][1]
        if state.blocked >> b & 1:
            return IllegalMove("blocked", f"{board.name(b)} is blocked: it is not part of the board.", step=i, rule="R-H4")
        if any(cell == b for _, cell in move[:i]):
            return IllegalMove(
                "duplicate_cell",
                f"{board.name(b)} is named twice: the stones of a turn go on different cells.",
                step=i,
                rule="R-E4",
            )
        return IllegalMove("occupied", f"{board.name(b)} is already occupied.", step=i, rule="R-E4")

    def _moves(self, state: ProductState) -> Iterator[str]:
        """Every legal move in notation: each colour on each empty cell, or each
        colour pair on each pair of empty cells (R-E4, R-E4a)."""
        names = state.board.names(state.empty)
        if state.stones_due == 1:
            for name in names:
                yield f"B {name}"
                yield f"W {name}"
            return
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                yield f"B {a} B {b}"
                yield f"B {a} W {b}"
                yield f"B {b} W {a}"
                yield f"W {a} W {b}"

    def legal_moves(self, state: ProductState, limit: int | None = None) -> LegalMoves:
        """Complete moves, each written in its canonical order (R-E4).  How many
        stones they place is the state's ``stones_due``."""
        if state.to_move is None:
            return LegalMoves([], complete=True)
        if limit is None:
            return LegalMoves(list(self._moves(state)), complete=True)
        moves = list(islice(self._moves(state), limit + 1))
        return LegalMoves(moves[:limit], len(moves) > limit, complete=True)

    def split_move(self, move: str) -> list[str]:
        """A move's steps are its stones, colour and cell together: ``["B D4", "W E5"]`` (the words
        separated by spaces and/or commas, as the parser takes them); a last word without its pair
        is a step of its own (a stone being written: ``"B D4, W"`` -> ``["B D4", "W"]``)."""
        words = [w for w in _SPLIT.split(move.strip()) if w]
        return [" ".join(words[i : i + 2]) for i in range(0, len(words), 2)]

    def next_steps(self, state: ProductState, prefix: Sequence[str]) -> Steps:
        """After the stones chosen so far (in any order): each colour on each
        empty cell not yet chosen, until the turn has its stones (R-E4a)."""
        if state.to_move is None:
            raise self.game_over()
        move: Move = ()
        for i, raw in enumerate(prefix):
            if not isinstance(raw, str):
                raise InvalidMove(f"A step is a colour and a cell, like B D4, not {raw!r}.", step=i, rule="R-E4")
            words = [w for w in _SPLIT.split(raw.strip()) if w]
            if len(words) != 2:
                raise InvalidMove(
                    f"{raw.strip()!r} is not one stone: a step is a colour and a cell, like B D4.", step=i, rule="R-E4"
                )
            stone = self._stone(state.board, words, i)
            move = (*move, stone)
            if i >= state.stones_due:
                raise self._too_many(state, len(prefix), i)
            if not state.empty >> stone[1] & 1 or any(b == stone[1] for _, b in move[:i]):
                raise self._bad_cell(state, move, i)
        labels = state.board.labels
        written = [f"{'BW'[c]} {labels[b]}" for c, b in move]
        complete = len(move) == state.stones_due
        steps: list[str] = []
        if not complete:
            taken = 0
            for _, b in move:
                taken |= 1 << b
            steps = [f"{c} {name}" for name in state.board.names(state.empty & ~taken) for c in "BW"]
        return Steps(written, steps, complete, self.notation(state, move) if complete else None)

    def setup_options(self, state: ProductState) -> Json:
        return self.board_setup_options(state)

    # -- ends ----------------------------------------------------------------------------

    def _finished(self, state: ProductState, winner: int | None, end: str) -> ProductState:
        return ProductState(
            state.variant, state.lone_group, state.board, state.stones, state.groups, state.products, state.blocked, None,
            state.ply, winner, end, state.empty,
        )  # fmt: skip

    def decided_by(self, state: ProductState) -> Json:
        """What decided a full board (R-E4a): ``products``, or the tie-break
        (``fewer_stones``, ``first_player``, or ``draw``); the products with
        their factors, every group's size and each colour's stones."""
        if state.end != "full":
            return {}
        return {
            "decided_by": judge(state)[1],
            "products": state.scores,
            "factors": [list(state.factors(0)), list(state.factors(1))],
            "groups": {"black": state.sizes(0), "white": state.sizes(1)},
            "stones": [state.stones[0].bit_count(), state.stones[1].bit_count()],
        }
