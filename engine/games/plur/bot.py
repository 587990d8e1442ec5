"""What the built-in bots ask of Plur (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-E1, R-E1a).

R-E1's ladder starts at the three largest groups, and a player owns two of
those when their second-largest group is larger than the opponent's
second-largest (when those tie, the third-largest decide as k widens to 5).
So the evaluation is by how much the player's second-largest *reach* beats
the opponent's, then the third-largest; a colour's reach is its stones with
every empty cell touching them, grouped (the groups it could still grow
into).  A stone thus grows one of the player's two best groups and blocks
the opponent's: it takes an empty cell away from their reach.  Comparing the
groups themselves instead (not their reach) scored about 80% against random;
the ladder's counts on the board as it stands about 50%, no better than random.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.plur.rules import PlurState, ladder, ladder_winner
from engine.groups import groups
from engine.hexboard import iter_bits
from engine.playouts import scatter
from engine.room import Guide


def reach(state: PlurState, player: int) -> list[int]:
    """The sizes of ``player``'s reach, largest first, padded with zeros."""
    board, stones = state.board, state.stones[player]
    grown = board.dilate(stones) & (stones | state.empty)
    return [*sorted((g.bit_count() for g in groups(board, grown)), reverse=True), 0, 0, 0]


def evaluation(state: PlurState, player: int) -> tuple[int, int]:
    own, opp = reach(state, player), reach(state, 1 - player)
    return own[1] - opp[1], own[2] - opp[2]


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    end = next((e for e in events if e.get("type") == "end" and "ladder" in e), None)
    if end is None:
        winner = final.get("winner")
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"{final.get('end')}: {who}, scores {final.get('scores')}"
    result = end["ladder"]
    owned0, owned1 = result["counts"]
    who = "a draw" if end["winner"] is None else f"player {end['winner']} wins"
    largest = "every group" if result["all"] else f"the {result['k']} largest groups"
    return f"board full: of {largest} player 0 owns {owned0}, player 1 owns {owned1}: {who} (R-E1)"


# -- the strong bot's guide (engine/room.py Guide; umpire/bots/strong.py) ------------------------

_FIT = (-0.0923, -0.0625, -0.0343, -0.0196, -0.0894, -0.1876, 0.0692, -0.1226, 0.1995, 0.1738, 0.323)
FILLS = 4  # random full boards per value


def _owned(mine: Sequence[int], theirs: Sequence[int], k: int = 3) -> int:
    """Of the ``k`` largest groups of both sides (sizes largest first), how many more are ``mine`` (R-E1)."""
    ranked = sorted([(s, 1) for s in mine if s] + [(s, -1) for s in theirs if s], reverse=True)
    return sum(side for _, side in ranked[:k])


def _static(state: PlurState) -> float:
    """The chances of the player to move from the position alone: a logistic
    fit, to the results of 300 games of ``greedy`` against itself (15% of
    moves random), of the differences in reach (:func:`reach`) and in group
    sizes at each of the three first ranks, and of how many of the three
    largest each side owns (R-E1), the later ones weighing more as the board fills."""
    p = state.to_move
    assert p is not None
    rp, rq = reach(state, p), reach(state, 1 - p)
    gp, gq = [*state.sizes(p), 0, 0, 0], [*state.sizes(1 - p), 0, 0, 0]
    late = 1.0 - state.empty.bit_count() / state.board.mask.bit_count()
    x = (
        1.0, rp[0] - rq[0], rp[1] - rq[1], rp[2] - rq[2], gp[0] - gq[0], gp[1] - gq[1], gp[2] - gq[2],
        _owned(rp, rq), _owned(gp, gq) * late, (rp[1] - rq[1]) * late, (gp[1] - gq[1]) * late,
    )  # fmt: skip
    return 1.0 / (1.0 + math.exp(-sum(w * v for w, v in zip(_FIT, x, strict=True))))


def value(state: PlurState) -> float:
    """Player 0's chances: half the share of random full boards player 0 wins
    (the empty cells split at random, each player getting the stones its turns
    to come place: R-E1's ladder of each), half :func:`_static`."""
    p = state.to_move
    assert p is not None
    rng = random.Random(hash((state.stones, state.blocked, p)))
    cells = list(iter_bits(state.empty))
    mover = (len(cells) + 1) // 2  # the player to move places the odd one
    won = 0.0
    for _ in range(FILLS):
        a, b = scatter(cells, rng, mover)
        filled = (state.stones[0] | a, state.stones[1] | b) if p == 0 else (state.stones[0] | b, state.stones[1] | a)
        winner = ladder_winner(ladder((tuple(groups(state.board, filled[0])), tuple(groups(state.board, filled[1])))))
        won += 0.5 if winner is None else 1.0 - winner
    static = _static(state)
    return 0.5 * won / FILLS + 0.5 * (static if p == 0 else 1.0 - static)


def priors(state: PlurState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """Every stone alike (the search's own values rank them)."""
    return [0.0] * len(steps)


GUIDE = Guide(value, priors)
