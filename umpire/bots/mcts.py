"""Monte Carlo tree search (UCT) over a game's step tree, with random playouts
and a time budget, for every game alike.

The tree's edges are *steps* (:class:`StepModel`; :class:`StepTree` reads
them from the engine's ``Game.next_steps``): a stone, a shift, a bonus cell,
a draft word, or the end of a move that could go on.  Each node
keeps the wins of the player who took the step into it, so a turn of several
steps by one player is searched like any other sequence.  When time is up the
move is read down the most-visited steps until the turn is complete (a turn
the search left unfinished is completed at random, legally).
"""

from __future__ import annotations

import math
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

from engine.game import Game, Steps
from engine.room import STOP
from umpire.bots.base import result
from umpire.bots.moves import after_step, finish, random_move

N = TypeVar("N")  # a node of the step tree: an engine state plus the part of a move chosen so far
A = TypeVar("A", bound=Hashable)  # one step of a move


class StepModel(ABC, Generic[N, A]):
    """A game seen as a tree of small steps, for Monte Carlo tree search: a
    move may be several steps, so that the search branches over a few dozen
    steps instead of thousands of whole moves."""

    @abstractmethod
    def root(self, state: Any) -> N:
        """The node of an engine state at the start of a move."""

    @abstractmethod
    def mover(self, node: N) -> int | None:
        """Who decides at ``node``; None once the game is over."""

    @abstractmethod
    def actions(self, node: N) -> Sequence[A]:
        """The steps that may follow; each leads to a legal position."""

    @abstractmethod
    def child(self, node: N, action: A) -> N:
        """The node after ``action``."""

    @abstractmethod
    def completes(self, node: N, action: A) -> str | None:
        """The whole move's text when ``action`` ends the move begun at the
        move's root, else None."""

    @abstractmethod
    def finish(self, node: N, rng: random.Random) -> str:
        """Complete the move in progress at ``node`` at random; the whole move's text."""

    @abstractmethod
    def rollout(self, node: N, rng: random.Random, deadline: float | None = None) -> float:
        """Play on at random: player 0's result, 1.0 a win, 0.0 a loss, 0.5 a draw;
        :class:`TimeUp` when ``deadline`` (a time of ``time.perf_counter``) passes first."""


class TimeUp(Exception):
    """A playout was cut short by the search's deadline (it is not counted)."""


# A node: the position at the move's start, and what next_steps says of the steps chosen so far
# (None once the game is over).
Node = tuple[Any, Steps | None]


class StepTree(StepModel[Node, str]):
    """The step tree of any game, from ``Game.next_steps``: the legal next
    steps, plus :data:`STOP` where the move may end but could go on; a move
    that may only end is played at once."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game

    def root(self, state: Any) -> Node:
        return (state, None if self.game.is_over(state) else self.game.next_steps(state, []))

    def mover(self, node: Node) -> int | None:
        state, found = node
        return None if found is None else int(state.to_move)

    def actions(self, node: Node) -> Sequence[str]:
        found = node[1]
        if found is None:
            return []
        return [*found.steps, STOP] if found.complete and found.steps else found.steps

    def _after(self, node: Node, action: str) -> tuple[str | None, Steps | None]:
        """The whole move if ``action`` ends it, else the steps after it."""
        assert node[1] is not None
        return after_step(self.game, node[0], node[1], action)

    def child(self, node: Node, action: str) -> Node:
        move, after = self._after(node, action)
        if move is None:
            return (node[0], after)
        verdict = self.game.play(node[0], move)
        assert verdict.legal, verdict.error
        return self.root(verdict.state)

    def completes(self, node: Node, action: str) -> str | None:
        return self._after(node, action)[0]

    def finish(self, node: Node, rng: random.Random) -> str:
        state, found = node
        assert found is not None
        return finish(self.game, state, list(found.prefix), rng)

    def rollout(self, node: Node, rng: random.Random, deadline: float | None = None) -> float:
        game = self.game
        state, found = node
        if found is not None and found.prefix:
            state = game.play(state, self.finish(node, rng)).state
        clock = time.perf_counter
        while not game.is_over(state):
            if deadline is not None and clock() >= deadline:
                raise TimeUp
            state = game.play(state, random_move(game, state, rng)).state
        return result(state.winner)


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
    """The move chosen from engine ``state`` within ``budget_s`` seconds, and the number of playouts.

    The clock is read before each iteration and between the moves of a
    playout (a playout on a large board is hundreds of moves): a search ends
    within one move of its deadline, its last playout, cut short, not counted."""
    end = time.perf_counter() + budget_s
    root = _Node(model.root(state), None, None, model)
    iterations = 0
    log = math.log
    sqrt = math.sqrt
    clock = time.perf_counter
    while True:
        if clock() >= end:
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
        try:
            value = model.rollout(node.state, rng, end)  # player 0's result; at a finished node, just its winner's
        except TimeUp:
            iterations -= 1
            break
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
