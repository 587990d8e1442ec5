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
PLAYOUTS = 2  # random games per value: Bug's ends are tactics a static measure misses
STATIC = 0.25  # the static measure's share of a value
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
    """Player 0's result of a random game from ``state``: each turn a random
    legal grow (R-B3), and where it must eat, a random one of its complete
    moves (R-B4) from the engine's list."""
    while state.to_move is not None:
        if state.phase == "grow":
            legal = grow_sets(state.board, state.bugs[state.to_move], _largest_bug(state.bugs), state.empty)[0]
            cell = _nth_bit(legal, rng.randrange(legal.bit_count()))
            try:
                state = GAME.apply(state, (cell,))[0]
                continue
            except IllegalMove:  # an eat is due: the move goes on with bonus cells
                moves = [m for m in GAME.move_cells(state) if m[0] == cell]
        else:
            moves = GAME.move_cells(state)
        state = GAME.apply(state, rng.choice(moves))[0]
    return 0.5 if state.winner is None else 1.0 - state.winner


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
    static = _static(state) if state.phase == "grow" else 0.5
    chance = (1.0 - STATIC) * played + STATIC * (static if p == 0 else 1.0 - static)
    return min(0.99, max(0.01, chance))


def priors(state: BugState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """A step that completes a move by the position it leaves for the mover
    (:func:`_static`; an end at once, R-B6, first or last by its winner); a
    step the move must go on from (a bonus growth to come, R-B4) stays even."""
    p = state.to_move
    out = []
    for s in steps:
        verdict = GAME.play(state, " ".join([*prefix, s]))
        if not verdict.legal:
            out.append(0.0)
            continue
        after = verdict.state
        if after.to_move is None:
            out.append(20.0 if after.winner == p else -20.0)
        elif after.phase != "grow":
            out.append(0.0)
        else:
            out.append(4.0 * (1.0 - _static(after)))  # the opponent is to move after
    return out


GUIDE = Guide(value, priors)
