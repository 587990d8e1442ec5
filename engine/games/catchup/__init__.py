"""Catchup, one room: everything the service knows about the game lives in this folder."""

from engine.games.catchup.rules import Catchup

__all__ = ["Catchup"]
