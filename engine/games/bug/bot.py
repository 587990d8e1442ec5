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
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import IllegalMove
from engine.games.bug.rules import Bug, BugState, grow_sets
from engine.room import Guide


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

GAME = Bug()
PLAYOUTS = 4  # random games per value: Bug's ends are tactics a static measure misses
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
    """``state`` after a random legal move of the player to move."""
    if state.phase == "grow":
        mover = state.to_move
        assert mover is not None
        largest = max(state.largest(0), state.largest(1))
        legal = grow_sets(state.board, state.bugs[mover], largest, state.empty)[0]
        cell = _nth_bit(legal, rng.randrange(legal.bit_count()))
        try:
            return GAME.apply(state, (cell,))[0]
        except IllegalMove:  # an eat is due: the move goes on with bonus cells
            moves = [m for m in GAME.move_cells(state) if m[0] == cell]
    else:
        moves = GAME.move_cells(state)
    return GAME.apply(state, rng.choice(moves))[0]


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
    A step the move must go on from (a bonus growth to come, R-B4) ranks by its
    best completion."""
    p = state.to_move
    assert p is not None
    keys: list[tuple[Any, ...]] = []
    for s in steps:
        verdict = GAME.play(state, " ".join([*prefix, s]))
        if verdict.legal:
            keys.append(_rank_key(verdict.state, p))
            continue
        best = None
        for move in GAME.legal_moves(state).moves:
            cells = move.split()
            if cells[: len(prefix) + 1] == [*prefix, s]:
                key = _rank_key(GAME.play(state, move).state, p)
                best = key if best is None or key > best else best
        keys.append(best if best is not None else (1, 0))
    order = sorted(range(len(steps)), key=keys.__getitem__, reverse=True)
    out = [0.0] * len(steps)
    for rank, i in enumerate(order):
        out[i] = -RANK_STEP * rank
    return out


def _rank_key(after: BugState, player: int) -> tuple[Any, ...]:
    """Greedy's order of a move's outcome (umpire/bots/moves.py): a win, then the evaluation, then a loss."""
    if after.to_move is None:
        return (2,) if after.winner == player else (0,)
    if after.phase != "grow":
        return (1, (0, 0, 0))
    return (1, evaluation(after, player))


GUIDE = Guide(value, priors, EXPLORATION)
