"""Product, one room: everything the service knows about the game lives in this folder."""

from engine.games.product import bot
from engine.games.product.hints import HINTS
from engine.games.product.rules import Product
from engine.games.product.show import ProductShow
from engine.room import Room

__all__ = ["ROOM", "Product"]

ROOM = Room(
    game=Product(),
    evaluation=bot.evaluation,
    guide=bot.GUIDE,
    end_detail=bot.end_detail,
    show=ProductShow(),
    hints=HINTS,
)
