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
from engine.polyhex import shape_table
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
    A move is a random legal grow (R-B3), and where it must eat, a random one
    of its complete moves (R-B4) from the engine's list."""
    while state.to_move is not None:
        mover = state.to_move
        for _ in range(REDRAWS + 1):
            after = _random_move(state, rng)
            if after.to_move is not None or after.winner == mover:
                break
        state = after
    return 0.5 if state.winner is None else 1.0 - state.winner


def _random_move(state: BugState, rng: random.Random) -> BugState:
    """``state`` after a random legal move of the player to move: a random legal
    grow (R-B3), then while an eat is due a random one of them and a random
    bonus cell of it (R-B4, R-B8).  Played on the bit sets as
    :meth:`Bug.apply` plays it, without its events and their cell names (a
    playout's whole cost): tests/test_bug_guide.py holds the two to the same
    positions."""
    if state.phase != "grow":
        return GAME.apply(state, rng.choice(GAME.move_cells(state)))[0]

    def pick(bits: int) -> int:
        return _nth_bit(bits, rng.randrange(bits.bit_count()))

    def pick_eat(due: list[Eat]) -> tuple[Eat, int]:
        eat = rng.choice(due)
        return eat, pick(eat.bonus)

    return _grown(state, pick, pick_eat)[0]


def _grown(
    state: BugState, pick: Callable[[int], int], pick_eat: Callable[[list[Eat]], tuple[Eat, int]]
) -> tuple[BugState, tuple[int, ...]]:
    """The position after the grow ``pick`` chooses among the legal ones (a bit
    set) and the eats with their bonus cells ``pick_eat`` chooses among those
    due, and the move's cells."""
    p = state.to_move
    assert p is not None
    board = state.board
    mine, opp = state.bugs[p], state.bugs[1 - p]
    empty = state.empty
    largest = max(state.largest(0), state.largest(1))
    cell = pick(grow_sets(board, mine, largest, empty)[0])
    own, active = grown(board, mine, cell)
    empty &= ~(1 << cell)
    cells = [cell]
    shapes = shape_table(board)
    while True:
        due = [e for e in find_eats(board, shapes, own, eater_range(state.eaters, active, own), opp, empty) if e.bonus]
        if not due:
            break
        eat, bonus = pick_eat(due)
        cells.append(bonus)
        own[eat.eater] |= 1 << bonus
        opp = tuple(o for o in opp if not o & eat.vacated)
        empty = (empty | eat.vacated) & ~(1 << bonus)
    mine_bits = theirs_bits = 0
    for b in own:
        mine_bits |= b
    for b in opp:
        theirs_bits |= b
    if p == 0:
        stones, bugs = (mine_bits, theirs_bits), (tuple(own), opp)
    else:
        stones, bugs = (theirs_bits, mine_bits), (opp, tuple(own))
    after = BugState(state.variant, state.eaters, board, stones, bugs, state.blocked, "grow", 1 - p, state.ply + 1, None, None)
    if not GAME.can_grow(after, 1 - p):
        after.to_move, after.winner, after.end = None, 1 - p, "stuck"  # R-B6: the player who cannot grow wins
    return after, tuple(cells)


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
