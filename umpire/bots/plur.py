"""How the built-in bots play Plur (RULES R-E1, R-E1a): a turn is one stone on an
empty cell (``D4``), or ``swap`` when the pie rule allows it; the engine
lists the legal moves; ``scores`` are ``[[sizes of player 0's groups],
[sizes of player 1's]]``, largest first.

The engine's public calls choose and judge the moves (``legal_moves``,
``play``); greedy reads a position's stones and empty cells as bit sets.

* random: uniform over the engine's legal list (``swap`` included when legal).
* greedy: R-E1's ladder starts at the three largest groups, and a player
  owns two of those when their second-largest group is larger than the
  opponent's second-largest (when those tie, the third-largest decide as k
  widens to 5).  So greedy plays the move after which its second-largest *reach*
  beats the opponent's by the most, then its third-largest; a colour's reach
  is its stones with every empty cell touching them, grouped (the groups it
  could still grow into).  A stone thus grows one of the player's two best
  groups and blocks the opponent's: it takes an empty cell away from their
  reach.  Comparing the groups themselves instead (not their reach) scored
  about 80% against random; the former measure (the ladder's counts on the
  board as it stands, then the largest group) about 50%, no better than
  random.  Over 400 games against random it scores 382 (95%); the figures
  of every game are in tests/tournament/test_bots.py.
* mcts: one step per legal move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.groups import groups
from umpire.bots.base import Knowledge, StepModel
from umpire.bots.mcts import LegalListModel


class PlurKnowledge(Knowledge):
    name = "plur"

    def random_move(self, state: Any, rng: random.Random) -> str:
        return rng.choice(self.game.legal_moves(state).moves)

    @staticmethod
    def reach(state: Any, player: int) -> list[int]:
        """The sizes of ``player``'s reach, largest first, padded with zeros: the
        groups of their stones together with every empty cell next to one."""
        board, stones = state.board, state.stones[player]
        grown = board.dilate(stones) & (stones | state.empty)
        return [*sorted((g.bit_count() for g in groups(board, grown)), reverse=True), 0, 0, 0]

    def value(self, state: Any, player: int) -> tuple[float, int]:
        """How good ``state`` is for ``player``: finished, the result; else by how
        much their second-largest reach beats the opponent's (R-E1's ladder at
        k = 3), then their third-largest (the ladder widened to k = 5)."""
        if state.end is not None:
            w = state.winner
            return (0.0 if w is None else float("inf") if w == player else float("-inf")), 0
        own, opp = self.reach(state, player), self.reach(state, 1 - player)
        return float(own[1] - opp[1]), own[2] - opp[2]

    def greedy_move(self, state: Any, rng: random.Random) -> str:
        player = state.to_move
        # after a swap the player to move is the same seat again: judge it from this seat all the same
        return self.best_listed_move(state, rng, lambda after: self.value(after, player))

    def model(self) -> StepModel[Any, Any]:
        return LegalListModel(self.game)

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        end = next((e for e in events if e.get("type") == "end" and "ladder" in e), None)
        if end is None:
            return super().end_detail(final, events)
        result = end["ladder"]
        owned0, owned1 = result["counts"]
        who = "a draw" if end["winner"] is None else f"player {end['winner']} wins"
        largest = "every group" if result["all"] else f"the {result['k']} largest groups"
        return f"board full: of {largest} player 0 owns {owned0}, player 1 owns {owned1}: {who} (R-E1)"
