"""Catchup (seeds 000, 001, 004; RULES R-C1 to R-C5).

A position keeps, per player, the bit set of their stones and the tuple of
their groups (each a bit set), plus the bit set of empty cells.  Placing a
stone merges only the groups it touches (a few ``&`` on small ints), so a move
never re-floods the board and never re-measures groups it did not touch: that
is the hot path of the random-game benchmark (``python -m bench catchup``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove
from engine.game import Game, Json, LegalMoves, MoveInput, Steps, movers_at_end
from engine.groups import groups as find_groups
from engine.groups import place
from engine.hexboard import HexBoard, hexhex, iter_bits
from engine.options import BLOCKED, TO_MOVE, Option, position, ref
from engine.stateio import COMMON_FIELDS, cells_json, check_frame, read_blocked, read_board

VERSION = 1
VARIANTS = ("standard", "mindsports", "bolanos")
ALIASES = {"genius": "standard", "littlegolem": "standard", "ludii": "mindsports"}
MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 3, 10, 5  # R-C5

OPTIONS = (
    Option(
        "variant", "string", "standard", "when the 3-stone bonus is due", choices=VARIANTS,
        aliases=tuple(ALIASES.items()), rule="R-C3",
    ),
    Option("size", "integer", DEFAULT_SIZE, "side of the hexhex board", min=MIN_SIZE, max=MAX_SIZE, rule="R-C5"),
    position("stone"),
    BLOCKED,
    TO_MOVE,
    Option("bonus", "boolean", False, "the player to move may place 3 stones", rule="R-C3", setup=True),
)  # fmt: skip

STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["blocked", "bonus", "max_stones"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["variant", "size"],
            "additionalProperties": False,
            "properties": {
                "variant": {"type": "string", "enum": list(VARIANTS)},
                "size": {"type": "integer", "minimum": MIN_SIZE, "maximum": MAX_SIZE},
            },
        },
        "scores": {
            "items": {"type": "integer", "minimum": 1},
            "description": "The score track: each player's largest group, at least 1 (R-C2).",
        },
        "board": ref("HexBoardCells"),
        "blocked": ref("CellList"),
        "bonus": {"type": "boolean", "description": "The player to move may place 3 by the catch-up rule (R-C3)."},
        "max_stones": {
            "type": "integer", "minimum": 0, "maximum": 3,
            "description": "How many stones the player to move may place (R-C1).",
        },
    },
}  # fmt: skip

# Every field of a dumped state; load() wants exactly these, so that
# dump(load(x)) == x for any state the engine gave out.
STATE_FIELDS = (*COMMON_FIELDS, "blocked", "bonus", "max_stones")

Move = tuple[int, ...]  # the cells of one turn, in the order given
OptionError = type[BadOptions] | type[BadState]


@dataclass(slots=True)
class CatchupState:
    """One position.  Treated as an immutable value: the engine never changes a
    state, it builds a new one.  (Not ``frozen``: a frozen dataclass pays
    ``object.__setattr__`` per field, measured at 1.2 us against 0.17 us per
    state - a fifth of the whole budget of one move.)"""

    variant: str
    board: HexBoard
    stones: tuple[int, int]  # bit set of each player's stones
    # each player's groups as bit sets, in no particular order; derived from
    # stones, so not part of equality
    groups: tuple[tuple[int, ...], tuple[int, ...]] = field(compare=False)
    scores: tuple[int, int]  # R-C2 score track: largest group, at least 1
    blocked: int  # cells removed from the board (set-up positions)
    to_move: int | None  # None once finished
    ply: int
    bonus: bool  # the player to move may place 3 (R-C3)
    winner: int | None
    end: str | None  # None while ongoing; "full" (R-C4), "resign" or "flag" (R-T1)
    empty: int = field(compare=False)  # empty playing cells; derived from the above

    @property
    def first_turn(self) -> bool:
        """Player 0's opening turn, which places exactly one stone (R-C1)."""
        return not (self.stones[0] | self.stones[1])


