"""The built-in bots, for every game: ``random``, ``greedy`` and ``mcts``
(``mcts:0.5`` thinks at most half a second a move; plain ``mcts`` 0.2 s).

They play in the harness's process and call the engine like any client:
the state the service sent is loaded (and so checked) by the engine, the
game's :class:`~umpire.bots.base.Knowledge` picks a move, and the move goes
back to the service as notation, to be judged there.
"""

from __future__ import annotations

import random

from umpire.bots.base import Answer, Bot, Knowledge, Turn
from umpire.bots.mcts import budget, search

DEFAULT_MCTS_S = 0.2


class BuiltinBot(Bot):
    def __init__(self, spec: str, knowledge: Knowledge, seed: int | None = None) -> None:
        self.spec = spec
        self.knowledge = knowledge
        self.rng = random.Random(seed)


class RandomBot(BuiltinBot):
    """Uniform over legal moves (each game's module says how a turn is drawn)."""

    def choose(self, turn: Turn) -> Answer:
        return Answer(self.knowledge.random_move(self.knowledge.load(turn.state), self.rng))


class GreedyBot(BuiltinBot):
    """The best-looking move one turn ahead (each game's module says by what measure)."""

    def choose(self, turn: Turn) -> Answer:
        return Answer(self.knowledge.greedy_move(self.knowledge.load(turn.state), self.rng))


class MctsBot(BuiltinBot):
    """Monte Carlo tree search with random playouts, ``seconds`` a move at most
    and never more than the clock allows (:func:`umpire.bots.mcts.budget`)."""

    def __init__(self, spec: str, knowledge: Knowledge, seed: int | None = None, seconds: float = DEFAULT_MCTS_S) -> None:
        super().__init__(spec, knowledge, seed)
        self.seconds = seconds
        self.model = knowledge.model()
        self.playouts = 0

    def choose(self, turn: Turn) -> Answer:
        state = self.knowledge.load(turn.state)
        seconds = budget(self.seconds, turn.remaining_ms, turn.turn_ms, turn.bank_ms)
        move, playouts = search(self.model, state, seconds, self.rng)
        self.playouts += playouts
        return Answer(move)
