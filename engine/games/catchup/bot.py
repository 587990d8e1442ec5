"""What the built-in bots ask of Catchup (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-C1 to R-C4).

The evaluation: the player's group sizes after the turn against what the
opponent could reach next turn with the stones it will then have (the bonus
included), i.e. largest-group gain for itself and denial of the opponent's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.catchup.rules import Catchup, CatchupState
from engine.hexboard import iter_bits

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
