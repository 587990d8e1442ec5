"""Bug, one room: everything the service knows about the game lives in this folder."""

from engine.games.bug.rules import Bug

__all__ = ["Bug"]
