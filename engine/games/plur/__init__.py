"""Plur, one room: everything the service knows about the game lives in this folder."""

from engine.games.plur.rules import Plur

__all__ = ["Plur"]
