"""Bug (seed 002; RULES R-B1 to R-B8 on the boards of R-H1 to R-H4).

A position keeps each player's pieces as a bit set and their bugs (maximal
groups, R-B1) as a tuple of bit sets.  A turn never re-floods the board: a
grow adds a cell to the one bug it touches (or spawns one), an eat removes
whole opposing bugs and adds the bonus cell to the eater.  Congruence is an
int comparison of shape ids from :mod:`engine.polyhex`, each computed once per
shape.

A move is a tuple of cells: the grow cell, then one bonus cell per eat
(R-B5); in Green Meadow's opening turns, the one cell to blacken (R-B2).
:meth:`Bug.apply` checks it step by step and names the first wrong step;
:meth:`Bug.move_cells` lists every complete move by walking the same
eat chain with every bonus choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.clock import seconds
from engine.errors import BadOptions, BadState, IllegalMove
from engine.game import Game, Json, LegalMoves, MoveInput, movers_at_end
from engine.groups import groups as find_groups
from engine.hexboard import HexBoard, green_meadow, hexhex, iter_bits
from engine.options import BLOCKED, Option, position, ref
from engine.polyhex import ShapeTable, shape_table
from engine.stateio import COMMON_FIELDS, cells_json, check_frame, is_player, read_blocked, read_board

VERSION = 1
VARIANTS = ("genius", "green-meadow")  # R-B2
EATERS = ("active", "all")  # R-B2, R-B8
MIN_SIDE, MAX_SIDE, DEFAULT_SIDE = 2, 7, 3  # R-B2
PHASES = ("blacken", "grow")

# Every field of a dumped state; load() wants exactly these, so that
# dump(load(x)) == x for any state the engine gave out.
STATE_FIELDS = (*COMMON_FIELDS, "largest", "blocked", "phase")

OPTIONS = (
    Option("variant", "string", "genius", "the board and the opening", choices=VARIANTS, rule="R-B2"),
    Option(
        "size", "integer", DEFAULT_SIDE, "side of the hexhex board (genius only; the green-meadow board is fixed, R-H4)",
        min=MIN_SIDE, max=MAX_SIDE, rule="R-B2", only_with=(("variant", ("genius",)),),
    ),
    Option("eaters", "string", "active", "which bugs eat: the active bug only, or all", choices=EATERS, rule="R-B8"),
    position("piece"),
    BLOCKED,
    Option(
        "to_move", "player", None,
        "the player to move in a set-up position; if that player cannot grow, the state is already finished, "
        "that player the winner (R-B6)",
        setup=True,
    ),
)  # fmt: skip

STATE_SCHEMA: Json = {
    "type": "object",
    "required": ["largest", "phase", "blocked"],
    "properties": {
        "options": {
            "type": "object",
            "required": ["variant", "eaters"],
            "additionalProperties": False,
            "properties": {
                "variant": {"type": "string", "enum": list(VARIANTS)},
                "size": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE},
                "eaters": {"type": "string", "enum": list(EATERS)},
            },
        },
        "scores": {"items": {"type": "integer", "minimum": 0}, "description": "Each player's pieces on the board (R-B7)."},
        "largest": {
            "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0},
            "description": "Each player's largest bug (R-B7).",
        },
        "board": ref("HexBoardCells"),
        "phase": {"type": "string", "enum": list(PHASES), "description": "blacken: Green Meadow's opening turns (R-B2)."},
        "blocked": {**ref("CellList"), "description": "Cells off the board besides the variant's own black cells."},
    },
}  # fmt: skip

Move = tuple[int, ...]  # grow cell then bonus cells (R-B5), or the one cell to blacken
OptionError = type[BadOptions] | type[BadState]
Bugs = tuple[int, ...]


class Eat(NamedTuple):
    """One possible eat (R-B4): a named tuple, made in the hot loop of move listing."""

    eater: int  # index of the eater among the player's bugs
    victims: tuple[int, ...]  # the congruent opposing bugs it touches, each a bit set
    vacated: int  # their cells
    bonus: int  # where the bonus growth may go after their removal; empty: the eat is refused


@dataclass(slots=True)
class BugState:
    """One position.  Treated as an immutable value: the engine never changes a
    state it has handed out, it builds a new one (not ``frozen`` for speed, as
    in :class:`engine.games.catchup.rules.CatchupState`)."""

    variant: str
    eaters: str
    board: HexBoard
    stones: tuple[int, int]  # bit set of each player's pieces
    # each player's bugs as bit sets, in no particular order; derived from
    # stones, so not part of equality
    bugs: tuple[Bugs, Bugs] = field(compare=False)
    blocked: int  # cells off the board besides the variant's own black cells (set-up, or blackened in play)
    phase: str  # "blacken" (Green Meadow's opening turns) or "grow"
    to_move: int | None  # None once finished
    ply: int
    winner: int | None
    end: str | None  # None while ongoing; "stuck" (R-B6), "resign" or "flag" (R-T1)

    @property
    def empty(self) -> int:
        """Empty playing cells."""
        return self.board.mask & ~self.blocked & ~self.stones[0] & ~self.stones[1]

    def largest(self, player: int) -> int:
        """Size of the player's largest bug (0 without pieces), R-B7."""
        return max((b.bit_count() for b in self.bugs[player]), default=0)


