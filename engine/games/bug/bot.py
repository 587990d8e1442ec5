"""What the built-in bots ask of Bug (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-B1 to R-B8).

The evaluation, in order: the opponent's pieces fewest (what its eats took,
R-B4), its own largest bug largest (R-B7), then itself left with fewest
legal grows and the opponent with most (the player who cannot grow wins,
R-B6).  A move that leaves the opponent unable to grow hands them the game:
the greedy bot ranks that finished position last by its result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.games.bug.rules import Bug, BugState, Eat, eater_range, find_eats, grow_sets, grown
from engine.hexboard import HexBoard
from engine.polyhex import ShapeTable, shape_table
from engine.room import STOP, Guide


def grows(state: BugState, player: int) -> int:
    """How many cells ``player`` could grow on in ``state`` (R-B3)."""
    largest = max(state.largest(0), state.largest(1))
    return grow_sets(state.board, state.bugs[player], largest, state.empty)[0].bit_count()


def evaluation(state: BugState, player: int) -> tuple[int, int, int]:
    opp = 1 - player
    return -state.stones[opp].bit_count(), state.largest(player), grows(state, opp) - grows(state, player)


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    winner = final.get("winner")
    if final.get("end") != "stuck" or winner is None:
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"{final.get('end')}: {who}, scores {final.get('scores')}"
    return (
        f"player {winner} was to move and could not grow, so player {winner} wins (R-B6); "
        f"pieces on the board {final.get('scores')}, largest bugs {final.get('largest')}"
    )


# -- the strong bot's guide (engine/room.py Guide; umpire/bots/strong.py) ------------------------
#
# Measured against ``mcts`` at 0.3 s a move (20 games each, engine alone, a shared machine; the
# spread of 20 games is wide, about +-11%): a value from a static logistic fit (pieces, largest
# bugs, grows) lost; values from random games did better, and best when a playout does not hand
# the game over; priors ranked as greedy ranks sharply (0.7 a place) lost to mcts, flat ones
# too, mild ones (0.15) did best; and with noisy values a UCB1 term (0.7) in the selection.
# Then (issue 37, 16 games a setting at 0.5 s a move, engine alone, a load average of 16 to 19 on
# the two cores): playouts on the bit sets rather than through the engine's list of every eat
# chain, priors completing an eat by its first bonus cell rather than by every completion, and
# nodes that read their steps from the list of whole moves (umpire/bots/strong.py) made an
# iteration several times cheaper; one playout a value then scored 14-2 against mcts, two (with
# eight redraws) 12-4, and four 12-8 over 20 games at 1 s; a UCB1 term of 1.0 scored 8-8 (0.4:
# 14-2), priors of 0.3 a place 8-8.

GAME = Bug()
PLAYOUTS = 1  # random games per value (Bug's ends are tactics a static measure misses): more nodes beat more games a node
REDRAWS = 3  # a playout's move that hands the game over is drawn again up to this many times
RANK_STEP = 0.15  # the prior's score falls this much per place in greedy's ranking
EXPLORATION = 0.7  # the search's UCB1 term (engine/room.py Guide): the values are random games


def _playout(state: BugState, rng: random.Random) -> float:
    """Player 0's result of a game from ``state`` played at random, except that
    a player does not hand the game over: a move that leaves the opponent no
    grow (R-B6: the opponent wins) is drawn again, up to ``REDRAWS`` times.
    A move is a random legal grow (R-B3), then while an eat is due a random
    one of them and a random bonus cell of it (R-B4, R-B8), played on the bit
    sets (:func:`_eats`); the legal grows of the next player, which say
    whether the move handed the game over, are that player's draw."""
    if state.phase != "grow":  # Green Meadow's blackening turns (R-B2): through the engine
        state = GAME.apply(state, rng.choice(GAME.move_cells(state)))[0]
        if state.winner is not None:  # R-B6: the player to grow first cannot
            return 1.0 - state.winner
        return _playout(state, rng)
    p = state.to_move
    assert p is not None
    board, eaters, empty, bugs = state.board, state.eaters, state.empty, state.bugs
    shapes = shape_table(board)
    legal = grow_sets(board, bugs[p], _largest(bugs), empty)[0]

    def pick(bits: int) -> int:
        return _nth_bit(bits, rng.randrange(bits.bit_count()))

    def pick_eat(due: list[Eat]) -> tuple[Eat, int]:
        eat = rng.choice(due)
        return eat, pick(eat.bonus)

    while True:
        for _ in range(REDRAWS + 1):
            cell = pick(legal)
            own, opp, left, _ = _eats(board, shapes, eaters, bugs[p], bugs[1 - p], empty & ~(1 << cell), cell, pick_eat)
            after = (tuple(own), opp) if p == 0 else (opp, tuple(own))
            after_legal = grow_sets(board, after[1 - p], _largest(after), left)[0]
            if after_legal:
                break
        if not after_legal:
            return float(p)  # R-B6: player 1 - p cannot grow and wins
        bugs, empty, legal, p = after, left, after_legal, 1 - p


