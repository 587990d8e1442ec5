"""Bug, one room: everything the service knows about the game lives in this folder."""

from engine.games.bug import bot
from engine.games.bug.hints import HINTS
from engine.games.bug.rules import Bug
from engine.games.bug.show import BugShow
from engine.room import Room

__all__ = ["ROOM", "Bug"]

ROOM = Room(
    game=Bug(),
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    show=BugShow(),
    hints=HINTS,
)
