"""What the built-in bots ask of Too (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-E2).

Player 0 wins iff black's second-largest group is larger than white's.  The
evaluation: the second-largest comparison from the player's side (player 0:
black's minus white's; player 1: the reverse), then the *other* colour's
largest group largest: that colour's second-largest must end small, so its
stones are best kept in one group.  The comparison alone scored about 50%
against random; with the second measure about 92%.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.too.rules import TooState, second, winner_of
from engine.groups import groups
from engine.hexboard import iter_bits
from engine.playouts import scatter
from engine.room import Guide


def evaluation(state: TooState, player: int) -> tuple[int, int]:
    black, white = state.scores
    other = 1 - player  # player 0 wants black's second-largest large; player 1 white's (colour = seat)
    largest = max((g.bit_count() for g in state.groups[other]), default=0)
    return (black - white if player == 0 else white - black), largest


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    scores = final.get("scores")
    if not isinstance(scores, list) or len(scores) != 2:
        return f"{final.get('end')}: player {final.get('winner')} wins, scores {scores}"
    black, white = scores
    verdict = "larger" if black > white else "not larger"
    return (
        f"board full: black's second-largest group {black} against white's {white}: {verdict}, "
        f"so player {final.get('winner')} wins (R-E2)"
    )


# -- the strong bot's guide (engine/room.py Guide; umpire/bots/strong.py) ------------------------

_FIT = (0.2551, -0.0441, 1.4947, -0.6192, 0.4218, 0.0818, 0.285, 0.4619)
FILLS = 4  # random full boards per value


def _reach(state: TooState, colour: int) -> int:
    """The second-largest group ``colour`` could make of its stones and the empty cells around them (R-E2)."""
    board, stones = state.board, state.stones[colour]
    grown = board.dilate(stones) & (stones | state.empty)
    return second(tuple(groups(board, grown)))


def _static(state: TooState) -> float:
    """Player 0's chances from the position alone: a logistic fit, to the
    results of 300 games of ``greedy`` against itself (15% of moves random),
    of black's lead over white at each of the three largest groups (the
    second weighing more as the board fills, R-E2) and in reach (:func:`_reach`)."""
    p = state.to_move
    assert p is not None
    black, white = [*state.sizes(0), 0, 0, 0], [*state.sizes(1), 0, 0, 0]
    late = 1.0 - state.empty.bit_count() / state.board.mask.bit_count()
    ahead = _reach(state, 0) - _reach(state, 1)
    sign = 1 if p == 0 else -1  # fitted from the side of the player to move
    second_ahead = black[1] - white[1]
    x = (second_ahead, second_ahead * late, black[0] - white[0], black[2] - white[2], ahead, ahead * late, 0.5)
    z = _FIT[0] + sign * sum(w * v for w, v in zip(_FIT[1:], x, strict=True))
    chance = 1.0 / (1.0 + math.exp(-z))
    return chance if p == 0 else 1.0 - chance


def value(state: TooState) -> float:
    """Player 0's chances: half the share of random full boards player 0 wins
    (each empty cell black or white with even odds, R-E2), half :func:`_static`."""
    rng = random.Random(hash((state.stones, state.blocked)))
    cells = list(iter_bits(state.empty))
    won = 0
    for _ in range(FILLS):
        b, w = scatter(cells, rng)
        black = second(tuple(groups(state.board, state.stones[0] | b)))
        white = second(tuple(groups(state.board, state.stones[1] | w)))
        won += winner_of(black, white) == 0
    return 0.5 * won / FILLS + 0.5 * _static(state)


def priors(state: TooState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """Every stone alike (the search's own values rank them)."""
    return [0.0] * len(steps)


GUIDE = Guide(value, priors)
