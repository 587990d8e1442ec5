"""What the built-in bots ask of Bug (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-B1 to R-B8).

The evaluation, in order: the opponent's pieces fewest (what its eats took,
R-B4), its own largest bug largest (R-B7), then itself left with fewest
legal grows and the opponent with most (the player who cannot grow wins,
R-B6).  A move that leaves the opponent unable to grow hands them the game:
the greedy bot ranks that finished position last by its result.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import IllegalMove
from engine.games.bug.rules import Bug, BugState, _largest_bug, grow_sets
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

GAME = Bug()
PLAYOUTS = 4  # random games per value: Bug's ends are tactics a static measure misses
STATIC = 0.0  # the static measure's share of a value
REDRAWS = 3  # a playout's move that hands the game over is drawn again up to this many times
_FIT = (-0.0082, 0.0722, 0.4401, -0.0335, -0.0689, 0.0353, 0.4971, -1.2728, 0.9282)


def _static(state: BugState) -> float:
    """The chances of the player to move from the position alone: a logistic
    fit, to the results of 300 games of ``greedy`` against itself (15% of
    moves random), of the piece and largest-bug leads (R-B7), each side's
    grows (R-B3) and whether it has one left at most (R-B6), and the empty
    cells."""
    p = state.to_move
    assert p is not None
    q = 1 - p
    gp, gq = grows(state, p), grows(state, q)
    x = (
        1.0,
        state.stones[p].bit_count() - state.stones[q].bit_count(),
        state.largest(p) - state.largest(q),
        gp,
        gq,
        gp - gq,
        1.0 if gp <= 1 else 0.0,
        1.0 if gq <= 1 else 0.0,
        state.empty.bit_count() / 10,
    )
    return 1.0 / (1.0 + math.exp(-sum(w * v for w, v in zip(_FIT, x, strict=True))))


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
        legal = grow_sets(state.board, state.bugs[mover], _largest_bug(state.bugs), state.empty)[0]
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
    """Player 0's chances: three parts random games to the end (the same games
    for the same position: the draws are seeded by it) and one part
    :func:`_static`."""
    p = state.to_move
    assert p is not None
    rng = random.Random(hash((state.stones, state.blocked, state.ply)))
    played = sum(_playout(state, rng) for _ in range(PLAYOUTS)) / PLAYOUTS
    static = _static(state) if STATIC and state.phase == "grow" else 0.5
    chance = (1.0 - STATIC) * played + STATIC * (static if p == 0 else 1.0 - static)
    return min(0.99, max(0.01, chance))


RANK_STEP = 0.7  # the prior's score falls this much per place in the evaluation's ranking


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


GUIDE = Guide(value, priors)
