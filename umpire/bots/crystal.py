"""How the built-in bots play Crystal Connector (RULES R-X1 to R-X6).

The draft (R-X1) is a choice from the engine's short legal list; a shift turn
is ``shifts_due`` single shifts, and each is chosen among the legal single
shifts of the grid *as shifted so far* (``Crystal.legal_shifts`` on
``Crystal.shifted``), so a rock is never carried over the edge (R-X5) and a
barred file never shifted (R-X2).

* random: uniform at every step.
* greedy: the draft takes "first", the colour(s) with the largest groups now;
  in the shift phase each shift is the one that leaves its own product
  (R-X3) highest against the opponent's, shift by shift (ties: the shorter
  shift, which carries spikes less far, R-X5).  It never converts.
* mcts: one shift per step; shifts that give the same grid are one step
  (``C up 2`` is ``C down 4``: the shorter one is kept); random playouts
  of a few turns, then the lead in the totals is judged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import Crystal, CrystalState, Shift, Turn
from umpire.bots.base import Knowledge, StepModel, result

# A whole random game takes about 3 ms (some 40 turns), so a search of 0.2 s
# would see some 60 of them: playouts stop after ROLLOUT_TURNS random turns
# and judge the totals instead, several times as many playouts for the time.
ROLLOUT_TURNS = 4
ROLLOUT_SCALE = 25.0

# draft steps are texts; shift steps are Shift tuples
Step = str | Shift


class CrystalKnowledge(Knowledge):
    name = "crystal"

    @property
    def engine(self) -> Crystal:
        game = self.game
        assert isinstance(game, Crystal)
        return game

    def text(self, state: CrystalState, shifts: Sequence[Shift]) -> str:
        return self.engine.notation(state, Turn(tuple(shifts)))

    def distinct_shifts(self, state: CrystalState) -> list[tuple[Shift, CrystalState]]:
        """The legal single shifts from ``state``, one per resulting grid (the shortest), with the state after each."""
        seen: dict[Any, tuple[Shift, CrystalState]] = {}
        game = self.engine
        for s in sorted(game.legal_shifts(state), key=lambda s: s.amount):
            after = game.shifted(state, s)
            seen.setdefault(after.grid, (s, after))
        return list(seen.values())

    def random_shifts(self, state: CrystalState, rng: random.Random, done: Sequence[Shift] = ()) -> list[Shift]:
        """The rest of a turn, each shift uniform over the legal ones of the grid as shifted so far."""
        game = self.engine
        due = game.shifts_due(state)
        partial = state
        for s in done:
            partial = game.shifted(partial, s)
        shifts = list(done)
        while len(shifts) < due:
            s = rng.choice(game.legal_shifts(partial))
            shifts.append(s)
            partial = game.shifted(partial, s)
        return shifts

    def random_move(self, state: CrystalState, rng: random.Random) -> str:
        if state.phase != "shift":
            return rng.choice(self.engine.legal_moves(state).moves)
        return self.text(state, self.random_shifts(state, rng))

    # -- greedy ----------------------------------------------------------------------

    @staticmethod
    def products(state: CrystalState, player: int) -> tuple[int, int]:
        """(the player's product, the opponent's) for the grid of ``state`` (R-X3)."""
        v = cg.colour_values(state.grid)
        a, b = state.colors[player]
        c, d = state.colors[1 - player]
        return v[a] * v[b], v[c] * v[d]

    def _draft(self, state: CrystalState, rng: random.Random) -> str:
        moves = self.engine.legal_moves(state).moves
        if state.phase in ("pick_order", "move_order"):
            return "first"
        values = cg.colour_values(state.grid)
        index = {name: i for i, name in enumerate(cg.COLOURS)}

        def worth(move: str) -> tuple[int, float]:
            product = 1
            for name in move.split():
                product *= values[index[name]]
            return product, rng.random()

        return max(moves, key=worth)

    def greedy_move(self, state: CrystalState, rng: random.Random) -> str:
        if state.phase != "shift":
            return self._draft(state, rng)
        p = state.to_move
        assert p is not None
        partial = state
        shifts: list[Shift] = []
        for _ in range(self.engine.shifts_due(state)):
            best: tuple[int, int, float] | None = None
            pick: tuple[Shift, CrystalState] | None = None
            for s, after in self.distinct_shifts(partial):
                mine, theirs = self.products(after, p)
                key = (mine - theirs, -s.amount, rng.random())
                if best is None or key > best:
                    best, pick = key, (s, after)
            assert pick is not None
            shifts.append(pick[0])
            partial = pick[1]
        return self.text(state, shifts)

    # -- search ----------------------------------------------------------------------

    def model(self) -> StepModel[Any, Any]:
        return CrystalSteps(self)

    def rollout(self, state: CrystalState, rng: random.Random, turns: int | None = None) -> float:
        """Random turns to the end, or for ``turns`` turns: then player 0's
        chance judged from the totals (a logistic of the lead, ROLLOUT_SCALE
        points for odds of e to 1).  Player 0's result."""
        game = self.engine
        played = 0
        while state.to_move is not None:
            if turns is not None and played >= turns and state.phase == "shift":
                lead = state.scores[0] - state.scores[1]
                return 1.0 / (1.0 + math.exp(-lead / ROLLOUT_SCALE))
            if state.phase != "shift":
                state, _ = game.apply(state, game.parse(state, rng.choice(game.legal_moves(state).moves)))
            else:
                state, _ = game.apply(state, Turn(tuple(self.random_shifts(state, rng))))
                played += 1
        return result(state.winner)

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        winner = final.get("winner")
        scores = final.get("scores")
        if final.get("end") != "threshold" or winner is None or not scores:
            return super().end_detail(final, events)
        turns = final.get("turns") or []
        return (
            f"after {max(turns) if turns else '?'} rounds the totals were {scores[winner]} to {scores[1 - winner]} "
            f"(threshold {final.get('threshold')}): the higher total wins (R-X4)"
        )


