"""What the built-in bots ask of Catchup (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-C1 to R-C4).

The evaluation: the player's group sizes after the turn against what the
opponent could reach next turn with the stones it will then have (the bonus
included), i.e. largest-group gain for itself and denial of the opponent's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.catchup.rules import Catchup, CatchupState
from engine.groups import largest_group, place
from engine.hexboard import iter_bits
from engine.playouts import nearest
from engine.room import STOP, Guide

GAME = Catchup()


def potential(state: CatchupState, player: int, stones: int) -> int:
    """The largest group ``player`` could make with ``stones`` more stones:
    per group, its size plus the best gains of cells on its edge (a cell
    that also touches other groups of the player joins them)."""
    board = state.board
    nbrs = board.neighbours
    groups = state.groups[player]
    empty = state.empty
    best = min(stones, empty.bit_count())  # a new group of its own
    for g in groups:
        gains = []
        for c in iter_bits(board.dilate(g) & empty):
            gain = 1
            touch = nbrs[c]
            for h in groups:
                if h is not g and h & touch:
                    gain += h.bit_count()
            gains.append(gain)
        gains.sort(reverse=True)
        best = max(best, g.bit_count() + sum(gains[:stones]))
    return best


def evaluation(state: CatchupState, player: int) -> float:
    """Its own largest groups (R-C4 compares them in order), less the opponent's
    largest group or what the opponent could grow it to next turn (R-C1, R-C3)."""
    mine = [*GAME.group_sizes(state, player), 0, 0]
    theirs = [*GAME.group_sizes(state, 1 - player), 0, 0]
    threat = potential(state, 1 - player, GAME.max_stones(state))
    return 3.0 * mine[0] + mine[1] - 2.0 * max(threat, theirs[0]) - 0.5 * theirs[1]


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    """The full board's comparison of group sizes, and where it was decided (R-C4)."""
    groups = next((e.get("groups") for e in events if e.get("type") == "end" and e.get("groups")), None)
    winner = final.get("winner")
    if groups and winner is not None:
        a, b = groups[winner], groups[1 - winner]
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else 0
            y = b[i] if i < len(b) else 0
            if x != y:
                where = "largest groups" if i == 0 else f"{_ordinal(i + 1)} largest groups"
                return (
                    f"board full: player {winner}'s groups {'-'.join(map(str, a))} beat "
                    f"{'-'.join(map(str, b))}: the {where} differ, {x} to {y} (R-C4)"
                )
    who = "a draw" if winner is None else f"player {winner} wins"
    return f"{final.get('end')}: {who}, scores {final.get('scores')}"


# -- the strong bot's guide (engine/room.py Guide; umpire/bots/strong.py) ------------------------


def value(state: CatchupState) -> float:
    """Player 0's chances: the lead in the largest group now and in the largest
    group of each player's share of the board as it would fill (each empty
    cell to the nearer side: engine/playouts.py ``nearest``), both
    weighing more as the board fills, and the stones the player to move may
    place (R-C1, R-C3); a logistic fit of those to the results of 200 games
    of ``greedy`` against itself (15% of moves random; 70% of their positions
    called right, a quarter of the games held out)."""
    p = state.to_move
    assert p is not None
    board = state.board
    late = 1.0 - state.empty.bit_count() / board.mask.bit_count()
    now = state.scores[p] - state.scores[1 - p]
    filled = nearest(board, state.stones[0], state.stones[1], state.empty)
    ahead = largest_group(board, filled[p]) - largest_group(board, filled[1 - p])
    z = 0.29 + late * (0.31 * now + 0.27 * ahead) + 0.11 * (GAME.max_stones(state) - 2)
    chance = 1.0 / (1.0 + math.exp(-z))
    return chance if p == 0 else 1.0 - chance


def priors(state: CatchupState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """A stone is likelier the larger the group it makes (above all when that
    beats the player's largest, R-C2) and the more of the opponent's largest
    group it touches (a cell they will not grow into); ending the turn early
    is an option, less likely than the best stone."""
    p = state.to_move
    assert p is not None
    board = state.board
    index, nbrs = board.index, board.neighbours
    mine = state.stones[p]
    groups = state.groups[p]
    for s in prefix:
        b = index[s]
        groups = place(groups, nbrs[b] & mine, 1 << b)
        mine |= 1 << b
    largest = max((g.bit_count() for g in groups), default=0)
    theirs = state.groups[1 - p]
    top = max(theirs, key=int.bit_count, default=0)
    top_size = top.bit_count()
    out = []
    for s in steps:
        if s == STOP:
            out.append(-1.0)
            continue
        b = index[s]
        touch = nbrs[b] & mine
        made = 1 + sum(g.bit_count() for g in groups if g & touch) if touch else 1
        score = 0.25 * made + 0.6 * max(0, made - largest)
        if nbrs[b] & top:
            score += 0.15 * top_size
        out.append(score)
    if STOP in steps:
        out[steps.index(STOP)] = max(out) - 1.5
    return out


GUIDE = Guide(value, priors)
