"""How the built-in bots play Too (RULES R-E2): a turn places one stone of *either*
colour on an empty cell, written ``B D4`` / ``W D4``; board values are
colours (0 black, 1 white); ``scores`` are ``[black's second-largest group,
white's second-largest]``; player 0 wins iff black's is larger, so player 1
wins ties.

Only the engine's public calls are used (``legal_moves``, ``play``, ``dump``).

* random: uniform over the engine's legal list (both colours, every empty cell).
* greedy: the move after which the second-largest comparison is best for the
  player (player 0: black's minus white's; player 1: the reverse), then the
  one that leaves the *other* colour's largest group largest: that colour's
  second-largest must end small, so its stones are best kept in one group.
  The comparison alone scored about 50% against random; with the second
  measure 368 of 400 (tests/tournament/test_bots.py).
* mcts: one step per legal move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.groups import largest_group
from engine.hexboard import hexhex
from umpire.bots.base import Knowledge, StepModel
from umpire.bots.mcts import LegalListModel


class TooKnowledge(Knowledge):
    name = "too"

    def random_move(self, state: Any, rng: random.Random) -> str:
        return rng.choice(self.game.legal_moves(state).moves)

    @staticmethod
    def largest(dumped: Mapping[str, Any], colour: int) -> int:
        """The largest group of ``colour`` (0 black, 1 white) on the state's hexhex board."""
        board = hexhex(int(dumped["options"].get("size", 5)))
        stones = 0
        for cell, value in dumped["board"].items():
            if value == colour:
                stones |= 1 << board.parse_cell(cell)
        return largest_group(board, stones)

    def value(self, dumped: Mapping[str, Any], player: int) -> tuple[float, int]:
        if dumped["status"] == "finished":
            return (float("inf") if dumped["winner"] == player else float("-inf")), 0
        black, white = dumped["scores"]
        if player == 0:  # black's second-largest must beat white's: keep white in one group
            return float(black - white), self.largest(dumped, 1)
        return float(white - black), self.largest(dumped, 0)

    def greedy_move(self, state: Any, rng: random.Random) -> str:
        game = self.game
        player = int(game.dump(state)["to_move"])
        return self.best_listed_move(state, rng, lambda after: self.value(game.dump(after), player))

    def model(self) -> StepModel[Any, Any]:
        return LegalListModel(self.game)

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        scores = final.get("scores")
        if not isinstance(scores, list) or len(scores) != 2:
            return super().end_detail(final, events)
        black, white = scores
        verdict = "larger" if black > white else "not larger"
        return (
            f"board full: black's second-largest group {black} against white's {white}: {verdict}, "
            f"so player {final.get('winner')} wins (R-E2)"
        )