Node = tuple[CrystalState, tuple[Shift, ...], CrystalState]  # turn start, shifts so far, the grid after them


class CrystalSteps(StepModel[Node, Step]):
    """Draft moves are one step each; a shift turn is one shift per step."""

    def __init__(self, knowledge: CrystalKnowledge) -> None:
        self.k = knowledge
        self.game = knowledge.engine

    def root(self, state: CrystalState) -> Node:
        return (state, (), state)

    def mover(self, node: Node) -> int | None:
        return node[0].to_move

    def actions(self, node: Node) -> Sequence[Step]:
        state, _, partial = node
        if state.to_move is None:
            return []
        if state.phase != "shift":
            return self.game.legal_moves(state).moves
        return [s for s, _ in self.k.distinct_shifts(partial)]

    def _ends(self, node: Node) -> bool:
        state, done, _ = node
        return state.phase != "shift" or len(done) + 1 >= self.game.shifts_due(state)

    def child(self, node: Node, action: Step) -> Node:
        state, done, partial = node
        if isinstance(action, str):
            after, _ = self.game.apply(state, self.game.parse(state, action))
            return (after, (), after)
        if not self._ends(node):
            return (state, (*done, action), self.game.shifted(partial, action))
        after, _ = self.game.apply(state, Turn((*done, action)))
        return (after, (), after)

    def completes(self, node: Node, action: Step) -> str | None:
        if isinstance(action, str):
            return action
        if not self._ends(node):
            return None
        return self.k.text(node[0], (*node[1], action))

    def finish(self, node: Node, rng: random.Random) -> str:
        state, done, _ = node
        if state.phase != "shift":
            return rng.choice(self.game.legal_moves(state).moves)
        return self.k.text(state, self.k.random_shifts(state, rng, done))

    def rollout(self, node: Node, rng: random.Random) -> float:
        state, done, _ = node
        if done:
            state, _ = self.game.apply(state, Turn(tuple(self.k.random_shifts(state, rng, done))))
        return self.k.rollout(state, rng, ROLLOUT_TURNS)
