"""Pure rules of Catchup, Bug and Crystal Connector.

Nothing in this package imports Flask, Redis or any other I/O library: every
function takes data and returns data, so the service, the benchmarks and the
tests all drive the very same code.
"""

from engine.errors import BadOptions, BadState, EngineError, IllegalMove, InvalidMove
from engine.game import Game, LegalMoves, Replay, Verdict
from engine.registry import GAMES, get_game

__all__ = [
    "GAMES",
    "BadOptions",
    "BadState",
    "EngineError",
    "Game",
    "IllegalMove",
    "InvalidMove",
    "LegalMoves",
    "Replay",
    "Verdict",
    "get_game",
]
