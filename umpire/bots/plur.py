"""How the built-in bots play Plur (RULES R-E1, R-E1a): a turn is one stone on an
empty cell (``D4``), or ``swap`` when the pie rule allows it; the engine
lists the legal moves; ``scores`` are ``[[sizes of player 0's groups],
[sizes of player 1's]]``, largest first.

Only the engine's public calls are used (``legal_moves``, ``play``,
``dump``), so nothing here depends on how the engine keeps a position.

* random: uniform over the engine's legal list (``swap`` included when legal).
* greedy: the move after which the player owns the most of the top groups
  as R-E1 counts them (k = 3, widened by 2 while the k-th and (k+1)-th groups
  tie), then its largest group, then the opponent's smallest largest group.
* mcts: one step per legal move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.plur import ladder
from umpire.bots.base import Knowledge, StepModel
from umpire.bots.mcts import LegalListModel


class PlurKnowledge(Knowledge):
    name = "plur"

    def random_move(self, state: Any, rng: random.Random) -> str:
        return rng.choice(self.game.legal_moves(state).moves)

    def value(self, state: Any, player: int) -> tuple[float, int, int]:
        """How good ``state`` is for ``player``: finished, the result; else how many
        more of the top groups R-E1's ladder counts they own, then their largest
        group, then the opponent's largest (smaller is better)."""
        if state.end is not None:
            w = state.winner
            return (0.0 if w is None else float("inf") if w == player else float("-inf")), 0, 0
        counts = ladder(state.groups)["counts"]
        own, opp = state.sizes(player), state.sizes(1 - player)
        return float(counts[player] - counts[1 - player]), own[0] if own else 0, -(opp[0] if opp else 0)

    def greedy_move(self, state: Any, rng: random.Random) -> str:
        game = self.game
        player = state.to_move
        best: tuple[tuple[float, int, int], float] | None = None
        choice = None
        for move in game.legal_moves(state).moves:
            verdict = game.play(state, move)
            if not verdict.legal:
                continue
            # after a swap the player to move is the same seat again: judge it from this seat all the same
            key = (self.value(verdict.state, player), rng.random())
            if best is None or key > best:
                best, choice = key, move
        return choice if choice is not None else self.random_move(state, rng)

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
