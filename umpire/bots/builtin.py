"""The built-in bots, the same for every game: ``random``, ``greedy``,
``mcts`` (``mcts:0.5`` thinks at most half a second a move; plain ``mcts`` 0.2 s)
and ``strong`` (``strong:0.5`` likewise; plain ``strong`` 1 s).

They play in the harness's process and call the engine like any client: the
state the service sent is loaded (and so checked) by the engine, a move is
chosen from what the engine says is legal (umpire/bots/moves.py), and it goes
back to the service as notation, to be judged there.  ``random`` and
``mcts`` need nothing from a game beyond its rules; ``greedy`` needs the
position evaluation the game declares on its Room (engine/room.py), and
``strong`` its guide (a value of positions and a prior over steps).

The service's suggestions (umpire/think.py) bound every bot by the time
left to its deadline (``BotFactory.make(limit_s=...)``): ``greedy`` judges
candidates until it is spent, ``mcts`` and ``strong`` think no longer, and
``random`` needs no bound.
"""

from __future__ import annotations

import random
import time
from typing import Any

from engine.game import Game
from engine.room import Evaluation, Guide
from umpire.bots.base import Answer, Bot, Json, Turn
from umpire.bots.mcts import StepTree, budget, search
from umpire.bots.moves import greedy_move, random_move
from umpire.bots.strong import StrongSearch

DEFAULT_MCTS_S = 0.2
DEFAULT_STRONG_S = 1.0


class BuiltinBot(Bot):
    def __init__(self, spec: str, game: Game[Any, Any], seed: int | None = None) -> None:
        self.spec = spec
        self.game = game
        self.rng = random.Random(seed)


class RandomBot(BuiltinBot):
    """A random legal move (umpire/bots/moves.py says how it is drawn)."""

    def choose(self, turn: Turn) -> Answer:
        return Answer(random_move(self.game, self.game.load(turn.state), self.rng))


class GreedyBot(BuiltinBot):
    """The move after which the game's own evaluation rates the position highest
    (of the candidates judged within ``limit_s``, when given)."""

    def __init__(
        self, spec: str, game: Game[Any, Any], evaluation: Evaluation, seed: int | None = None, limit_s: float | None = None
    ) -> None:
        super().__init__(spec, game, seed)
        self.evaluation = evaluation
        self.limit_s = limit_s

    def choose(self, turn: Turn) -> Answer:
        deadline = None if self.limit_s is None else time.perf_counter() + self.limit_s
        return Answer(greedy_move(self.game, self.evaluation, self.game.load(turn.state), self.rng, deadline))


class MctsBot(BuiltinBot):
    """Monte Carlo tree search over the game's steps with random playouts,
    ``seconds`` a move at most and never more than the clock allows
    (:func:`umpire.bots.mcts.budget`)."""

    def __init__(self, spec: str, game: Game[Any, Any], seed: int | None = None, seconds: float = DEFAULT_MCTS_S) -> None:
        super().__init__(spec, game, seed)
        self.seconds = seconds
        self.model = StepTree(game)
        self.playouts = 0

    def choose(self, turn: Turn) -> Answer:
        state = self.game.load(turn.state)
        seconds = budget(self.seconds, turn.remaining_ms, turn.turn_ms, turn.bank_ms)
        move, playouts = search(self.model, state, seconds, self.rng)
        self.playouts += playouts
        return Answer(move)


class StrongBot(BuiltinBot):
    """Tree search over single steps guided by the game's own value and priors
    (umpire/bots/strong.py), ``seconds`` a move at most and never more than
    the clock allows (:func:`umpire.bots.mcts.budget`), counted from the moment
    it is asked; the tree is kept from move to move of one game."""

    def __init__(
        self, spec: str, game: Game[Any, Any], guide: Guide, seed: int | None = None, seconds: float = DEFAULT_STRONG_S
    ) -> None:
        super().__init__(spec, game, seed)
        self.seconds = seconds
        self.tree = StrongSearch(game, guide)
        self.iterations: int | None = None  # at most this many descents a move (tests: the same games on any machine)

    def choose(self, turn: Turn) -> Answer:
        asked = time.perf_counter()
        state = self.game.load(turn.state)
        seconds = budget(self.seconds, turn.remaining_ms, turn.turn_ms, turn.bank_ms)
        return Answer(self.tree.search(state, asked + seconds, iterations=self.iterations))

    def end(self, result: Json) -> None:
        self.tree.kept = None
