"""Views by game name: the one table to extend when a game is added (write
its module, subclass :class:`views.base.GameView`, list it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from views.base import GameView
from views.bug import BugView
from views.catchup import CatchupView
from views.crystal import CrystalView
from views.plur import PlurView
from views.too import TooView

VIEWS: dict[str, GameView] = {v.game: v for v in (CatchupView(), BugView(), CrystalView(), PlurView(), TooView())}


def view_for(game: Any) -> GameView:
    """The view of ``game``; ValueError naming the games that have one."""
    view = VIEWS.get(game) if isinstance(game, str) else None
    if view is None:
        raise ValueError(f"There is no view for the game {game!r}; views exist for: {', '.join(VIEWS)}.")
    return view


def view_of(state: Any) -> GameView:
    """The view of a state's ``game``."""
    if not isinstance(state, Mapping):
        raise ValueError("A state must be a JSON object with a 'game' field, as the service gives it.")
    return view_for(state.get("game"))
