"""Plur, one room: everything the service knows about the game lives in this folder."""

from engine.games.plur import bot
from engine.games.plur.hints import HINTS
from engine.games.plur.rules import Plur
from engine.games.plur.show import PlurShow
from engine.room import Room

__all__ = ["ROOM", "Plur"]

ROOM = Room(
    game=Plur(),
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    show=PlurShow(),
    hints=HINTS,
)
