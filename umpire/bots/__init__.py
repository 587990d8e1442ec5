"""Bots for ``umpire tournament``: the built-in ones (``random``, ``greedy``,
``mcts[:seconds]``, ``strong[:seconds]``) for every game, and external ones
(``cmd:PROGRAM ARGS...``, ``http(s)://...``) speaking docs/BOTS.md.

No game is named here: the built-in bots play any registered game from its
rules, ``greedy`` from the evaluation its Room declares (engine/room.py) and
``strong`` from its guide.
:class:`BotFactory` turns a spec from the command line into a fresh bot for
each game (a program is reused from game to game while it stays healthy).
"""

from __future__ import annotations

import dataclasses
import math
import threading

from engine.registry import ROOMS
from umpire.bots.base import Answer, Bot, BotFailure, BotStartError, Turn
from umpire.bots.builtin import DEFAULT_MCTS_S, DEFAULT_STRONG_S, GreedyBot, MctsBot, RandomBot, StrongBot
from umpire.bots.external import HttpBot, ProcessBot, ProcessPool, Wiring, command_argv

__all__ = ["BUILTIN", "TIMED", "Answer", "Bot", "BotFactory", "BotFailure", "BotStartError", "Turn", "Wiring", "check_spec"]

BUILTIN = ("random", "greedy", "mcts", "strong")
TIMED = ("mcts", "strong")  # the built-in bots that take seconds a move (NAME:SECONDS)


def check_spec(spec: str) -> str:
    """The kind of a bot spec (``builtin``, ``cmd``, ``http``), or ValueError saying what is wrong."""
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise ValueError(f"{spec!r} names no program: write cmd:PROGRAM ARGS...")
        return "cmd"
    if spec.startswith(("http://", "https://")):
        return "http"
    name, _, arg = spec.partition(":")
    if name not in BUILTIN:
        raise ValueError(
            f"unknown bot {spec!r}: use a built-in bot ({', '.join(BUILTIN)}; mcts:SECONDS, strong:SECONDS), "
            "cmd:PROGRAM ARGS... or an http(s):// URL"
        )
    if arg:
        if name not in TIMED:
            raise ValueError(f"the {name} bot takes no argument ({spec!r})")
        try:
            seconds = float(arg)
        except ValueError:
            seconds = -1.0
        if not seconds > 0 or math.isinf(seconds):
            raise ValueError(f"{name}:SECONDS wants a positive number of seconds per move, not {arg!r}")
    return "builtin"


class BotFactory:
    """Makes the bot of one spec for each game, for one game of the engine."""

    def __init__(self, spec: str, game: str, cwd: str | None = None, wiring: Wiring | None = None) -> None:
        self.spec = spec
        self.game = game
        self.kind = check_spec(spec)
        self.wiring = wiring
        self._pool = ProcessPool(spec, cwd, wiring) if self.kind == "cmd" else None
        self._lock = threading.Lock()
        if self.kind == "builtin" and game not in ROOMS:
            raise ValueError(f"the built-in bots do not know the game {game!r}")
        name = spec.partition(":")[0]
        if name == "greedy" and self.kind == "builtin" and ROOMS[game].evaluation is None:
            raise ValueError(f"the greedy bot needs a position evaluation, which the game {game!r} does not declare")
        if name == "strong" and self.kind == "builtin" and ROOMS[game].guide is None:
            raise ValueError(f"the strong bot needs a guide (value and priors), which the game {game!r} does not declare")

    def make(self, seed: int | None = None, limit_s: float | None = None) -> Bot:
        """A bot for one game; ``limit_s``: the most it may think a move, whatever
        its spec says (the service's suggestions; ``random`` needs no limit)."""
        if self.kind == "cmd":
            assert self._pool is not None
            return self._pool.acquire()
        if self.kind == "http":
            return HttpBot(self.spec, self.wiring)
        room = ROOMS[self.game]
        name, _, arg = self.spec.partition(":")
        if name == "random":
            return RandomBot(self.spec, room.game, seed)
        if name == "greedy":
            assert room.evaluation is not None  # checked in __init__
            return GreedyBot(self.spec, room.game, room.evaluation, seed, limit_s)
        seconds = float(arg) if arg else DEFAULT_MCTS_S if name == "mcts" else DEFAULT_STRONG_S
        if limit_s is not None:
            seconds = min(seconds, limit_s)
        if name == "mcts":
            return MctsBot(self.spec, room.game, seed, seconds)
        assert room.guide is not None  # checked in __init__
        return StrongBot(self.spec, room.game, room.guide, seed, seconds)

    def check_start(self, options: dict[str, object]) -> None:
        """Start an external bot once and have it answer ``hello`` (``match_id`` null) within
        the hello deadline, then let it go (a program's stdin is closed); :class:`BotStartError`
        naming the bot if it cannot.  Before the first game, so that a typo in a command is
        refused instead of scored game after game.  Nothing is logged or written meanwhile."""
        if self.kind == "builtin":
            return
        wiring = dataclasses.replace(self.wiring or Wiring(), log=None, stderr=None)
        bot: Bot
        if self._pool is not None:
            bot = ProcessBot(self.spec, command_argv(self.spec), self._pool.cwd, wiring)
        else:
            bot = HttpBot(self.spec, wiring)
        try:
            bot.begin(self.game, dict(options), 0, None)
        except BotFailure as f:
            raise BotStartError(f.detail) from None
        finally:
            bot.close()

    def done(self, bot: Bot) -> None:
        """The game is over: a program goes back to the pool (or is closed if it failed)."""
        if isinstance(bot, ProcessBot) and self._pool is not None:
            self._pool.release(bot)
        else:
            bot.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
