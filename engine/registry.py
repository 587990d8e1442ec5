"""Games by name, as python-chess's ``variant.py`` finds variants."""

from __future__ import annotations

from typing import Any

from engine.bug import Bug
from engine.catchup import Catchup
from engine.crystal import Crystal
from engine.errors import EngineError
from engine.game import Game

GAMES: dict[str, Game[Any, Any]] = {g.name: g for g in (Catchup(), Bug(), Crystal())}


class UnknownGame(EngineError):
    def __init__(self, name: str) -> None:
        super().__init__("unknown_game", f"There is no game called '{name}'; known games: {', '.join(sorted(GAMES))}.")
        self.name = name


def get_game(name: str) -> Game[Any, Any]:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(name) from None
