"""Monte Carlo tree search (UCT) over a game's step tree, with random playouts
and a time budget.

The tree's edges are *steps* (:class:`umpire.bots.base.StepModel`): in
Catchup one stone, in Crystal one shift, elsewhere a whole move.  Each node
keeps the wins of the player who took the step into it, so a turn of several
steps by one player is searched like any other sequence.  When time is up the
move is read down the most-visited steps until the turn is complete (a turn
the search left unfinished is completed at random, legally).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from engine.game import Game
from umpire.bots.base import StepModel, result, winner_of

EXPLORATION = 1.4  # UCT's constant: sqrt(2), the textbook value for rewards in [0, 1]


class _Node:
    __slots__ = ("action", "children", "mover", "parent_mover", "state", "untried", "visits", "wins")

    def __init__(self, state: Any, action: Hashable | None, parent_mover: int | None, model: StepModel[Any, Any]) -> None:
        self.state = state
        self.action = action
        self.parent_mover = parent_mover  # who took the step into this node
        self.mover = model.mover(state)
        self.untried: list[Any] | None = None  # filled on the first visit
        self.children: list[_Node] = []
        self.visits = 0
        self.wins = 0.0


def search(
    model: StepModel[Any, Any], state: Any, budget_s: float, rng: random.Random, max_iterations: int | None = None
) -> tuple[str, int]:
    """The move chosen from engine ``state`` within ``budget_s`` seconds, and the number of playouts."""
    root = _Node(model.root(state), None, None, model)
    end = time.perf_counter() + budget_s
    iterations = 0
    log = math.log
    sqrt = math.sqrt
    while True:
        if iterations & 7 == 0 and time.perf_counter() >= end:
            break
        if max_iterations is not None and iterations >= max_iterations:
            break
        iterations += 1
        node = root
        path = [node]
        # selection
        while True:
            if node.untried is None:
                node.untried = list(model.actions(node.state)) if node.mover is not None else []
                rng.shuffle(node.untried)
            if node.untried or not node.children:
                break
            ln = log(node.visits)
            node = max(node.children, key=lambda c: c.wins / c.visits + EXPLORATION * sqrt(ln / c.visits))
            path.append(node)
        # expansion
        if node.untried:
            action = node.untried.pop()
            child = _Node(model.child(node.state, action), action, node.mover, model)
            node.children.append(child)
            node = child
            path.append(node)
        # playout
        value = model.rollout(node.state, rng)  # player 0's result; at a finished node, just its winner's
        # back-propagation: each node counts the result of the player who stepped into it
        for n in path:
            n.visits += 1
            n.wins += value if n.parent_mover == 0 else 1.0 - value
    return _read_move(model, root, rng), iterations


def _read_move(model: StepModel[Any, Any], root: _Node, rng: random.Random) -> str:
    node = root
    while True:
        if not node.children:
            return model.finish(node.state, rng)
        best = max(node.children, key=lambda c: (c.visits, c.wins))
        text = model.completes(node.state, best.action)
        if text is not None:
            return text
        node = best


def budget(per_move_s: float, remaining_ms: int | None, turn_ms: int | None, bank_ms: int | None) -> float:
    """Seconds to think: ``per_move_s``, but never more than the clock allows:
    at most 80% of the turn allowance plus a twentieth of the bank, and at most
    half of what remains before the seat flags."""
    seconds = per_move_s
    if turn_ms is not None:
        seconds = min(seconds, 0.8 * turn_ms / 1000 + (bank_ms or 0) / 20000)
    if remaining_ms is not None:
        seconds = min(seconds, 0.5 * remaining_ms / 1000)
    return max(0.001, seconds)


class LegalListModel(StepModel[Any, str]):
    """The step tree of a game whose turn is one entry of the engine's legal-move
    list (Bug's complete moves; Plur, Too): each step is a whole move."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game

    def root(self, state: Any) -> Any:
        return state

    def mover(self, node: Any) -> int | None:
        if self.game.is_over(node):
            return None
        to_move = getattr(node, "to_move", None)  # every engine state so far has it; else ask the JSON form
        return int(to_move if to_move is not None else self.game.dump(node)["to_move"])

    def actions(self, node: Any) -> Sequence[str]:
        return self.game.legal_moves(node).moves

    def child(self, node: Any, action: str) -> Any:
        verdict = self.game.play(node, action)
        assert verdict.legal, verdict.error
        return verdict.state

    def completes(self, node: Any, action: str) -> str | None:
        return action

    def finish(self, node: Any, rng: random.Random) -> str:
        return rng.choice(self.game.legal_moves(node).moves)

    def rollout(self, node: Any, rng: random.Random) -> float:
        state = node
        game = self.game
        while not game.is_over(state):
            state = game.play(state, rng.choice(game.legal_moves(state).moves)).state
        return result(winner_of(game, state))
