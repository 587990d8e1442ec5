"""Too, one room: everything the service knows about the game lives in this folder."""

from engine.games.too import bot
from engine.games.too.hints import HINTS
from engine.games.too.rules import Too
from engine.games.too.show import TooShow
from engine.room import Room

__all__ = ["ROOM", "Too"]

ROOM = Room(
    game=Too(),
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    show=TooShow(),
    hints=HINTS,
)
