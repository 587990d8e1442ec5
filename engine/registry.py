"""Games by name, as python-chess's ``variant.py`` finds variants.

Adding a game is adding its folder's :class:`~engine.room.Room` to ``ROOMS``:
everything else is read from the game's own declarations.
"""

from __future__ import annotations

from typing import Any

from engine.clock import ClockSpec
from engine.errors import MOVE_ERROR_CODES, EngineError
from engine.game import Game
from engine.games import bug, catchup, crystal, plur, product, too
from engine.room import Room

# The one list of games: each game's folder builds its Room (engine/room.py).
ROOMS: dict[str, Room] = {
    room.name: room
    for room in (
        catchup.ROOM,
        bug.ROOM,
        crystal.ROOM,
        plur.ROOM,
        too.ROOM,
        product.ROOM,
    )
}
GAMES: dict[str, Game[Any, Any]] = {name: room.game for name, room in ROOMS.items()}


def _presets() -> dict[str, ClockSpec]:
    """Every game's clock presets (R-T2), by name; a name belongs to one game."""
    out: dict[str, ClockSpec] = {}
    for game in GAMES.values():
        for name, spec in game.presets.items():
            if name in out:
                raise ValueError(f"clock preset {name!r} is declared by two games")
            out[name] = spec
    return out


PRESETS: dict[str, ClockSpec] = _presets()


def _move_codes() -> dict[str, str]:
    """Every code of an illegal move with when: the common ones, then each game's
    own (a code two games give says when for each)."""
    out = dict(MOVE_ERROR_CODES)
    own: dict[str, list[str]] = {}
    for game in GAMES.values():
        for code, when in game.move_codes.items():
            if code in MOVE_ERROR_CODES:
                raise ValueError(f"{game.title} declares the common move code {code!r} as its own")
            own.setdefault(code, []).append(f"{game.title}: {when}")
    return {**out, **{code: "; ".join(whens) for code, whens in own.items()}}


MOVE_CODES: dict[str, str] = _move_codes()

# R-E3: games the seeds name but do not describe well enough to umpire.
NOT_BUILT: dict[str, str] = {
    "brink": "Brink is not built (R-E3): its text in seed 001 stops before its winning condition.",
}


class UnknownGame(EngineError):
    def __init__(self, name: str) -> None:
        known = f"known games: {', '.join(GAMES)}."
        why = NOT_BUILT.get(name.lower())
        super().__init__("unknown_game", f"{why} The {known}" if why else f"There is no game called '{name}'; {known}")
        self.name = name


def get_game(name: str) -> Game[Any, Any]:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(name) from None
