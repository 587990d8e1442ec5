"""How the built-in bots play Bug (RULES R-B1 to R-B8).

A Bug turn is one complete move (grow plus every bonus cell, R-B5), and the
engine lists them all (``Bug.complete_moves``), so:

* random: uniform over the complete moves (in Green Meadow's opening, over
  the cells to blacken);
* greedy: never a move that leaves the opponent unable to grow (R-B6: that
  hands them the game), then the move that eats most (one bonus cell per
  eat), then the one that leaves its largest bug largest, then the one that
  leaves itself fewest legal grows and the opponent most (the player who
  cannot grow wins); ties broken at random.  Without that last measure the
  greedy bot won about 65% of games against random on side 3; with it about 80%;
* mcts: each step is a whole complete move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.bug.rules import Bug, BugState, grow_sets
from umpire.bots.base import Knowledge, StepModel, result


class BugKnowledge(Knowledge):
    name = "bug"

    @property
    def engine(self) -> Bug:
        game = self.game
        assert isinstance(game, Bug)
        return game

    def text(self, state: BugState, move: Sequence[int]) -> str:
        return " ".join(state.board.labels[c] for c in move)

    def random_move(self, state: BugState, rng: random.Random) -> str:
        return self.text(state, rng.choice(self.engine.complete_moves(state)))

    @staticmethod
    def grows(state: BugState, player: int) -> int:
        """How many cells ``player`` could grow on in ``state`` (R-B3)."""
        largest = max(state.largest(0), state.largest(1))
        return grow_sets(state.board, state.bugs[player], largest, state.empty)[0].bit_count()

    def greedy_move(self, state: BugState, rng: random.Random) -> str:
        p = state.to_move
        assert p is not None
        game = self.engine
        best: tuple[bool, int, int, int, float] | None = None
        choice: tuple[int, ...] | None = None
        for move in game.complete_moves(state):
            after, _ = game.apply(state, move)
            lost = after.to_move is None and after.winner != p  # R-B6: the opponent, stuck, would win at once
            mobility = self.grows(after, 1 - p) - self.grows(after, p)
            key = (not lost, len(move) - 1, after.largest(p), mobility, rng.random())
            if best is None or key > best:
                best, choice = key, move
        assert choice is not None
        return self.text(state, choice)

    def model(self) -> StepModel[Any, Any]:
        return BugSteps(self.engine)

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        winner = final.get("winner")
        if final.get("end") != "stuck" or winner is None:
            return super().end_detail(final, events)
        pieces = final.get("scores")
        return (
            f"player {winner} was to move and could not grow, so player {winner} wins (R-B6); "
            f"pieces on the board {pieces}, largest bugs {final.get('largest')}"
        )


class BugSteps(StepModel[BugState, tuple[int, ...]]):
    """One step per complete move."""

    def __init__(self, game: Bug) -> None:
        self.game = game

    def root(self, state: BugState) -> BugState:
        return state

    def mover(self, node: BugState) -> int | None:
        return node.to_move

    def actions(self, node: BugState) -> Sequence[tuple[int, ...]]:
        return self.game.complete_moves(node)

    def child(self, node: BugState, action: tuple[int, ...]) -> BugState:
        return self.game.apply(node, action)[0]

    def completes(self, node: BugState, action: tuple[int, ...]) -> str | None:
        return " ".join(node.board.labels[c] for c in action)

    def finish(self, node: BugState, rng: random.Random) -> str:
        move = rng.choice(self.game.complete_moves(node))
        return " ".join(node.board.labels[c] for c in move)

    def rollout(self, node: BugState, rng: random.Random) -> float:
        state = node
        complete_moves, apply, choice = self.game.complete_moves, self.game.apply, rng.choice
        while state.to_move is not None:
            state, _ = apply(state, choice(complete_moves(state)))
        return result(state.winner)
