"""Crystal Connector, one room: everything the service knows about the game lives in this folder."""

from engine.games.crystal.rules import Crystal

__all__ = ["Crystal"]
