"""How the built-in bots play Plur (RULES R-E1, R-E1a), written to the spec
while the engine's Plur is being built on main: a turn is one stone on an
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

from umpire.bots.base import Knowledge, StepModel
from umpire.bots.mcts import LegalListModel


def top_groups(sizes0: Sequence[int], sizes1: Sequence[int]) -> tuple[int, int, int]:
    """R-E1: (k, how many of the k largest groups player 0 owns, how many player 1 owns)."""
    groups = sorted([(s, 0) for s in sizes0] + [(s, 1) for s in sizes1], key=lambda g: -g[0])
    k = 3
    while k < len(groups) and groups[k - 1][0] == groups[k][0]:
        k += 2
    top = groups[:k]
    owned0 = sum(1 for _, owner in top if owner == 0)
    return k, owned0, len(top) - owned0


class PlurKnowledge(Knowledge):
    name = "plur"

    def random_move(self, state: Any, rng: random.Random) -> str:
        return rng.choice(self.game.legal_moves(state).moves)

    def value(self, dumped: Mapping[str, Any], player: int) -> tuple[float, int, int]:
        if dumped["status"] == "finished":
            w = dumped["winner"]
            return (0.0 if w is None else float("inf") if w == player else float("-inf")), 0, 0
        sizes = dumped["scores"]
        _, owned0, owned1 = top_groups(sizes[0], sizes[1])
        mine, theirs = (owned0, owned1) if player == 0 else (owned1, owned0)
        own = sizes[player][0] if sizes[player] else 0
        opp = sizes[1 - player][0] if sizes[1 - player] else 0
        return float(mine - theirs), own, -opp

    def greedy_move(self, state: Any, rng: random.Random) -> str:
        game = self.game
        player = int(game.dump(state)["to_move"])
        best: tuple[tuple[float, int, int], float] | None = None
        choice = None
        for move in game.legal_moves(state).moves:
            verdict = game.play(state, move)
            if not verdict.legal:
                continue
            after = game.dump(verdict.state)
            # after a swap the player to move is the same seat again: judge it from this seat all the same
            key = (self.value(after, player), rng.random())
            if best is None or key > best:
                best, choice = key, move
        return choice if choice is not None else self.random_move(state, rng)

    def model(self) -> StepModel[Any, Any]:
        return LegalListModel(self.game)

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        sizes = final.get("scores")
        if not isinstance(sizes, list) or len(sizes) != 2 or not all(isinstance(s, list) for s in sizes):
            return super().end_detail(final, events)
        k, owned0, owned1 = top_groups(sizes[0], sizes[1])
        winner = final.get("winner")
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"board full: of the {k} largest groups player 0 owns {owned0}, player 1 owns {owned1}: {who} (R-E1)"