def _largest(bugs: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
    """The size of the largest bug on the board, either colour (R-B3)."""
    return max((b.bit_count() for side in bugs for b in side), default=0)


def _eats(
    board: HexBoard,
    shapes: ShapeTable,
    eaters: str,
    mine: tuple[int, ...],
    opp: tuple[int, ...],
    empty: int,
    cell: int,
    pick_eat: Callable[[list[Eat]], tuple[Eat, int]],
) -> tuple[list[int], tuple[int, ...], int, list[int]]:
    """The grow on ``cell`` (legal, already off ``empty``) and the eats with
    their bonus cells that ``pick_eat`` chooses among those due (R-B3, R-B4,
    R-B8), played on the bit sets as :meth:`Bug.apply` plays them: the mover's
    bugs, the opponent's, the empty cells, and the move's cells."""
    own, active = grown(board, mine, cell)
    cells = [cell]
    while True:
        due = [e for e in find_eats(board, shapes, own, eater_range(eaters, active, own), opp, empty) if e.bonus]
        if not due:
            return own, opp, empty, cells
        eat, bonus = pick_eat(due)
        cells.append(bonus)
        own[eat.eater] |= 1 << bonus
        opp = tuple(o for o in opp if not o & eat.vacated)
        empty = (empty | eat.vacated) & ~(1 << bonus)


def _grown(
    state: BugState, pick: Callable[[int], int], pick_eat: Callable[[list[Eat]], tuple[Eat, int]]
) -> tuple[BugState, tuple[int, ...]]:
    """The position after the grow ``pick`` chooses among the legal ones (a bit
    set) and the eats with their bonus cells ``pick_eat`` chooses among those
    due, and the move's cells (:func:`_eats`); tests/test_bug_guide.py holds it
    to :meth:`Bug.apply`."""
    p = state.to_move
    assert p is not None
    board = state.board
    empty = state.empty
    cell = pick(grow_sets(board, state.bugs[p], _largest(state.bugs), empty)[0])
    own, opp, empty, cells = _eats(
        board, shape_table(board), state.eaters, state.bugs[p], state.bugs[1 - p], empty & ~(1 << cell), cell, pick_eat
    )
    return GAME.after_grow(state, own, opp), tuple(cells)


def _nth_bit(bits: int, n: int) -> int:
    """The index of the ``n``-th set bit of ``bits`` (0 the lowest)."""
    for _ in range(n):
        bits &= bits - 1
    return (bits & -bits).bit_length() - 1


def value(state: BugState) -> float:
    """Player 0's chances: the share of ``PLAYOUTS`` games to the end (:func:`_playout`)
    player 0 wins, the same games for the same position (the draws are seeded
    by it), kept off 0 and 1 (a few random games prove nothing)."""
    rng = random.Random(hash((state.stones, state.blocked, state.ply)))
    played = sum(_playout(state, rng) for _ in range(PLAYOUTS)) / PLAYOUTS
    return min(0.99, max(0.01, played))


def priors(state: BugState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """The moves ranked as the greedy bot ranks them (:func:`evaluation`; a move
    that ends the game first or last by its winner, R-B6), each place down
    ``RANK_STEP`` less likely: with little time the search plays greedy's move.
    A step the move must go on from (a bonus growth to come, R-B4) ranks by
    one completion, each eat's first bonus cell: listing every completion
    costs a node more than the rest of its search."""
    p = state.to_move
    assert p is not None
    if state.phase == "grow":
        index = state.board.index
        keys = [_rank_key(_completed(state, [index[c] for c in (*prefix, s) if c != STOP]), p) for s in steps]
    else:
        keys = [_rank_key(GAME.play(state, s).state, p) for s in steps]  # a cell to blacken: a whole move (R-B2)
    order = sorted(range(len(steps)), key=keys.__getitem__, reverse=True)
    out = [0.0] * len(steps)
    for rank, i in enumerate(order):
        out[i] = -RANK_STEP * rank
    return out


def _completed(state: BugState, cells: Sequence[int]) -> BugState:
    """The position after the move that begins with the legal ``cells`` (a grow,
    then bonus cells) and goes on with each eat's first bonus cell (R-B4)."""
    forced = iter(cells[1:])

    def pick_eat(due: list[Eat]) -> tuple[Eat, int]:
        bonus = next(forced, None)
        if bonus is None:
            eat = due[0]
            return eat, _nth_bit(eat.bonus, 0)
        return next(e for e in due if e.bonus >> bonus & 1), bonus

    return _grown(state, lambda _: cells[0], pick_eat)[0]


def _rank_key(after: BugState, player: int) -> tuple[Any, ...]:
    """Greedy's order of a move's outcome (umpire/bots/moves.py): a win, then the evaluation, then a loss."""
    if after.to_move is None:
        return (2,) if after.winner == player else (0,)
    if after.phase != "grow":
        return (1, (0, 0, 0))
    return (1, evaluation(after, player))


GUIDE = Guide(value, priors, EXPLORATION)
