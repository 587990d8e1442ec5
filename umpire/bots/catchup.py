"""How the built-in bots play Catchup (RULES R-C1 to R-C4).

* random: a turn size uniform in 1..``max_stones``, then that many distinct
  empty cells uniformly; a turn the variant refuses (bolanos' two-stone rule,
  R-C3) is drawn again, and after 20 refusals one stone is placed (always legal).
* greedy: a sample of candidate turns (stones that grow its own largest groups,
  stones that block the opponent's, a few random ones, every turn size) each
  judged one ply ahead: its own group sizes after the turn against what the
  opponent could reach next turn with the stones it will then have (the bonus
  included), i.e. largest-group gain for itself and denial of the opponent's.
* mcts: the step tree places one stone per step, with "stop" once a stone is
  down, so the search branches over cells rather than over sets of cells.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import IllegalMove
from engine.games.catchup.rules import Catchup, CatchupState
from engine.hexboard import iter_bits
from umpire.bots.base import Knowledge, StepModel, result

STOP = -1  # the step that ends a turn before max_stones
REFUSALS = 20
POOL_RANDOM = 6  # random empty cells added to the greedy's candidate pool
MAX_COMBOS = 80  # candidate turns of one size judged by greedy


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


class CatchupKnowledge(Knowledge):
    name = "catchup"

    @property
    def engine(self) -> Catchup:
        game = self.game
        assert isinstance(game, Catchup)
        return game

    def text(self, state: CatchupState, cells: Sequence[int]) -> str:
        labels = state.board.labels
        return " ".join(labels[c] for c in cells)

    def random_move(self, state: CatchupState, rng: random.Random) -> str:
        game = self.engine
        empty = list(iter_bits(state.empty))
        most = game.max_stones(state)
        for _ in range(REFUSALS):
            cells = tuple(rng.sample(empty, rng.randint(1, most)))
            try:
                game.apply(state, cells)
            except IllegalMove:
                continue  # bolanos: two stones that grow the largest group
            return self.text(state, cells)
        return self.text(state, (rng.choice(empty),))

    # -- greedy ----------------------------------------------------------------------

    def _potential(self, state: CatchupState, player: int, stones: int) -> int:
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

    def _value(self, after: CatchupState, player: int) -> float:
        if after.to_move is None:
            return float("inf") if after.winner == player else float("-inf")
        game = self.engine
        mine = [*game.group_sizes(after, player), 0, 0]
        theirs = [*game.group_sizes(after, 1 - player), 0, 0]
        threat = self._potential(after, 1 - player, game.max_stones(after))
        return 3.0 * mine[0] + mine[1] - 2.0 * max(threat, theirs[0]) - 0.5 * theirs[1]

    def _candidates(self, state: CatchupState, rng: random.Random) -> list[tuple[int, ...]]:
        p = state.to_move
        assert p is not None
        board = state.board
        empty = state.empty
        pool = 0
        for player in (p, 1 - p):  # around its own two largest groups, and the opponent's
            for g in sorted(state.groups[player], key=int.bit_count, reverse=True)[:2]:
                pool |= board.dilate(g) & empty
        cells = list(iter_bits(pool))
        rest = [c for c in iter_bits(empty & ~pool)]
        cells += rng.sample(rest, min(POOL_RANDOM, len(rest)))
        if not cells:
            cells = list(iter_bits(empty))
        most = self.engine.max_stones(state)
        out: list[tuple[int, ...]] = []
        for k in range(1, most + 1):
            combos = list(itertools.combinations(cells, k)) if len(cells) <= 14 or k == 1 else []
            if not combos:
                combos = [tuple(rng.sample(cells, k)) for _ in range(MAX_COMBOS)] if len(cells) >= k else []
            if len(combos) > MAX_COMBOS:
                combos = rng.sample(combos, MAX_COMBOS)
            out.extend(combos)
        return out

    def greedy_move(self, state: CatchupState, rng: random.Random) -> str:
        p = state.to_move
        assert p is not None
        game = self.engine
        best: tuple[float, float] | None = None
        choice: tuple[int, ...] | None = None
        for cells in self._candidates(state, rng):
            try:
                after, _ = game.apply(state, cells)
            except IllegalMove:
                continue
            key = (self._value(after, p), rng.random())
            if best is None or key > best:
                best, choice = key, cells
        if choice is None:
            return self.random_move(state, rng)
        return self.text(state, choice)

    # -- search ----------------------------------------------------------------------

    def model(self) -> StepModel[Any, Any]:
        return CatchupSteps(self)

    def rollout(self, state: CatchupState, rng: random.Random) -> int | None:
        """A random game to the end, as bench/bench_catchup.py plays it: cells shuffled once."""
        game = self.engine
        cells = list(iter_bits(state.empty))
        rng.shuffle(cells)
        apply, max_stones, random_ = game.apply, game.max_stones, rng.random
        bolanos = state.variant == "bolanos"
        i = 0
        while state.to_move is not None:
            k = 1 + int(random_() * max_stones(state))
            try:
                state, _ = apply(state, tuple(cells[i : i + k]))
            except IllegalMove:
                if not bolanos:
                    raise
                k = 1
                state, _ = apply(state, (cells[i],))
            i += k
        return state.winner

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        groups = next((e.get("groups") for e in events if e.get("type") == "end" and e.get("groups")), None)
        winner = final.get("winner")
        if not groups or winner is None:
            return super().end_detail(final, events)
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
        return super().end_detail(final, events)


Node = tuple[CatchupState, tuple[int, ...]]  # the position at the turn's start, the stones placed so far


class CatchupSteps(StepModel[Node, int]):
    """A turn is its stones one at a time, then :data:`STOP` (or the last stone allowed)."""

    def __init__(self, knowledge: CatchupKnowledge) -> None:
        self.k = knowledge
        self.game = knowledge.engine

    def root(self, state: CatchupState) -> Node:
        return (state, ())

    def mover(self, node: Node) -> int | None:
        return node[0].to_move

    def actions(self, node: Node) -> Sequence[int]:
        state, placed = node
        if state.to_move is None:
            return []
        taken = 0
        for c in placed:
            taken |= 1 << c
        cells = list(iter_bits(state.empty & ~taken))
        if placed and state.variant == "bolanos":
            # R-C3 bolanos: the second stone must leave the board's largest group as it was
            ok = []
            for c in cells:
                try:
                    self.game.apply(state, (*placed, c))
                    ok.append(c)
                except IllegalMove:
                    pass
            cells = ok
        return [*cells, STOP] if placed else cells

    def _ends(self, node: Node, action: int) -> bool:
        return action == STOP or len(node[1]) + 1 >= self.game.max_stones(node[0])

    def child(self, node: Node, action: int) -> Node:
        state, placed = node
        if not self._ends(node, action):
            return (state, (*placed, action))
        turn = placed if action == STOP else (*placed, action)
        after, _ = self.game.apply(state, turn)
        return (after, ())

    def completes(self, node: Node, action: int) -> str | None:
        if not self._ends(node, action):
            return None
        state, placed = node
        return self.k.text(state, placed if action == STOP else (*placed, action))

    def finish(self, node: Node, rng: random.Random) -> str:
        state, placed = node
        if placed:
            return self.k.text(state, placed)  # a turn of the stones chosen so far is legal (checked on the way)
        return self.k.random_move(state, rng)

    def rollout(self, node: Node, rng: random.Random) -> float:
        state, placed = node
        if placed:
            state, _ = self.game.apply(state, placed)
        return result(self.k.rollout(state, rng))
