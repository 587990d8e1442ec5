"""Catchup (seeds 000, 001, 004; RULES R-C1 to R-C5).

A position keeps, per player, the bit set of their stones and the tuple of
their groups (each a bit set).  Placing a stone merges the groups it touches
(a few ``&`` on small ints), so a move never re-floods the board: that is the
hot path of the random-game benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.errors import BadOptions, BadState, IllegalMove, InvalidMove
from engine.game import Game, Json, LegalMoves, MoveInput
from engine.groups import groups as find_groups
from engine.hexboard import HexBoard, hexhex

VERSION = 1
VARIANTS = ("standard", "mindsports", "bolanos")
ALIASES = {"genius": "standard", "littlegolem": "standard", "ludii": "mindsports"}
MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 3, 10, 5  # R-C5

Move = tuple[int, ...]  # the cells of one turn, in the order given


@dataclass(frozen=True, slots=True)
class CatchupState:
    variant: str
    board: HexBoard
    stones: tuple[int, int]  # bit set of each player's stones
    # each player's groups as bit sets; derived from stones, so not part of equality
    groups: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)
    scores: tuple[int, int]  # R-C2 score track: largest group, at least 1
    blocked: int  # cells removed from the board
    to_move: int | None  # None once finished
    ply: int
    bonus: bool  # the player to move may place 3 (R-C3)
    winner: int | None
    end: str | None = None  # None while ongoing; "full" (R-C4), "resign" or "flag" (R-T1)

    @property
    def empty(self) -> int:
        return self.board.mask & ~self.blocked & ~self.stones[0] & ~self.stones[1]

    @property
    def first_turn(self) -> bool:
        return not (self.stones[0] | self.stones[1])


def _placed_count_feasible(c0: int, c1: int, to_move: int) -> bool:
    """Can player 0 (first turn 1 stone, later 1-3) and player 1 (1-3 a turn)
    have ``c0``/``c1`` stones with ``to_move`` next?  (R-C1)"""
    if c0 == 0 and c1 == 0:
        return to_move == 0
    if to_move == 1:  # player 0 made t+1 turns, player 1 made t
        lo = max(c1 // 3 + (c1 % 3 > 0), (c0 - 1) // 3 + ((c0 - 1) % 3 > 0), 0)
        hi = min(c1, c0 - 1)
        return c0 >= 1 and lo <= hi
    # to_move == 0: both made t >= 1 turns
    lo = max(1, c1 // 3 + (c1 % 3 > 0), (c0 + 1) // 3 + ((c0 + 1) % 3 > 0))
    hi = min(c0, c1)
    return lo <= hi


def compare_groups(a: list[int], b: list[int]) -> int:
    """R-C4 tie-break: sizes largest first, position by position, shorter list
    padded with 0.  Returns 1 if ``a`` wins, -1 if ``b`` wins, 0 if equal."""
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else 0
        y = b[i] if i < len(b) else 0
        if x != y:
            return 1 if x > y else -1
    return 0


class Catchup(Game[CatchupState, Move]):
    name = "catchup"
    title = "Catchup"

    # -- options ---------------------------------------------------------------

    def describe(self) -> Json:
        return {
            "name": self.name,
            "title": self.title,
            "variants": list(VARIANTS),
            "aliases": dict(ALIASES),
            "options": {
                "variant": {"type": "string", "default": "standard", "choices": list(VARIANTS) + sorted(ALIASES)},
                "size": {"type": "integer", "default": DEFAULT_SIZE, "min": MIN_SIZE, "max": MAX_SIZE},
                "position": {"type": "object", "default": None, "description": "set-up board: {cell: 0|1}"},
                "blocked": {"type": "array", "default": [], "description": "cells removed from the board"},
                "to_move": {"type": "integer", "default": None, "description": "player to move in a set-up position"},
                "bonus": {"type": "boolean", "default": False, "description": "the player to move may place 3"},
            },
        }

    @staticmethod
    def _variant(raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> str:
        if not isinstance(raw, str):
            raise err(field, f"variant must be a string, one of {', '.join(VARIANTS)}.")
        v = ALIASES.get(raw.lower(), raw.lower())
        if v not in VARIANTS:
            raise err(field, f"Unknown variant '{raw}': use one of {', '.join(VARIANTS + tuple(ALIASES))}.")
        return v

    @staticmethod
    def _size(raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or not MIN_SIZE <= raw <= MAX_SIZE:
            raise err(field, f"size must be an integer from {MIN_SIZE} to {MAX_SIZE} (R-C5).")
        return raw

    def new(self, options: Mapping[str, Any]) -> CatchupState:
        if not isinstance(options, Mapping):
            raise BadOptions("options", "options must be an object.")
        known = {"variant", "size", "position", "blocked", "to_move", "bonus"}
        for key in options:
            if key not in known:
                raise BadOptions(f"options.{key}", f"Catchup has no option '{key}'.")
        variant = self._variant(options.get("variant", "standard"), "options.variant", BadOptions)
        board = hexhex(self._size(options.get("size", DEFAULT_SIZE), "options.size", BadOptions))
        blocked = self._read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        stones = self._read_board(board, options.get("position") or {}, blocked, "options.position", BadOptions)
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        to_move = options.get("to_move")
        if to_move is None:
            to_move = 1 if c0 > c1 else 0
        if isinstance(to_move, bool) or to_move not in (0, 1):
            raise BadOptions("options.to_move", "to_move must be 0 or 1.")
        if not _placed_count_feasible(c0, c1, to_move):
            raise BadOptions(
                "options.to_move",
                f"Player {to_move} cannot be to move with {c0} stones of player 0 and {c1} of player 1 (R-C1).",
            )
        bonus = options.get("bonus", False)
        if not isinstance(bonus, bool):
            raise BadOptions("options.bonus", "bonus must be true or false.")
        state = self._build(variant, board, stones, blocked, to_move, 0, bonus)
        self._check_bonus(state, "options.bonus", BadOptions)
        return state

    def _build(
        self, variant: str, board: HexBoard, stones: tuple[int, int], blocked: int, to_move: int, ply: int, bonus: bool
    ) -> CatchupState:
        g0 = tuple(find_groups(board, stones[0]))
        g1 = tuple(find_groups(board, stones[1]))
        scores = (max([1] + [g.bit_count() for g in g0]), max([1] + [g.bit_count() for g in g1]))
        state = CatchupState(variant, board, stones, (g0, g1), scores, blocked, to_move, ply, bonus, None)
        if not state.empty:
            state = replace(state, to_move=None, bonus=False, winner=self._winner(state), end="full")
        return state

    # -- the JSON form ---------------------------------------------------------

    def dump(self, state: CatchupState) -> Json:
        board = state.board
        cells: dict[str, int] = {}
        for b in board.cells:
            if state.stones[0] >> b & 1:
                cells[board.name(b)] = 0
            elif state.stones[1] >> b & 1:
                cells[board.name(b)] = 1
        return {
            "game": self.name,
            "version": VERSION,
            "options": {"variant": state.variant, "size": board.side},
            "status": "finished" if state.to_move is None else "ongoing",
            "to_move": state.to_move,
            "ply": state.ply,
            "winner": state.winner,
            "end": state.end,
            "scores": list(state.scores),
            "board": cells,
            "blocked": board.names(state.blocked),
            "bonus": state.bonus,
            "max_stones": self.max_stones(state),
        }

    def load(self, data: Mapping[str, Any]) -> CatchupState:
        if not isinstance(data, Mapping):
            raise BadState("state", "state must be an object.")
        if data.get("game") != self.name:
            raise BadState("state.game", f"state.game must be '{self.name}'.")
        if data.get("version", VERSION) != VERSION:
            raise BadState("state.version", f"Unsupported state version {data.get('version')!r}; this server reads {VERSION}.")
        opts = data.get("options")
        if not isinstance(opts, Mapping):
            raise BadState("state.options", "state.options must be an object.")
        for key in opts:
            if key not in ("variant", "size"):
                raise BadState(f"state.options.{key}", f"A Catchup state's options hold only variant and size, not '{key}'.")
        variant = self._variant(opts.get("variant", "standard"), "state.options.variant", BadState)
        board = hexhex(self._size(opts.get("size", DEFAULT_SIZE), "state.options.size", BadState))
        blocked = self._read_blocked(board, data.get("blocked", []), "state.blocked", BadState)
        stones = self._read_board(board, data.get("board"), blocked, "state.board", BadState)
        ply = data.get("ply")
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise BadState("state.ply", "ply must be a whole number, 0 or more.")
        bonus = data.get("bonus", False)
        if not isinstance(bonus, bool):
            raise BadState("state.bonus", "bonus must be true or false.")
        full = not (board.mask & ~blocked & ~stones[0] & ~stones[1])
        to_move = data.get("to_move")
        if full:
            if to_move is not None:
                raise BadState("state.to_move", "The board is full, so the game is over and to_move must be null (R-C4).")
            to_move = 0  # placeholder for _build, which finishes the game
        elif isinstance(to_move, bool) or to_move not in (0, 1):
            raise BadState("state.to_move", "to_move must be 0 or 1 while the board has empty cells.")
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        if not full and not _placed_count_feasible(c0, c1, to_move):
            raise BadState(
                "state.to_move",
                f"Player {to_move} cannot be to move with {c0} stones of player 0 and {c1} of player 1 (R-C1).",
            )
        state = self._build(variant, board, stones, blocked, to_move, ply, bonus and not full)
        state = replace(state, ply=ply)
        if full and bonus:
            raise BadState("state.bonus", "A finished game has no bonus.")
        self._check_bonus(state, "state.bonus", BadState)
        expect = self.dump(state)
        for key in ("status", "winner", "scores", "max_stones"):
            if key in data and data[key] != expect[key]:
                what = {
                    "scores": "the score track must equal each player's largest group, at least 1 (R-C2)",
                    "winner": "the winner follows from the full board (R-C4)",
                    "status": "status follows from the board (the game ends when it is full)",
                    "max_stones": "max_stones follows from the turn and the bonus (R-C1)",
                }[key]
                raise BadState(f"state.{key}", f"state.{key} is {data[key]!r} but {what}: expected {expect[key]!r}.")
        return state

    def _check_bonus(self, state: CatchupState, field: str, err: type[BadOptions] | type[BadState]) -> None:
        if not state.bonus or state.to_move is None:
            return
        p = state.to_move
        if state.first_turn:
            raise err(field, "The first turn places exactly one stone, so there can be no bonus (R-C1).")
        if state.variant == "bolanos":
            raise err(field, "The bolanos variant has no 3-stone turns (R-C3).")
        mine, theirs = state.scores[p], state.scores[1 - p]
        if state.variant == "standard" and theirs < mine:
            raise err(field, "A bonus needs the opponent to have led: their score cannot be below yours (R-C3).")
        if state.variant == "mindsports" and theirs <= mine:
            raise err(field, "A bonus needs the opponent to have made the largest group on the board (R-C3).")

    @staticmethod
    def _read_blocked(board: HexBoard, raw: Any, field: str, err: type[BadOptions] | type[BadState]) -> int:
        if not isinstance(raw, list):
            raise err(field, "blocked must be a list of cells.")
        out = 0
        for i, name in enumerate(raw):
            if not isinstance(name, str) or not board.has(name):
                raise err(f"{field}.{i}", f"{name!r} is not a cell of this board.")
            b = board.parse_cell(name)
            if out >> b & 1:
                raise err(f"{field}.{i}", f"{name.upper()} is listed twice.")
            out |= 1 << b
        return out

    @staticmethod
    def _read_board(
        board: HexBoard, raw: Any, blocked: int, field: str, err: type[BadOptions] | type[BadState]
    ) -> tuple[int, int]:
        if not isinstance(raw, Mapping):
            raise err(field, "board must be an object mapping cells to 0 or 1.")
        s = [0, 0]
        for name, who in raw.items():
            if not isinstance(name, str) or not board.has(name):
                raise err(f"{field}.{name}", f"{name} is not a cell of a side-{board.side} board.")
            if isinstance(who, bool) or who not in (0, 1):
                raise err(f"{field}.{name}", f"A cell holds player 0 or 1, not {who!r}.")
            b = board.parse_cell(name)
            if blocked >> b & 1:
                raise err(f"{field}.{name}", f"{name.upper()} is blocked, so no stone can be on it.")
            if (s[0] | s[1]) >> b & 1:
                raise err(f"{field}.{name}", f"{name.upper()} is given twice.")
            s[who] |= 1 << b
        return s[0], s[1]

    # -- moves -----------------------------------------------------------------

    def max_stones(self, state: CatchupState) -> int:
        """How many stones the player to move may place (R-C1, R-C3)."""
        if state.to_move is None:
            return 0
        if state.first_turn:
            allowance = 1
        elif state.bonus:
            allowance = 3
        else:
            allowance = 2
        return min(allowance, state.empty.bit_count())

    def parse(self, state: CatchupState, text: MoveInput) -> Move:
        if isinstance(text, str):
            return tuple(state.board.parse_cells(text))
        if not text:
            raise InvalidMove("The move is empty: name at least one cell.", code="empty_move")
        cells = []
        for i, t in enumerate(text):
            if not isinstance(t, str):
                raise InvalidMove(f"Step {i + 1} of the move is not a cell name.", step=i)
            cells.append(state.board.parse_cell(t.strip(), step=i))
        return tuple(cells)

    def notation(self, state: CatchupState, move: Move) -> str:
        return " ".join(state.board.name(b) for b in move)

    def apply(self, state: CatchupState, move: Move) -> tuple[CatchupState, list[Json]]:
        p = state.to_move
        if p is None:
            raise IllegalMove("game_over", "The game is over: no more moves can be played.")
        board = state.board
        n = len(move)
        limit = self.max_stones(state)
        if n == 0:
            raise IllegalMove("empty_move", "A turn places at least one stone; passing is not allowed (R-C1).")
        if n > limit:
            if state.first_turn:
                why = "the first turn of the game places exactly one stone"
            elif limit < (3 if state.bonus else 2):
                why = f"only {limit} empty cell{'s are' if limit > 1 else ' is'} left"
            elif state.bonus:
                why = "even with the bonus a turn places at most 3"
            elif state.variant == "bolanos":
                why = "the bolanos rules allow 1 or 2 stones a turn"
            else:
                why = "the opponent did not lead on their last turn, so no third stone is due"
            raise IllegalMove(
                "too_many_stones",
                f"You may place at most {limit} stone{'s' if limit > 1 else ''} this turn, not {n}: {why} (R-C1).",
                step=limit,
            )
        mine = state.stones[p]
        theirs = state.stones[1 - p]
        placed = 0
        for i, b in enumerate(move):
            bit = 1 << b
            if state.blocked & bit:
                raise IllegalMove("blocked", f"{board.name(b)} is blocked: it is not part of the board.", step=i)
            if placed & bit:
                raise IllegalMove(
                    "duplicate_cell", f"{board.name(b)} is named twice: the stones of a turn go on different cells.", step=i
                )
            if (mine | theirs) & bit:
                raise IllegalMove("occupied", f"{board.name(b)} is already occupied.", step=i)
            placed |= bit

        # Merge each new stone into the groups it touches.
        groups = list(state.groups[p])
        nbrs = board.neighbours
        for b in move:
            touch = nbrs[b]
            merged = 1 << b
            keep = []
            for g in groups:
                if g & touch:
                    merged |= g
                else:
                    keep.append(g)
            keep.append(merged)
            groups = keep
        largest = max(g.bit_count() for g in groups)
        old_score = state.scores[p]
        new_score = max(old_score, largest)
        opp_score = state.scores[1 - p]

        if state.variant == "bolanos" and n == 2:
            # R-C3 bolanos: two stones only if the board's largest group keeps its size.
            before = max(state.scores) if (mine | theirs) else 0
            after = max(new_score, opp_score)
            if after != before:
                raise IllegalMove(
                    "largest_group_grew",
                    f"Two stones are allowed only if the largest group on the board stays at {before}; "
                    f"{self.notation(state, move)} makes it {after} (R-C3, bolanos).",
                    step=1,
                )

        if state.variant == "standard":
            bonus = new_score > old_score and new_score >= opp_score  # R-C3 leading
        elif state.variant == "mindsports":
            bonus = largest > max(1, old_score, opp_score)  # R-C3 mindsports
        else:
            bonus = False

        stones = (mine | placed, theirs) if p == 0 else (theirs, mine | placed)
        all_groups = (tuple(groups), state.groups[1]) if p == 0 else (state.groups[0], tuple(groups))
        scores = (new_score, opp_score) if p == 0 else (opp_score, new_score)
        events: list[Json] = [{"type": "place", "player": p, "cells": [board.name(b) for b in move]}]
        if new_score != old_score:
            events.append({"type": "score", "player": p, "from": old_score, "to": new_score})
        new = CatchupState(state.variant, board, stones, all_groups, scores, state.blocked, 1 - p, state.ply + 1, bonus, None)
        if not new.empty:
            winner = self._winner(new)
            new = CatchupState(
                state.variant, board, stones, all_groups, scores, state.blocked, None, new.ply, False, winner, "full"
            )
            events.append({"type": "end", "winner": winner, "groups": [self.group_sizes(new, 0), self.group_sizes(new, 1)]})
        elif bonus:
            events.append({"type": "bonus", "player": 1 - p, "max_stones": min(3, new.empty.bit_count())})
        return new, events

    # -- listing and outcome ---------------------------------------------------

    def legal_moves(self, state: CatchupState, limit: int | None = None) -> LegalMoves:
        """The legal single cells; a turn is any ``max_stones`` of them (bolanos
        adds its two-stone condition, checked by ``play``)."""
        if state.to_move is None:
            return LegalMoves([], info={"max_stones": 0, "bonus": False})
        names = state.board.names(state.empty)
        truncated = limit is not None and len(names) > limit
        if limit is not None:
            names = names[:limit]
        return LegalMoves(names, truncated, {"max_stones": self.max_stones(state), "bonus": state.bonus})

    def is_over(self, state: CatchupState) -> bool:
        return state.to_move is None

    def resign(self, state: CatchupState, player: int) -> tuple[CatchupState, list[Json]]:
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: nobody can resign.")
        winner = 1 - player
        new = replace(state, to_move=None, bonus=False, winner=winner, end="resign")
        return new, [{"type": "resign", "player": player}, {"type": "end", "winner": winner, "end": "resign"}]

    def timeout(self, state: CatchupState) -> tuple[CatchupState, list[Json]]:
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: nobody can flag.")
        p = state.to_move
        new = replace(state, to_move=None, bonus=False, winner=1 - p, end="flag")  # R-T1: the flagged player loses
        return new, [{"type": "flag", "player": p}, {"type": "end", "winner": 1 - p, "end": "flag"}]

    @staticmethod
    def group_sizes(state: CatchupState, player: int) -> list[int]:
        return sorted((g.bit_count() for g in state.groups[player]), reverse=True)

    def _winner(self, state: CatchupState) -> int | None:
        c = compare_groups(self.group_sizes(state, 0), self.group_sizes(state, 1))
        return 0 if c > 0 else 1 if c < 0 else None  # R-C4: a draw cannot occur on hexhex, but report it
