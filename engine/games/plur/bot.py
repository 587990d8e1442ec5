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

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.plur.rules import PlurState
from engine.groups import groups


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
