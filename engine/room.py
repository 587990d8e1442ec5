"""A game's registration: one :class:`Room` per game, built in the game's own
folder (``engine/games/<name>/__init__.py``) and listed once in
:mod:`engine.registry` (OpenSpiel's ``register_game``).

A room holds the game's rules and everything else the service asks of the
game, so nothing outside the game's folder names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from engine.hints import Hints


@dataclass(frozen=True)
class Room:
    """Everything about one game, as the other layers read it."""

    game: Game[Any, Any]
    # How the page offers the game to a person (engine/hints.py): names, move
    # syntax, examples, how a click becomes a step, the words of its ends.
    hints: Hints = field(kw_only=True)

    @property
    def name(self) -> str:
        return self.game.name
