"""Catchup, one room: everything the service knows about the game lives in this folder."""

from engine.games.catchup import bot, littlegolem
from engine.games.catchup.hints import HINTS
from engine.games.catchup.rules import Catchup
from engine.games.catchup.show import CatchupShow
from engine.room import Room

__all__ = ["ROOM", "Catchup"]

ROOM = Room(
    game=Catchup(),
    show=CatchupShow(),
    records={littlegolem.FORMAT: littlegolem.RECORD_FORMAT},
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    hints=HINTS,
)
