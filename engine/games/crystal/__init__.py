"""Crystal Connector, one room: everything the service knows about the game lives in this folder."""

from engine.games.crystal import bot
from engine.games.crystal.hints import HINTS
from engine.games.crystal.rules import Crystal
from engine.games.crystal.show import CrystalShow
from engine.room import Room

__all__ = ["ROOM", "Crystal"]

ROOM = Room(
    game=Crystal(),
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    show=CrystalShow(),
    hints=HINTS,
)
