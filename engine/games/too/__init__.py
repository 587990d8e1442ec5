"""Too, one room: everything the service knows about the game lives in this folder."""

from engine.games.too.rules import Too

__all__ = ["Too"]