# -- the rules on bit sets -----------------------------------------------------


def grow_sets(board: HexBoard, mine: Bugs, largest: int, empty: int) -> tuple[int, int, int]:
    """Where a grow may go (R-B3): ``(legal, would_merge, too_large)``, each a
    bit set of empty cells.  ``largest`` is the size of the largest bug on the
    board, either colour, at the start of the turn."""
    dilate = board.dilate
    seen = twice = capped = 0
    for b in mine:
        halo = dilate(b)
        twice |= seen & halo
        seen |= halo
        if b.bit_count() >= largest:
            capped |= halo
    return empty & ~twice & ~capped, empty & twice, empty & capped & ~twice


def find_eats(board: HexBoard, shapes: ShapeTable, own: list[int], eaters: Iterable[int], opp: Bugs, empty: int) -> list[Eat]:
    """For each candidate eater (index into ``own``) touching at least one
    congruent opposing bug: every such bug, all removed at once, and the bonus
    cells left afterwards - empty (possibly just vacated) cells touching the
    eater and no other bug of the player (R-B4)."""
    dilate = board.dilate
    out: list[Eat] = []
    for i in eaters:
        a = own[i]
        halo = dilate(a)
        size = a.bit_count()
        sid = -1
        victims: list[int] = []
        for o in opp:
            if o & halo and o.bit_count() == size:
                if sid < 0:
                    sid = shapes[a]
                if shapes[o] == sid:
                    victims.append(o)
        if not victims:
            continue
        vacated = 0
        for o in victims:
            vacated |= o
        others = 0
        for j, b in enumerate(own):
            if j != i:
                others |= b
        bonus = halo & (empty | vacated) & ~dilate(others)
        out.append(Eat(i, tuple(victims), vacated, bonus))
    return out


def grown(board: HexBoard, mine: Bugs, c: int) -> tuple[list[int], int]:
    """The player's bugs after a legal grow on cell ``c`` (R-B3), and the index
    of the active bug among them: the one bug it touches, or a spawned one."""
    bit = 1 << c
    own = list(mine)
    nbrs = board.neighbours[c]
    active = next((i for i, b in enumerate(own) if b & nbrs), -1)
    if active < 0:
        own.append(bit)
        return own, len(own) - 1
    own[active] |= bit
    return own, active


def eater_range(eaters: str, active: int, own: list[int]) -> Iterable[int]:
    """Who may eat: the active bug only (R-B4), or every bug of the mover (R-B8)."""
    return (active,) if eaters == "active" else range(len(own))