def _turn_range(stones: int, opening: int, most: int) -> tuple[int, int]:
    """How many turns can have placed ``stones``, when the first turn places
    1..``opening`` and every later one 1..``most`` stones?  ``(lo, hi)``."""
    if stones == 0:
        return 0, 0
    extra = max(0, stones - opening)
    return 1 + -(-extra // most), stones


def counts_feasible(variant: str, c0: int, c1: int, to_move: int) -> bool:
    """Can a game reach ``c0``/``c1`` stones with ``to_move`` next? (R-C1)

    Player 0 opens with exactly 1 stone.  Player 1's first turn places at most
    2: a single stone never leads (the score stays 1) nor makes a group larger
    than 1, so no bonus is ever due on it (R-C3).  Later turns place up to 3,
    and bolanos never more than 2."""
    most = 2 if variant == "bolanos" else 3
    lo0, hi0 = _turn_range(c0, 1, most)
    lo1, hi1 = _turn_range(c1, 2, most)
    # player 0 has made as many turns as player 1 (to_move 0) or one more (to_move 1)
    return max(lo0, lo1 + to_move) <= min(hi0, hi1 + to_move)


def ply_range(variant: str, c0: int, c1: int, to_move: int) -> tuple[int, int] | None:
    """The plies at which a game can reach ``c0``/``c1`` stones with ``to_move``
    next, ``(fewest, most)``, or None when none can (R-C1).

    A ply is a turn, and turns alternate from player 0, so ``to_move`` is the
    ply's parity: player 0 has made ``(ply + 1) // 2`` turns, player 1 ``ply // 2``.
    Each player's turns are at least the fewest that place their stones and at
    most one per stone; the plies between, of that parity, are all reachable."""
    most = 2 if variant == "bolanos" else 3
    lo0, hi0 = _turn_range(c0, 1, most)
    lo1, hi1 = _turn_range(c1, 2, most)
    # player 1's turns t1; player 0's are t1 + to_move
    lo, hi = max(lo1, lo0 - to_move), min(hi1, hi0 - to_move)
    if lo > hi:
        return None
    return 2 * lo + to_move, 2 * hi + to_move


def reachable(variant: str, c0: int, c1: int, to_move: int, ply: int) -> bool:
    """Does some game reach ``c0``/``c1`` stones at ``ply`` with ``to_move`` next? (R-C1)  What
    ``Catchup._check_counts`` and ``Catchup._check_ply`` together let through: ``load`` asks them only
    when it is not (issue 20), to say what does not fit.

    The ply and its parity give each player's turns (player 1 ``ply // 2``, player 0 that and
    ``to_move``), and turns fit stones when each turn placed at least one and at most its allowance:
    ``turns <= stones <= opening + most * (turns - 1)``, or no stones without a turn.  The same as
    asking :func:`ply_range` (tests/test_play_cost.py holds the two to each other), in a few steps
    rather than three calls: every ``load`` asks it."""
    if ply % 2 != to_move:
        return False
    t1 = ply >> 1
    t0 = t1 + to_move
    most = 2 if variant == "bolanos" else 3
    if t0:
        if not t0 <= c0 <= 1 + most * (t0 - 1):
            return False
    elif c0:
        return False
    if t1:
        return t1 <= c1 <= 2 + most * (t1 - 1)
    return not c1


def _stones(n: int) -> str:
    """``n`` with the right noun: "1 stone", "2 stones"."""
    return f"{n} stone" if n == 1 else f"{n} stones"


def tie_break(a: list[int], b: list[int]) -> tuple[int, int | None]:
    """R-C4 tie-break: sizes largest first, position by position, shorter list
    padded with 0.  Returns ``(1, rank)`` if ``a`` wins, ``(-1, rank)`` if
    ``b`` wins, ``(0, None)`` if equal; ``rank`` is the 1-based position of the
    first difference (seed 000: 11-8-8-3 beats 11-8-7-4-1 at rank 3)."""
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else 0
        y = b[i] if i < len(b) else 0
        if x != y:
            return (1 if x > y else -1), i + 1
    return 0, None


def compare_groups(a: list[int], b: list[int]) -> int:
    """R-C4: 1 if ``a`` wins, -1 if ``b`` wins, 0 if equal (see :func:`tie_break`)."""
    return tie_break(a, b)[0]


class Catchup(Game[CatchupState, Move]):
    name = "catchup"
    title = "Catchup"
    natural_ends = ("full",)  # R-C4: the board is full
    move_rule = "R-C1"
    end_rule = "R-C4"
    turn_needs = "every turn places at least one stone"
    move_codes = {  # the codes of its illegal moves beside the common ones (engine/errors.py)
        "duplicate_cell": "a cell named twice in one turn (R-C1)",
        "largest_group_grew": "bolanos: two stones that change the largest group's size (R-C3)",
    }
    options = OPTIONS
    state_schema = STATE_SCHEMA
    presets = {  # R-T2
        "catchup": seconds(60, 300, 1, "loses"),
        "catchup-short-bank": seconds(60, 180, 1, "loses"),
    }

    # -- options ---------------------------------------------------------------

    def new(self, options: Mapping[str, Any]) -> CatchupState:
        options = self.check_options(options)
        variant = self.read_option(options, "variant")
        board = hexhex(self.read_option(options, "size"))
        blocked = read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        position = options.get("position")
        stones = read_board(board, {} if position is None else position, blocked, "options.position", BadOptions, piece="stone")
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        to_move = self.read_option(options, "to_move")
        if to_move is None:
            # the player with fewer stones moves; on equal counts player 0 (who opened)
            guess = 1 if c0 > c1 else 0
            to_move = guess if counts_feasible(variant, c0, c1, guess) else 1 - guess
        bonus = self.read_option(options, "bonus")
        plies = ply_range(variant, c0, c1, to_move) or ply_range(variant, c0, c1, 1 - to_move) or (0, 0)
        # a set-up position gets the fewest turns that reach it (the ply of a real game to it)
        state = self._build(variant, board, stones, blocked, to_move, plies[0], bonus)
        if state.end is None:
            self._check_counts(variant, c0, c1, to_move, "options.position", "options.to_move", BadOptions)
            self._check_bonus(state, "options.bonus", BadOptions)
        else:
            if not any(counts_feasible(variant, c0, c1, p) for p in (0, 1)):
                raise BadOptions("options.position", self._counts_message(variant, c0, c1, None))
            if bonus:
                raise BadOptions("options.bonus", "The position fills the board, so the game is over and has no bonus.")
        return state

    def _build(
        self, variant: str, board: HexBoard, stones: tuple[int, int], blocked: int, to_move: int, ply: int, bonus: bool
    ) -> CatchupState:
        """A state from a board, for ``new`` and ``load``; finished if the board is full."""
        g0 = tuple(find_groups(board, stones[0]))
        g1 = tuple(find_groups(board, stones[1]))
        scores = (max(map(int.bit_count, g0), default=1), max(map(int.bit_count, g1), default=1))  # R-C2: at least 1
        empty = board.mask & ~blocked & ~stones[0] & ~stones[1]
        state = CatchupState(variant, board, stones, (g0, g1), scores, blocked, to_move, ply, bonus, None, None, empty)
        if not empty:
            state.to_move, state.bonus, state.end = None, False, "full"  # still being built: nobody holds it yet
            state.winner = self._winner(state)
        return state

    # -- the JSON form ---------------------------------------------------------

    def dump(self, state: CatchupState) -> Json:
        board = state.board
        out = self.state_head(state, VERSION, {"variant": state.variant, "size": board.side})
        out["scores"] = list(state.scores)
        out["board"] = cells_json(board, *state.stones)
        out["blocked"] = board.names(state.blocked) if state.blocked else []
        out["bonus"] = state.bonus
        out["max_stones"] = self.max_stones(state)
        return out

    def load(self, data: Mapping[str, Any]) -> CatchupState:
        """A client's state, checked field by field; nothing is taken on trust."""
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = self.read_state_options(data, ("variant", "size"))  # as dumped: no alias, no other case
        variant = opts["variant"]
        board = hexhex(opts["size"])
        blocked = read_blocked(board, data["blocked"], "state.blocked", BadState)
        stones = read_board(board, data["board"], blocked, "state.board", BadState, piece="stone")
        c0, c1 = stones[0].bit_count(), stones[1].bit_count()
        ply = data["ply"]

        # The position says whether the game has ended (R-C4), so it is checked first.
        full = not (board.mask & ~blocked & ~stones[0] & ~stones[1])
        if full and data["end"] != "full":
            raise BadState("state.end", f"The board is full, so the game has ended with end 'full' (R-C4), not {data['end']!r}.")
        if not full and data["end"] == "full":
            raise BadState("state.end", "end is 'full' but the board still has empty cells.")
        end, to_move, winner = self.read_end(data)
        bonus = data["bonus"]
        if not isinstance(bonus, bool):
            raise BadState("state.bonus", "bonus must be true or false.")
        if end is None:
            assert to_move is not None
            if not reachable(variant, c0, c1, to_move, ply):
                # something does not fit: these say what, blaming the right field
                self._check_counts(variant, c0, c1, to_move, "state.board", "state.to_move", BadState)
                self._check_ply(variant, c0, c1, ply, to_move, "state.to_move")
            state = self._build(variant, board, stones, blocked, to_move, ply, bonus)
            self._check_bonus(state, "state.bonus", BadState)
        else:
            if bonus:
                raise BadState("state.bonus", "A finished game has no bonus.")
            if end == "full":
                if not any(counts_feasible(variant, c0, c1, p) for p in (0, 1)):
                    raise BadState("state.board", self._counts_message(variant, c0, c1, None))
                self._check_ply(variant, c0, c1, ply, ply % 2, None)
                state = self._build(variant, board, stones, blocked, 0, ply, False)
                if winner != state.winner:
                    raise BadState(
                        "state.winner", f"state.winner is {winner!r} but the full board gives {state.winner!r} (R-C4)."
                    )
            else:
                # a flag or a forfeit falls on the player to move (R-T1); a resignation or an abort at any time
                movers = movers_at_end(end, winner)
                if not any(counts_feasible(variant, c0, c1, p) for p in movers):
                    raise BadState("state.board", self._counts_message(variant, c0, c1, movers[0] if len(movers) == 1 else None))
                self._check_ply(
                    variant, c0, c1, ply, movers[0] if len(movers) == 1 else ply % 2, "state.winner" if len(movers) == 1 else None
                )
                state = self._build(variant, board, stones, blocked, 0, ply, False)
                state = self._finished(state, winner, end)

        scores = data["scores"]
        if not (
            isinstance(scores, list)
            and len(scores) == 2
            and type(scores[0]) is int
            and type(scores[1]) is int
            and (scores[0], scores[1]) == state.scores
        ):
            raise BadState(
                "state.scores",
                f"state.scores is {scores!r} but the score track must equal each player's largest group, "
                f"at least 1 (R-C2): expected {list(state.scores)!r}.",
            )
        expect = self.max_stones(state)
        if type(data["max_stones"]) is not int or data["max_stones"] != expect:
            raise BadState(
                "state.max_stones",
                f"state.max_stones is {data['max_stones']!r} but it follows from the turn and the bonus (R-C1): "
                f"expected {expect}.",
            )
        return state

    @staticmethod
    def _counts_message(variant: str, c0: int, c1: int, to_move: int | None) -> str:
        who = "" if to_move is None else f" with player {to_move} to move"
        each = "1 or 2 stones each (R-C1, R-C3 bolanos)" if variant == "bolanos" else "1 to 3 stones each (R-C1)"
        return (
            f"No game reaches {_stones(c0)} of player 0 and {c1} of player 1{who}: "
            f"player 0 opens with 1 stone and turns alternate, {each}."
        )

    @staticmethod
    def _check_ply(variant: str, c0: int, c1: int, ply: int, mover: int, mover_field: str | None) -> None:
        """``ply`` must be one at which some game reaches these stones with
        ``mover`` next (R-C1): its parity is the mover's (turns alternate from
        player 0), and it lies between the fewest turns that place the stones
        and one turn per stone.  An edited ``to_move`` (or flag winner) that
        would let a player move twice is blamed on that field (``mover_field``);
        otherwise the ply is wrong."""
        if ply % 2 != mover and mover_field is not None:
            raise BadState(
                mover_field,
                f"Player {mover} cannot be to move at ply {ply}: turns alternate from player 0, "
                f"so player {ply % 2} moves at ply {ply} (R-C1).",
            )
        plies = ply_range(variant, c0, c1, mover)
        if plies is None:  # the counts fit some player next, not this one (a resignation's or a full board's ply parity)
            raise BadState(
                mover_field or "state.ply",
                f"ply is {ply}, but no game reaches {_stones(c0)} of player 0 and {_stones(c1)} of player 1 with player "
                f"{mover} next: turns alternate from player 0, so ply {ply} has player {ply % 2} to move (R-C1).",
            )
        lo, hi = plies
        if not lo <= ply <= hi or ply % 2 != mover:
            raise BadState(
                "state.ply",
                f"ply is {ply}, but {_stones(c0)} of player 0 and {_stones(c1)} of player 1 with player {mover} next "
                f"are reached at a ply from {lo} to {hi} of that parity: at least the fewest turns that place them, "
                "at most one turn per stone (R-C1).",
            )

    @classmethod
    def _check_counts(
        cls, variant: str, c0: int, c1: int, to_move: int, board_field: str, move_field: str, err: OptionError
    ) -> None:
        """The stone counts must fit some sequence of legal turns (R-C1): blame
        ``to_move`` when the other player could be to move, else the board."""
        if counts_feasible(variant, c0, c1, to_move):
            return
        if counts_feasible(variant, c0, c1, 1 - to_move):
            counts = f"{_stones(c0)} of player 0 and {c1} of player 1"
            raise err(move_field, f"Player {to_move} cannot be to move with {counts} (R-C1).")
        raise err(board_field, cls._counts_message(variant, c0, c1, None))

    @staticmethod
    def _check_bonus(state: CatchupState, field: str, err: OptionError) -> None:
        """A bonus must be one the opponent's last turn could have given (R-C3)."""
        if not state.bonus or state.to_move is None:
            return
        p = state.to_move
        if state.first_turn:
            raise err(field, "The first turn places exactly one stone, so there can be no bonus (R-C1).")
        if state.variant == "bolanos":
            raise err(field, "The bolanos variant has no 3-stone turns (R-C3).")
        mine, theirs = state.scores[p], state.scores[1 - p]
        if state.variant == "standard" and (theirs < mine or theirs < 2):
            raise err(field, "A bonus needs the opponent to have led: their score must have risen to at least yours (R-C3).")
        if state.variant == "mindsports" and theirs <= mine:
            raise err(field, "A bonus needs the opponent to have made the largest group on the board (R-C3).")

    # -- moves -----------------------------------------------------------------

    @staticmethod
    def allowance(state: CatchupState) -> int:
        """Stones the turn may place before counting empty cells (R-C1, R-C3)."""
        if state.to_move is None:
            return 0
        if state.first_turn:
            return 1
        return 3 if state.bonus else 2

    def max_stones(self, state: CatchupState) -> int:
        """How many stones the player to move may place (R-C1, R-C3)."""
        return min(self.allowance(state), state.empty.bit_count())

    def parse(self, state: CatchupState, text: MoveInput) -> Move:
        return state.board.parse_move(text)

    def notation(self, state: CatchupState, move: Move) -> str:
        """The move as written back: its cells in the board's reading order, as the complete legal moves write
        them (the stones of a turn go down together, R-C1: "D3 D2" is "D2 D3", one move written one way)."""
        names = state.board.labels
        return " ".join([names[b] for b in sorted(move)])

    def apply(self, state: CatchupState, move: Move) -> tuple[CatchupState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        n = len(move)
        mine, theirs = (state.stones[0], state.stones[1]) if p == 0 else (state.stones[1], state.stones[0])
        allowance = 3 if state.bonus else 2 if mine | theirs else 1  # R-C1: the opening turn places 1
        free = state.empty
        if n > allowance or n == 0 or (n > 1 and n > free.bit_count()):
            raise self._too_many(state, n)

        # Check each stone and merge it into the groups it touches; only those
        # change.  Nothing is shared with ``state`` until the end, so raising
        # midway leaves it as it was.  ``free`` shrinks as stones go down, so a
        # repeated cell fails as well (R-C1: distinct empty cells).
        board = state.board
        nbrs = board.neighbours
        groups = state.groups[p]
        grown = 0  # size of the largest group this turn made or enlarged
        for i, b in enumerate(move):
            bit = 1 << b
            if not free & bit:
                raise self._bad_cell(state, move, i)
            free ^= bit
            touch = nbrs[b] & mine
            mine |= bit
            groups = place(groups, touch, bit)
            size = groups[-1].bit_count()  # the stone's own group, merged or new
            if size > grown:
                grown = size
        old_score = state.scores[p]
        opp_score = state.scores[1 - p]
        new_score = grown if grown > old_score else old_score  # R-C2: the score never falls

        variant = state.variant
        if variant == "standard":
            bonus = new_score > old_score and new_score >= opp_score  # R-C3 leading
        elif variant == "mindsports":
            # R-C3: a group larger than any at the start of the turn, counted as at least 1
            bonus = grown > old_score and grown > opp_score
        else:
            bonus = False
            if n == 2:
                # R-C3 bolanos: two stones only if the board's largest group keeps its size
                before = max(state.scores)  # a player without stones scores 1 and has none larger
                after = new_score if new_score > opp_score else opp_score
                if after != before:
                    raise IllegalMove(
                        "largest_group_grew",
                        f"Two stones are allowed only if the largest group on the board stays at {before}; "
                        f"{self.notation(state, move)} makes it {after}.",
                        step=1,
                        rule="R-C3",
                    )

        names = board.labels
        events: list[Json] = [{"type": "place", "player": p, "cells": [names[b] for b in move]}]
        if new_score != old_score:
            events.append({"type": "score", "player": p, "from": old_score, "to": new_score})
        if p == 0:
            stones = (mine, theirs)
            all_groups = (groups, state.groups[1])
            scores = (new_score, opp_score)
        else:
            stones = (theirs, mine)
            all_groups = (state.groups[0], groups)
            scores = (opp_score, new_score)
        if free:
            new = CatchupState(
                variant, board, stones, all_groups, scores, state.blocked, 1 - p, state.ply + 1, bonus, None, None, free
            )
            if bonus:
                events.append({"type": "bonus", "player": 1 - p, "max_stones": min(3, free.bit_count())})
            return new, events
        # R-C4: the board is full, the game is over
        new = CatchupState(variant, board, stones, all_groups, scores, state.blocked, None, state.ply + 1, False, None, "full", 0)
        new.winner = self._winner(new)  # still being built: nobody holds it yet
        events.append({"type": "end", "winner": new.winner, "end": "full", **self.decided_by(new)})
        return new, events

    def _too_many(self, state: CatchupState, n: int) -> IllegalMove:
        limit = self.max_stones(state)
        allowance = self.allowance(state)
        rule = "R-C1"
        if state.first_turn:
            why = "the first turn of the game places exactly one stone"
        elif limit < allowance:
            why = f"only {limit} empty cell{'s are' if limit > 1 else ' is'} left"
        elif state.bonus:
            why = "even with the bonus a turn places at most 3"
        elif state.variant == "bolanos":
            why, rule = "the bolanos rules allow 1 or 2 stones a turn", "R-C3"
        else:
            why, rule = "the opponent did not lead on their last turn, so no third stone is due", "R-C3"
        return IllegalMove(
            "too_many_stones",
            f"You may place at most {limit} stone{'s' if limit > 1 else ''} this turn, not {n}: {why}.",
            step=limit,
            rule=rule,
        )

    @staticmethod
    def _bad_cell(state: CatchupState, move: Move, i: int) -> IllegalMove:
        """Why step ``i`` of ``move`` is not a free cell (the slow path of apply)."""
        board = state.board
        b = move[i]
        if b < 0 or not board.mask >> b & 1:
            return IllegalMove("unknown_cell", "That step names no cell of this board.", step=i, rule="R-H1")
        if state.blocked >> b & 1:
            return IllegalMove("blocked", f"{board.name(b)} is blocked: it is not part of the board.", step=i, rule="R-H4")
        if b in move[:i]:
            return IllegalMove(
                "duplicate_cell",
                f"{board.name(b)} is named twice: the stones of a turn go on different cells.",
                step=i,
                rule="R-C1",
            )
        return IllegalMove("occupied", f"{board.name(b)} is already occupied.", step=i, rule="R-C1")

    # -- listing and outcome ---------------------------------------------------

    def legal_moves(self, state: CatchupState, limit: int | None = None) -> LegalMoves:
        """The legal single cells; a turn is any ``max_stones`` of them (bolanos
        adds its two-stone condition: :meth:`complete_moves` lists whole turns)."""
        if state.to_move is None:
            return LegalMoves([], info={"max_stones": 0, "bonus": False}, complete=True)
        names = state.board.names(state.empty)
        truncated = limit is not None and len(names) > limit
        if limit is not None:
            names = names[:limit]
        most = self.max_stones(state)
        return LegalMoves(names, truncated, {"max_stones": most, "bonus": state.bonus}, complete=most == 1)

    def complete_moves(self, state: CatchupState, limit: int | None = None) -> LegalMoves:
        """Every whole turn (R-C1, R-C3): each set of 1 to ``max_stones`` empty
        cells once, its cells in the board's reading order, one stone first,
        then two, then three; in bolanos only the pairs that leave the board's
        largest group as it was."""
        if state.to_move is None:
            return LegalMoves([], info={"max_stones": 0, "bonus": False}, complete=True)
        most = self.max_stones(state)
        info: Json = {"max_stones": most, "bonus": state.bonus}
        cells = list(iter_bits(state.empty))
        labels = state.board.labels
        turns: Iterator[tuple[int, ...]] = itertools.chain.from_iterable(
            itertools.combinations(cells, k) for k in range(1, most + 1)
        )
        if state.variant == "bolanos" and most == 2:
            fits = self._bolanos_pairs(state)
            turns = (t for t in turns if len(t) == 1 or fits(t[0], t[1]))
        cap = None if limit is None else limit + 1
        moves = [" ".join([labels[c] for c in t]) for t in itertools.islice(turns, cap)]
        truncated = limit is not None and len(moves) > limit
        return LegalMoves(moves[:limit] if truncated else moves, truncated, info, complete=True)

    @staticmethod
    def _bolanos_pairs(state: CatchupState) -> Callable[[int, int], bool]:
        """R-C3 bolanos on bit sets: may ``a`` and ``b`` be the turn's two stones?
        Only if the board's largest group keeps its size: the stones' own
        group (two stones and every group of the mover they touch, when they
        touch each other or a common group; else each alone with its groups)
        leaves the largest group on the board where it was."""
        p = state.to_move
        assert p is not None
        board = state.board
        nbrs = board.neighbours
        touching: dict[int, int] = {}  # empty cell -> the mover's groups it touches
        empty = state.empty
        for g in state.groups[p]:
            for c in iter_bits(board.dilate(g) & empty):
                touching[c] = touching.get(c, 0) | g
        before = max(state.scores)
        old, opp = state.scores[p], state.scores[1 - p]

        def fits(a: int, b: int) -> bool:
            ta, tb = touching.get(a, 0), touching.get(b, 0)
            joined = nbrs[a] >> b & 1 or ta & tb  # one group holds both stones
            grown = 2 + (ta | tb).bit_count() if joined else 1 + max(ta.bit_count(), tb.bit_count())
            return max(grown, old, opp) == before

        return fits

    def next_steps(self, state: CatchupState, prefix: Sequence[str]) -> Steps:
        """After the cells chosen so far: any other empty cell while the turn
        may place more (R-C1, R-C3; in bolanos only a second stone that keeps
        the largest group's size); the move may end after one stone."""
        if state.to_move is None:
            raise self.game_over()
        board = state.board
        most = self.max_stones(state)
        bolanos = state.variant == "bolanos"
        fits = self._bolanos_pairs(state) if bolanos and prefix and most == 2 else None
        placed = [board.lookup(x) if isinstance(x, str) else None for x in prefix]
        free = state.empty
        plain = len(placed) <= most  # the common case, checked on bit sets: distinct empty cells, not too many
        for b in placed:
            if b is None or not free >> b & 1:
                plain = False
                break
            free &= ~(1 << b)
        if plain and fits is not None and len(placed) == 2:
            plain = fits(placed[0] or 0, placed[1] or 0)
        if not plain:  # something is wrong: play says what, and at which step
            verdict = self.play(state, list(prefix))
            if verdict.error is not None:
                raise verdict.error
            placed = list(board.parse_move(verdict.move or ""))  # as written back (" c3 " is C3)
            free = state.empty
            for b in placed:
                free &= ~(1 << (b or 0))
        written = [board.labels[b or 0] for b in placed]
        steps: list[str] = []
        if len(written) < most:
            if fits is not None and written:
                a = placed[0] or 0
                steps = [board.labels[c] for c in iter_bits(free) if fits(a, c)]
            else:
                steps = board.names(free)
        move = self.notation(state, tuple(b or 0 for b in placed)) if written else None  # as play writes it
        return Steps(written, steps, bool(written), move)

    def setup_options(self, state: CatchupState) -> Json:
        data = self.dump(state)
        out: Json = {**data["options"], "position": data["board"], "blocked": data["blocked"], "bonus": data["bonus"]}
        if state.to_move is not None:
            out["to_move"] = state.to_move
        return out

    def _finished(self, state: CatchupState, winner: int | None, end: str) -> CatchupState:
        return CatchupState(
            state.variant,
            state.board,
            state.stones,
            state.groups,
            state.scores,
            state.blocked,
            None,
            state.ply,
            False,
            winner,
            end,
            state.empty,
        )

    def decided_by(self, state: CatchupState) -> Json:
        """A full board: both players' group sizes and the rank of the first
        difference (R-C4), so an umpire can say which group decided."""
        if state.end != "full":
            return {}
        groups = [self.group_sizes(state, 0), self.group_sizes(state, 1)]
        return {"groups": groups, "decided_at": tie_break(groups[0], groups[1])[1]}

    @staticmethod
    def group_sizes(state: CatchupState, player: int) -> list[int]:
        """``player``'s group sizes, largest first (R-C4's comparison list)."""
        return sorted((g.bit_count() for g in state.groups[player]), reverse=True)

    def _winner(self, state: CatchupState) -> int | None:
        c = compare_groups(self.group_sizes(state, 0), self.group_sizes(state, 1))
        return 0 if c > 0 else 1 if c < 0 else None  # R-C4: a draw cannot occur on hexhex, but report it
