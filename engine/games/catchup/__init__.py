"""Catchup, one room: everything the service knows about the game lives in this folder."""

from engine.games.catchup.hints import HINTS
from engine.games.catchup.rules import Catchup
from engine.room import Room

__all__ = ["ROOM", "Catchup"]

ROOM = Room(
    game=Catchup(),
    hints=HINTS,
)