def least_ply(variant: str, pieces: int, to_move: int) -> int:
    """The fewest plies of a game with ``pieces`` on the board and ``to_move``
    next (R-B2..R-B5).  Turns alternate from player 0 (Green Meadow's two
    blackening turns first), so ``to_move`` is the ply's parity.  A turn grows
    one piece, and each bonus piece of an eat comes with at least one opposing
    piece removed, so no turn adds more than one piece to the board: there are
    at least as many grow turns as pieces."""
    least = pieces + (BLACKEN_TURNS if variant == "green-meadow" else 0)
    return least + (least % 2 != to_move)


BLACKEN_TURNS = 2  # R-B2: Green Meadow opens with one blackened cell per player


def _largest_bug(bugs: tuple[Bugs, Bugs]) -> int:
    best = 0
    for side in bugs:
        for b in side:
            n = b.bit_count()
            if n > best:
                best = n
    return best


class Bug(Game[BugState, Move]):
    name = "bug"
    title = "Bug"
    natural_ends = ("stuck",)  # R-B6: the player to move cannot grow, and wins
    move_rule = "R-B5"
    end_rule = "R-B6"
    turn_needs = "every turn grows one piece (Green Meadow's opening turns blacken one cell)"
    move_codes = {  # the codes of its illegal moves beside the common ones (engine/errors.py)
        "would_merge": "a grow that touches two of the player's bugs (R-B3)",
        "too_large": "a grow past the largest bug on the board (R-B3)",
        "must_eat": "an eat is due and the move does not make it (R-B4, R-B8)",
        "no_eat_due": "a bonus cell where no eat is due (R-B4)",
        "bad_bonus": "a bonus cell the eat cannot grow onto (R-B4)",
        "too_many_cells": "more cells than the grow and its eats (R-B5)",
    }
    options = OPTIONS
    state_schema = STATE_SCHEMA
    presets = {  # R-T2
        "bug": seconds(90, 600, 10, "loses"),
        "bug-green-meadow": seconds(60, 300, 5, "loses"),
    }

    def default_preset(self, options: Mapping[str, Any]) -> str:
        return "bug-green-meadow" if options.get("variant") == "green-meadow" else "bug"

    # -- options ---------------------------------------------------------------

    def _board(self, variant: str, opts: Mapping[str, Any], field: str, err: OptionError) -> HexBoard:
        if variant == "green-meadow":
            if "size" in opts:
                raise err(f"{field}.size", "The green-meadow board is fixed (R-H4): it takes no size.")
            return green_meadow()
        return hexhex(self.read_option(opts, "size", err, field))

    def new(self, options: Mapping[str, Any]) -> BugState:
        options = self.check_options(options)
        variant = self.read_option(options, "variant")
        eaters = self.read_option(options, "eaters")
        board = self._board(variant, options, "options", BadOptions)
        blocked = read_blocked(board, options.get("blocked", []), "options.blocked", BadOptions)
        position = options.get("position")
        stones = read_board(board, {} if position is None else position, blocked, "options.position", BadOptions, piece="piece")
        setup = any(k in options for k in (o.name for o in OPTIONS if o.setup))
        if variant == "green-meadow" and not setup:
            # R-B2: each player's first turn blackens a cell; a set-up position skips that.
            return self._build(variant, eaters, board, stones, blocked, "blacken", 0, 0)
        to_move = self.read_option(options, "to_move")
        if to_move is None:
            # Pieces get eaten, so counts are weak evidence; without eats player 0
            # has one more piece than player 1 exactly when player 1 is to move.
            to_move = 1 if stones[0].bit_count() > stones[1].bit_count() else 0
        pieces = (stones[0] | stones[1]).bit_count()
        # a set-up position gets the fewest plies of a game that reaches it
        state = self._build(variant, eaters, board, stones, blocked, "grow", to_move, least_ply(variant, pieces, to_move))
        self._check_history(state, to_move, "options.to_move", BadOptions)
        return state

    def _build(
        self,
        variant: str,
        eaters: str,
        board: HexBoard,
        stones: tuple[int, int],
        blocked: int,
        phase: str,
        to_move: int,
        ply: int,
    ) -> BugState:
        """A state with ``to_move`` to play; finished at once if that player cannot grow (R-B6)."""
        bugs = (tuple(find_groups(board, stones[0])), tuple(find_groups(board, stones[1])))
        state = BugState(variant, eaters, board, stones, bugs, blocked, phase, to_move, ply, None, None)
        if phase == "grow" and not self.can_grow(state, to_move):
            state.to_move, state.winner, state.end = None, to_move, "stuck"  # still being built
        return state

    @staticmethod
    def _check_ply(variant: str, stones: tuple[int, int], ply: int, mover: int, mover_field: str | None) -> None:
        """``ply`` fits the grow phase's position with ``mover`` next: its parity
        is the mover's (an edited ``to_move`` that would let a player move twice
        is blamed on ``mover_field``), and it is at least :func:`least_ply` (so
        no bug, no piece count, outgrows the turns played)."""
        if ply % 2 != mover and mover_field is not None:
            raise BadState(
                mover_field,
                f"Player {mover} cannot be to move at ply {ply}: turns alternate from player 0, "
                f"so player {ply % 2} moves at ply {ply} (R-B2).",
            )
        pieces = (stones[0] | stones[1]).bit_count()
        least = least_ply(variant, pieces, mover)
        if ply < least or ply % 2 != mover:
            opening = " after the two blackening turns" if variant == "green-meadow" else ""
            raise BadState(
                "state.ply",
                f"ply is {ply}, but {pieces} pieces on the board with player {mover} next take at least {least} plies "
                f"of that parity{opening}: no turn adds more than one piece to the board (R-B3, R-B4).",
            )

    def can_grow(self, state: BugState, player: int) -> bool:
        """Has ``player`` any legal grow in this position (R-B3)?"""
        legal, _, _ = grow_sets(state.board, state.bugs[player], _largest_bug(state.bugs), state.empty)
        return legal != 0

    def _check_history(self, state: BugState, mover: int, field: str, err: OptionError) -> None:
        """What any game reaching this position with ``mover`` to play must show.

        Pieces get eaten, so piece counts say little; two things hold all the same:

        * the player who moved last still has a piece: a grow leaves one and
          the opponent has not moved since.  Only before anybody has grown is the
          board empty, and then player 0 is to move (R-B2).
        * the last mover's eating has ended: with ``eaters: active`` the active
          bug can eat nothing, so at least one of their bugs cannot eat; with
          ``eaters: all`` none can (R-B4, R-B8).
        """
        last = 1 - mover
        if not state.stones[last] and (state.stones[mover] or mover != 0):
            raise err(
                field,
                f"Player {mover} cannot be to move: player {last} moved last, and a grow always leaves the mover "
                "a piece on the board (R-B3); only on an empty board can player 0 be to move with none.",
            )
        own = list(state.bugs[last])
        if not own:
            return
        due = [
            e
            for e in find_eats(state.board, shape_table(state.board), own, range(len(own)), state.bugs[mover], state.empty)
            if e.bonus
        ]
        if state.eaters == "all" and due:
            names = state.board.names(own[due[0].eater])
            raise err(
                field,
                f"Player {mover} cannot be to move: player {last}'s bug {' '.join(names)} could still eat, and with "
                "eaters: all no turn ends while one can (R-B8).",
            )
        if state.eaters == "active" and len(due) == len(own):
            raise err(
                field,
                f"Player {mover} cannot be to move: every bug of player {last} could still eat, yet their active bug "
                "stopped eating at the end of their turn (R-B4).",
            )

    # -- the JSON form ---------------------------------------------------------

    @staticmethod
    def options_json(state: BugState) -> Json:
        if state.variant == "green-meadow":
            return {"variant": state.variant, "eaters": state.eaters}
        return {"variant": state.variant, "size": state.board.side, "eaters": state.eaters}

    def dump(self, state: BugState) -> Json:
        board = state.board
        s0, s1 = state.stones
        cells = cells_json(board, s0, s1)
        return {
            **self.state_head(state, VERSION, self.options_json(state)),
            "scores": [s0.bit_count(), s1.bit_count()],  # R-B7: pieces on the board
            "largest": [state.largest(0), state.largest(1)],  # R-B7: each player's largest bug
            "board": cells,
            "blocked": board.names(state.blocked),
            "phase": state.phase,
        }

    def load(self, data: Mapping[str, Any]) -> BugState:
        """A client's state, checked field by field; nothing is taken on trust."""
        check_frame(data, STATE_FIELDS, self.name, self.title, VERSION)
        opts = self.read_state_options(data, ("variant", "eaters"), ("size",))  # as dumped: lower case
        variant, eaters = opts["variant"], opts["eaters"]
        if variant == "genius" and "size" not in opts:
            raise BadState("state.options.size", "state.options lacks 'size'.")
        board = self._board(variant, data["options"], "state.options", BadState)
        blocked = read_blocked(board, data["blocked"], "state.blocked", BadState)
        stones = read_board(board, data["board"], blocked, "state.board", BadState, piece="piece")
        ply = data["ply"]
        phase = data["phase"]
        if phase not in PHASES:
            raise BadState("state.phase", f"phase must be one of {', '.join(PHASES)}, not {phase!r}.")

        end, to_move, winner = self.read_end(data)
        if end == "stuck" and not is_player(winner):
            raise BadState("state.winner", "A game that ended stuck has a winner: the player who could not grow (R-B6).")

        if phase == "blacken":
            # R-B2: only Green Meadow opens by blackening, one cell per player, before any piece.
            if variant != "green-meadow":
                raise BadState("state.phase", "Only the green-meadow variant has a blacken phase (R-B2).")
            if stones[0] | stones[1]:
                raise BadState("state.board", "No piece is on the board while cells are being blackened (R-B2).")
            done = blocked.bit_count()
            if end == "stuck":
                raise BadState("state.end", "Nobody can be stuck while cells are being blackened (R-B2, R-B6).")
            if (to_move if end is None else done) != done or done > 1:
                raise BadState(
                    "state.blocked",
                    f"{done} cells are blackened, but the blacken phase has player 0 blacken one cell, then player 1 (R-B2).",
                )
            if ply != done:
                raise BadState("state.ply", f"ply must be {done}: each blackened cell is one move (R-B2).")
            state = self._build(variant, eaters, board, stones, blocked, phase, done, ply)
            if end is not None:
                state = self._finished(state, winner, end)
        elif end is None:
            assert to_move is not None
            self._check_ply(variant, stones, ply, to_move, "state.to_move")
            state = self._build(variant, eaters, board, stones, blocked, phase, to_move, ply)
            if state.end is not None:
                raise BadState(
                    "state.status",
                    f"Player {to_move} cannot grow, so the game is over and player {to_move} has won (R-B6): "
                    "status must be 'finished'.",
                )
            self._check_history(state, to_move, "state.to_move", BadState)
        elif end == "stuck":
            assert winner is not None
            self._check_ply(variant, stones, ply, winner, "state.winner")  # the player who could not grow was to move
            state = self._build(variant, eaters, board, stones, blocked, phase, winner, ply)
            if state.end != "stuck":
                raise BadState(
                    "state.winner",
                    f"The game ended 'stuck' with player {winner} the winner, but player {winner} can still grow (R-B6).",
                )
            self._check_history(state, winner, "state.winner", BadState)
        else:
            # a flag or a forfeit falls on the player to move (R-T1); a resignation or an abort at any time
            movers = movers_at_end(end, winner)
            mover = movers[0] if len(movers) == 1 else None
            self._check_ply(variant, stones, ply, ply % 2 if mover is None else mover, None if mover is None else "state.winner")
            state = self._build(variant, eaters, board, stones, blocked, phase, ply % 2 if mover is None else mover, ply)
            if mover is not None:
                if state.end == "stuck":
                    raise BadState(
                        "state.end",
                        f"Player {mover} cannot grow here, so the game ended 'stuck' with them the winner (R-B6) "
                        f"before any {end} could end it.",
                    )
                self._check_history(state, mover, "state.winner", BadState)
            state = self._finished(state, winner, end)

        expect = self.dump(state)
        for key, why in (
            ("scores", "scores are the pieces each player has on the board (R-B7)"),
            ("largest", "largest is the size of each player's largest bug (R-B7)"),
        ):
            got = data[key]
            if not isinstance(got, list) or any(type(x) is not int for x in got) or got != expect[key]:
                raise BadState(f"state.{key}", f"state.{key} is {got!r} but {why}: expected {expect[key]!r}.")
        return state

    # -- moves -----------------------------------------------------------------

    def parse(self, state: BugState, text: MoveInput) -> Move:
        return state.board.parse_move(text)

    def notation(self, state: BugState, move: Move) -> str:
        return " ".join(state.board.name(b) for b in move)

    def apply(self, state: BugState, move: Move) -> tuple[BugState, list[Json]]:
        p = state.to_move
        if p is None:
            raise self.game_over()
        if not move:
            raise IllegalMove("empty_move", "A turn names at least one cell: the grow cell first.", rule="R-B5")
        if state.phase == "blacken":
            return self._blacken(state, move)
        board = state.board
        name = board.name
        c = move[0]
        bit = 1 << c
        if (board.black | state.blocked) & bit:
            raise IllegalMove("blocked", f"Grow on {name(c)}: that cell is not part of the board.", step=0, rule="R-H4")
        if (state.stones[0] | state.stones[1]) & bit:
            raise IllegalMove("occupied", f"Grow on {name(c)}: that cell is already occupied.", step=0, rule="R-B3")
        mine, opp = state.bugs[p], state.bugs[1 - p]
        largest = _largest_bug(state.bugs)
        empty = state.empty
        _, merge, too_large = grow_sets(board, mine, largest, empty)
        nbrs = board.neighbours[c]
        if merge & bit:
            touched = [" ".join(board.names(b)) for b in mine if b & nbrs]
            raise IllegalMove(
                "would_merge",
                f"Grow on {name(c)} would join your bugs {' and '.join(touched)} into one, which is never allowed.",
                step=0,
                rule="R-B3",
            )
        if too_large & bit:
            size = next(b.bit_count() for b in mine if b & nbrs)
            raise IllegalMove(
                "too_large",
                f"Grow on {name(c)} would make your {size}-piece bug {size + 1} pieces, larger than the largest bug "
                f"on the board at the start of the turn ({largest}).",
                step=0,
                rule="R-B3",
            )

        # R-B3: the grow spawns a bug or enlarges the one it touches: the active bug.
        own, active = grown(board, mine, c)
        spawn = own[active] == bit
        empty &= ~bit
        events: list[Json] = [{"type": "grow", "player": p, "cell": name(c), "spawn": spawn, "bug": board.names(own[active])}]

        # R-B4 / R-B8: the eat chain, one bonus cell per eat.
        shapes = shape_table(board)
        opp_bugs = opp
        eat_rule = "R-B8" if state.eaters == "all" else "R-B4"
        for step in range(1, len(move) + 1):
            eats = find_eats(board, shapes, own, eater_range(state.eaters, active, own), opp_bugs, empty)
            due = [e for e in eats if e.bonus]
            if step == len(move):
                if due:
                    raise IllegalMove("must_eat", self._must_eat_message(board, own, due, move), step=step, rule=eat_rule)
                events.extend(self._refusals(board, p, own, eats))
                break
            c = move[step]
            bit = 1 << c
            if not due:
                why = " (an eat with no bonus cell does not happen)" if eats else ""
                raise IllegalMove(
                    "no_eat_due",
                    f"Bonus cell {name(c)} is not due: nothing can be eaten{why}.",
                    step=step,
                    rule=eat_rule,
                )
            chosen = next((e for e in due if e.bonus & bit), None)
            if chosen is None:
                raise IllegalMove("bad_bonus", self._bad_bonus_message(state, own, due, empty, c), step=step, rule="R-B4")
            i, victims, vacated = chosen.eater, chosen.victims, chosen.vacated
            eater_before = board.names(own[i])
            own[i] |= bit
            opp_bugs = tuple(o for o in opp_bugs if not o & vacated)
            empty = (empty | vacated) & ~bit
            events.append(
                {
                    "type": "eat",
                    "player": p,
                    "eater": eater_before,
                    "eaten": [board.names(o) for o in victims],
                    "bonus": name(c),
                    "bug": board.names(own[i]),
                }
            )

        new = self.after_grow(state, own, opp_bugs)
        if new.end is not None:
            events.append({"type": "end", "winner": 1 - p, "end": "stuck"})
        return new, events

    def after_grow(self, state: BugState, own: Sequence[int], opp: tuple[int, ...]) -> BugState:
        """The position after the mover's grow and eats, from its bugs ``own`` and the opponent's ``opp``
        left: the other player to move, or the game over if they cannot grow (R-B6)."""
        p = state.to_move
        assert p is not None
        mine_bits = 0
        for b in own:
            mine_bits |= b
        theirs_bits = 0
        for b in opp:
            theirs_bits |= b
        if p == 0:
            stones, bugs = (mine_bits, theirs_bits), (tuple(own), opp)
        else:
            stones, bugs = (theirs_bits, mine_bits), (opp, tuple(own))
        new = BugState(
            state.variant, state.eaters, state.board, stones, bugs, state.blocked, "grow", 1 - p, state.ply + 1, None, None
        )
        if not self.can_grow(new, 1 - p):
            new.to_move, new.winner, new.end = None, 1 - p, "stuck"  # R-B6: the player who cannot grow wins
        return new

    def _blacken(self, state: BugState, move: Move) -> tuple[BugState, list[Json]]:
        """Green Meadow's opening turns: blacken one empty cell (R-B2, R-B5)."""
        p = state.to_move
        assert p is not None
        board = state.board
        c = move[0]
        bit = 1 << c
        if (board.black | state.blocked) & bit:
            raise IllegalMove("blocked", f"{board.name(c)} is already black: blacken a cell of the board.", step=0, rule="R-B2")
        if (state.stones[0] | state.stones[1]) & bit:
            raise IllegalMove("occupied", f"{board.name(c)} is occupied.", step=0, rule="R-B2")
        if len(move) > 1:
            raise IllegalMove(
                "too_many_cells",
                f"This opening turn blackens exactly one cell; {board.name(move[1])} is one too many.",
                step=1,
                rule="R-B2",
            )
        blocked = state.blocked | bit
        phase, to_move = ("blacken", 1) if p == 0 else ("grow", 0)
        new = self._build(state.variant, state.eaters, board, state.stones, blocked, phase, to_move, state.ply + 1)
        events: list[Json] = [{"type": "blacken", "player": p, "cell": board.name(c)}]
        if new.end is not None:
            events.append({"type": "end", "winner": new.winner, "end": new.end})
        return new, events

    @staticmethod
    def _must_eat_message(board: HexBoard, own: list[int], due: list[Eat], move: Move) -> str:
        i, victims, bonus = due[0].eater, due[0].victims, due[0].bonus
        eaten = " and ".join(" ".join(board.names(o)) for o in victims)
        cells = ", ".join(board.names(bonus))
        last = board.name(move[-1])
        return (
            f"After {last} the move stops, but your bug {' '.join(board.names(own[i]))} must still eat the congruent "
            f"bug {eaten}: add a bonus cell ({cells})."
        )

    @staticmethod
    def _bad_bonus_message(state: BugState, own: list[int], due: list[Eat], empty: int, c: int) -> str:
        board = state.board
        bit = 1 << c
        allowed = 0
        for e in due:
            allowed |= e.bonus
        nbrs = board.neighbours[c]
        if (board.black | state.blocked) & bit:
            why = "that cell is not part of the board"
        elif not any(own[e.eater] & nbrs for e in due):
            eaters = " or ".join(" ".join(board.names(own[e.eater])) for e in due)
            why = f"it does not touch the eating bug {eaters}"
        elif sum(1 for b in own if b & nbrs) > 1:
            why = "it would merge the eating bug with another of your bugs"
        else:
            vacated = 0
            for e in due:
                vacated |= e.vacated
            why = "that cell is occupied" if not (empty | vacated) & bit else "it is not a legal growth"
        return f"Bonus cell {board.name(c)} is not a legal growth: {why}; the bonus may go on {', '.join(board.names(allowed))}."

    @staticmethod
    def _refusals(board: HexBoard, p: int, own: list[int], eats: list[Eat]) -> list[Json]:
        """Eats that do not happen for want of a bonus cell (R-B4), for an umpire to announce."""
        return [
            {
                "type": "eat_refused",
                "player": p,
                "eater": board.names(own[i]),
                "spared": [board.names(o) for o in victims],
            }
            for i, victims, _, bonus in eats
            if not bonus
        ]

    # -- listing and outcome ---------------------------------------------------

    def move_cells(self, state: BugState, limit: int | None = None) -> list[Move]:
        """Every complete legal move: each grow with each sequence of bonus
        choices (R-B5), in reading order; at most ``limit`` + 1 (to tell truncation)."""
        p = state.to_move
        if p is None:
            return []
        board = state.board
        empty = state.empty
        if state.phase == "blacken":
            return [(b,) for b in iter_bits(empty)]
        mine, opp = state.bugs[p], state.bugs[1 - p]
        legal, _, _ = grow_sets(board, mine, _largest_bug(state.bugs), empty)
        shapes = shape_table(board)
        cap = None if limit is None else limit + 1
        out: list[Move] = []
        eaters = state.eaters
        for c in iter_bits(legal):
            own, active = grown(board, mine, c)
            self._chains(board, shapes, eaters, own, active, opp, empty & ~(1 << c), (c,), out, cap)
            if cap is not None and len(out) >= cap:
                break
        return out

    def _chains(
        self,
        board: HexBoard,
        shapes: ShapeTable,
        eaters: str,
        own: list[int],
        active: int,
        opp: Bugs,
        empty: int,
        prefix: Move,
        out: list[Move],
        cap: int | None,
    ) -> None:
        """Extend ``prefix`` by every bonus choice until no eat is due (R-B4, R-B8)."""
        due = [e for e in find_eats(board, shapes, own, eater_range(eaters, active, own), opp, empty) if e.bonus]
        if not due:
            out.append(prefix)
            return
        for i, _, vacated, bonus in due:
            rest = tuple(o for o in opp if not o & vacated)
            freed = empty | vacated
            for b in iter_bits(bonus):
                if cap is not None and len(out) >= cap:
                    return
                grown = list(own)
                grown[i] |= 1 << b
                self._chains(board, shapes, eaters, grown, active, rest, freed & ~(1 << b), (*prefix, b), out, cap)

    def legal_moves(self, state: BugState, limit: int | None = None) -> LegalMoves:
        """Complete moves as notation strings: grow plus every bonus choice (API.md)."""
        moves = self.move_cells(state, limit)
        truncated = limit is not None and len(moves) > limit
        if limit is not None:
            moves = moves[:limit]
        name = state.board.name
        return LegalMoves([" ".join(name(b) for b in m) for m in moves], truncated, complete=True)

    def setup_options(self, state: BugState) -> Json:
        """A set-up position skips Green Meadow's blackening turns (R-B2); cells
        blackened so far stay off the board as ``blocked``."""
        return self.board_setup_options(state)

    def _finished(self, state: BugState, winner: int | None, end: str) -> BugState:
        return BugState(
            state.variant, state.eaters, state.board, state.stones, state.bugs, state.blocked, state.phase, None, state.ply,
            winner, end,
        )  # fmt: skip
