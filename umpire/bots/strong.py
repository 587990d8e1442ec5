"""The ``strong`` bot's search, the same for every game: Monte Carlo tree
search over single steps (a stone, a grow, a shift), guided by what each game
declares about itself (:class:`engine.room.Guide`): a prior over the next
steps, and a value of positions in place of random playouts.

* **Steps, not moves.**  An edge of the tree is one step of a move, from the
  engine's ``Game.next_steps``: a turn of two stones out of sixty cells is two
  choices among sixty, not one among 1,800, and the prior ranks each (where
  the game's list of whole moves is complete and short, the steps are read
  from it instead: ``next_steps`` may list every move again).  The move may
  end where the engine says it may (the :data:`STOP` step).
* **PUCT** (as AlphaZero selects): a child's mean value plus
  ``EXPLORATION * prior * sqrt(N) / (1 + n)`` (plus, for a game whose guide
  asks for it, UCB1's ``exploration * sqrt(ln N / n)``: noisy values).
  Children are kept in the order of their priors, so a selection looks at
  the children visited so far and the best unvisited one only: a node of 500
  steps costs what a node of five does.  An unvisited child counts its parent's mean value, less
  ``FPU_REDUCTION`` (first-play urgency).
* **Values, not random games.**  A new position is scored by the game's value
  (its chances for player 0); a node in the middle of a turn is first
  completed by the prior's best steps.  A finished game scores its result.
* **Proofs** (MCTS-Solver): a finished game is a proven result; a node where
  the player to choose has a proven win, or where every step is proven, is
  proven in turn, never searched again, and a proven loss is never chosen
  while another step is open.
* **The tree is kept between moves** of one game: the bot remembers the node
  its move led to, and on its next turn finds the opponent's move below it
  (by the position it reached) and searches on from there, statistics kept.
* **On the clock.**  The clock is read after every iteration, and the next
  is begun only if it should end by the deadline (the iterations' time, a
  running mean, says how long one takes); one iteration is bounded (one
  expansion, one value, one completion), so a search ends by its deadline
  but for what one iteration takes over the mean.

No game is named here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from engine.game import Game, Steps
from engine.room import STOP, Guide
from umpire.bots.moves import after_step

__all__ = ["STOP", "Node", "StrongSearch", "node_count"]

EXPLORATION = 1.5  # PUCT's constant
FPU_REDUCTION = 0.1  # an unvisited child: its parent's mean value less this (for the parent's mover)
WHOLE_LIST = 500  # a game's list of whole moves up to this long gives a node's steps (see StrongSearch._node)
PACE_WEIGHT = 0.25  # of the last iteration in the running mean of their time
MAX_NODES = 300_000  # a tree this large stops growing (memory: well under 1 kB a node)


class Node:
    """A position in a move: the engine state at the move's start, the steps
    chosen so far (``found``, None once the game is over), and per next step
    (in the order of their priors) the child, its visits and its summed
    values for the player who chooses here."""

    __slots__ = (
        "actions", "children", "found", "listing", "move", "mover", "n", "priors", "proven", "state", "value", "visits", "w",
        "whole", "wsum",
    )  # fmt: skip

    def __init__(self, state: Any, found: Steps | None, mover: int | None, move: str | None = None) -> None:
        self.state = state
        self.found = found
        self.mover = mover  # who chooses here; None once over
        self.move = move  # the whole move that led here, when this node starts a move
        self.whole = False  # each step here is a whole move (the game's list of whole moves, one step each)
        self.listing: list[list[str]] | None = None  # the whole moves (as steps) that go on from here, when listed
        self.actions: list[str] = []
        self.priors: list[float] = []
        self.children: list[Node | None] = []
        self.n: list[int] = []
        self.w: list[float] = []
        self.visits = 0  # descents through this node, its first scoring included
        self.wsum = 0.0  # summed values for ``mover`` over those descents
        self.value = 0.5  # player 0's chances as first scored
        self.proven: float | None = None  # player 0's result, once the game is over or the search proved it

    @property
    def starts_move(self) -> bool:
        return self.found is None or not self.found.prefix


class StrongSearch:
    """One game's search tree, kept from move to move of that game."""

    def __init__(self, game: Game[Any, Any], guide: Guide) -> None:
        self.game = game
        self.guide = guide
        self.root: Node | None = None  # the last search's root
        self.kept: Node | None = None  # the node the bot's last move led to
        self.nodes = 0  # made since the tree was last started afresh
        self.iterations = 0  # of the last search
        self.reused = 0  # visits carried over into the last search's root

    # -- nodes ---------------------------------------------------------------------

    def _node(self, state: Any, found: Steps | None, move: str | None = None, listing: list[list[str]] | None = None) -> Node:
        """A new node, its steps ranked and the position scored.  At the start of
        a move, a game whose list of whole moves is short gives its steps from
        that list: each a whole move when they are all of one step (a stone a
        turn, a grow with no eat), so that making a child is playing it; else
        the first steps of the moves, and the moves that go on from each step
        are its child's (``listing``), so that no node asks the game's
        ``next_steps`` (which may list every move again; a listed move may be
        one order of its steps only, Product's two stones: each move is still
        reached, once).  Else ``next_steps``."""
        game = self.game
        self.nodes += 1
        whole = False
        if found is None and not game.is_over(state):
            listed = game.legal_moves(state, WHOLE_LIST)
            if listed.complete and not listed.truncated:
                listing = [game.split_move(m) for m in listed.moves]
                whole = all(len(m) == 1 for m in listing)
                found = Steps([], list(listed.moves), False) if whole else _steps_of(game, listing, [])
            else:
                found = game.next_steps(state, [])
        if found is None:
            node = Node(state, None, None, move)
            w = state.winner
            node.proven = node.value = 0.5 if w is None else 1.0 - w
            return node
        node = Node(state, found, int(state.to_move), move)
        node.whole = whole
        node.listing = None if whole else listing
        steps = list(found.steps)
        if found.complete and steps:
            steps.append(STOP)
        scores = self.guide.priors(state, found.prefix, steps)
        order = sorted(range(len(steps)), key=scores.__getitem__, reverse=True)
        top = scores[order[0]]
        weights = [math.exp(scores[i] - top) for i in order]
        total = sum(weights)
        node.actions = [steps[i] for i in order]
        node.priors = [x / total for x in weights]
        k = len(steps)
        node.children = [None] * k
        node.n = [0] * k
        node.w = [0.0] * k
        node.value = self.guide.value(state) if not found.prefix else self._complete(node)
        return node

    def _child(self, node: Node, i: int) -> Node:
        """The node after step ``i`` of ``node``, made on first use."""
        found = node.found
        assert found is not None
        move: str | None
        listing = None
        if node.whole:
            move, after = node.actions[i], None
        elif node.listing is not None:
            move, after, listing = _after_listed(self.game, node.listing, found, node.actions[i])
        else:
            move, after = after_step(self.game, node.state, found, node.actions[i])
        if move is None:
            child = self._node(node.state, after, None, listing)
        else:
            verdict = self.game.play(node.state, move)
            assert verdict.legal, verdict.error
            child = self._node(verdict.state, None, move)
        node.children[i] = child
        return child

    def _complete(self, node: Node) -> float:
        """Player 0's chances at a turn in progress: completed by the prior's best steps."""
        assert node.found is not None
        done = self.game.play(node.state, self._finish(node.state, node.found, node.actions[0], node.listing)).state
        if self.game.is_over(done):
            w = done.winner
            return 0.5 if w is None else 1.0 - w
        return self.guide.value(done)

    def _finish(self, state: Any, found: Steps, action: str, listing: list[list[str]] | None = None) -> str:
        """The whole move that goes on from the steps ``found`` with ``action``,
        then with the prior's best step each time (``listing``: the whole moves
        that go on from ``found``, if listed)."""
        while True:
            if listing is not None:
                move, after, listing = _after_listed(self.game, listing, found, action)
            else:
                move, after = after_step(self.game, state, found, action)
            if move is not None:
                return move
            assert after is not None
            found = after
            steps = list(found.steps)
            if found.complete:
                steps.append(STOP)
            scores = self.guide.priors(state, found.prefix, steps)
            action = steps[max(range(len(steps)), key=scores.__getitem__)]

    # -- the search ----------------------------------------------------------------

    def _select(self, node: Node) -> int:
        """PUCT over the visited children and the best unvisited one (plus the
        guide's UCB1 term, if any); a child proven lost for the chooser is
        passed over while another is open."""
        sqrt_n = math.sqrt(node.visits)
        base = node.wsum / node.visits - FPU_REDUCTION
        n, w, priors, children = node.n, node.w, node.priors, node.children
        lost = 1.0 if node.mover == 1 else 0.0  # player 0's result that is a loss for the chooser
        spread = self.guide.exploration
        ln_n = math.log(node.visits + 1) if spread else 0.0
        best, best_i = -math.inf, -1
        for i in range(len(priors)):
            ni = n[i]
            if ni:
                child = children[i]
                if child is not None and child.proven == lost:
                    continue
                score = w[i] / ni + EXPLORATION * priors[i] * sqrt_n / (1 + ni)
                if spread:
                    score += spread * math.sqrt(ln_n / ni)
                if score > best:
                    best, best_i = score, i
            else:
                # unvisited children follow in the order of their priors: this one scores highest of them
                if base + EXPLORATION * priors[i] * sqrt_n + spread * math.sqrt(ln_n) > best:
                    best_i = i
                break
        if best_i < 0:  # every step taken is proven lost and none is left: any will do (the node is proven)
            best_i = 0
        return best_i

    @staticmethod
    def _prove(node: Node, child: Node) -> None:
        """``node`` is proven when ``child`` is a proven win for its chooser, or
        when all its steps are proven (the chooser's best of them)."""
        assert child.proven is not None
        win = 0.0 if node.mover == 1 else 1.0
        if child.proven == win:
            node.proven = win
            return
        results = []
        for c in node.children:
            if c is None or c.proven is None:
                return
            results.append(c.proven)
        node.proven = max(results) if node.mover == 0 else min(results)

    def iterate(self, root: Node) -> None:
        """One descent: select down to a new node (or the game's end), score it, back up."""
        path: list[tuple[Node, int]] = []
        node = root
        while True:
            if node.proven is not None:
                value = node.proven
                node.visits += 1
                break
            i = self._select(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                if self.nodes >= MAX_NODES:
                    value = node.value
                    break
                child = self._child(node, i)
                value = child.value
                child.visits = 1
                child.wsum = value if child.mover == 0 else 1.0 - value
                break
            node = child
        for parent, i in reversed(path):
            mine = value if parent.mover == 0 else 1.0 - value
            parent.visits += 1
            parent.wsum += mine
            parent.n[i] += 1
            parent.w[i] += mine
            child = parent.children[i]
            if child is not None and child.proven is not None and parent.proven is None:
                self._prove(parent, child)
        self.iterations += 1

    def search(
        self, state: Any, deadline: float, clock: Callable[[], float] = time.perf_counter, iterations: int | None = None
    ) -> str:
        """The move for engine ``state`` (ongoing), searched until ``deadline`` (a
        time of ``clock``), or for ``iterations`` descents if that comes first."""
        root = self._reroot(state)
        self.root = root
        self.iterations = 0
        self.reused = root.visits - 1
        last = clock()
        pace = 0.0  # the iterations' time, a running mean: one that would end past the deadline is not begun
        while root.proven is None and last + pace < deadline and (iterations is None or self.iterations < iterations):
            self.iterate(root)
            now = clock()
            pace += PACE_WEIGHT * (now - last - pace)
            last = now
        return self._read(root)

    def _reroot(self, state: Any) -> Node:
        """The kept node of ``state`` when the opponent's move is found below the
        node of the bot's last move, else a new root."""
        kept, self.kept = self.kept, None
        if kept is not None:
            found = self._find(kept, state)
            if found is not None:
                self.nodes = node_count(found)  # the rest of the old tree is dropped
                return found
        self.nodes = 0
        root = self._node(state, None)
        root.visits = 1
        root.wsum = root.value if root.mover == 0 else 1.0 - root.value
        return root

    def _find(self, top: Node, state: Any) -> Node | None:
        """The node of the position ``state`` among the starts of moves below ``top``."""
        dump = self.game.dump
        want = dump(state)
        stack = [top]
        while stack:
            node = stack.pop()
            if node is not top and node.starts_move:
                if node.found is not None and dump(node.state) == want:
                    return node
                continue
            stack.extend(c for c in node.children if c is not None)
        return None

    def _read(self, root: Node) -> str:
        """The move down the most visited steps, a proven win first and a proven
        loss last (a step the tree never took: completed by the priors);
        remembers the node it leads to."""
        node = root
        while True:
            i = max(range(len(node.actions)), key=lambda j: self._rank(node, j))
            child = node.children[i]
            if child is None:  # never searched (no time): the move, completed by the priors, and no tree to keep
                assert node.found is not None
                if node.whole:
                    return node.actions[i]
                return self._finish(node.state, node.found, node.actions[i], node.listing)
            if child.starts_move:
                self.kept = child
                assert child.move is not None
                return child.move
            node = child

    @staticmethod
    def _rank(node: Node, i: int) -> tuple[int, int, float]:
        child = node.children[i]
        proof = 1
        if child is not None and child.proven is not None and child.proven != 0.5:
            proof = 2 if (child.proven == 1.0) == (node.mover == 0) else 0
        return proof, node.n[i], node.priors[i]


def _steps_of(game: Game[Any, Any], listing: list[list[str]], prefix: list[str]) -> Steps:
    """What ``next_steps`` says after ``prefix``, read from ``listing``: the legal
    moves (as steps) that begin with it."""
    n = len(prefix)
    complete = any(len(m) == n for m in listing)
    steps = list(dict.fromkeys(m[n] for m in listing if len(m) > n))
    return Steps(prefix, steps, complete, game.join_steps(prefix) if complete else None)


def _after_listed(
    game: Game[Any, Any], listing: list[list[str]], found: Steps, step: str
) -> tuple[str | None, Steps | None, list[list[str]] | None]:
    """:func:`umpire.bots.moves.after_step` read from ``listing`` (the legal
    moves, as steps, that begin with ``found``'s prefix), and the moves that go
    on after ``step``."""
    if step == STOP:
        return found.move, None, None
    n = len(found.prefix)
    rest = [m for m in listing if len(m) > n and m[n] == step]
    after = _steps_of(game, rest, [*found.prefix, step])
    if after.complete and not after.steps:
        return after.move, None, None
    return None, after, rest


def node_count(node: Node) -> int:
    """The nodes of the tree below ``node``, itself included."""
    count, stack = 0, [node]
    while stack:
        top = stack.pop()
        count += 1
        stack.extend(c for c in top.children if c is not None)
    return count
