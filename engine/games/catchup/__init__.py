"""Catchup, one room: everything the service knows about the game lives in this folder."""

from engine.games.catchup import bot
from engine.games.catchup.rules import Catchup
from engine.room import Room

__all__ = ["ROOM", "Catchup"]

ROOM = Room(
    game=Catchup(),
    evaluation=bot.evaluation,
    end_detail=bot.end_detail,
)
