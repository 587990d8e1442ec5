"""What every bot is: the questions the harness asks (:class:`Bot`), what it
tells a bot when it is to move (:class:`Turn`), what a bot answers
(:class:`Answer`), and how a bot fails (:class:`BotFailure`).

Built-in bots (umpire/bots/builtin.py) play in this process on the engine,
the same way for every game; external ones (umpire/bots/external.py) are
programs or HTTP services that speak the JSON-lines protocol of
docs/BOTS.md.  The harness treats them alike.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]

CRASH = "crash"
TIMEOUT = "timeout"


@dataclass(frozen=True)
class Turn:
    """What a bot is told when it is to move (docs/BOTS.md, message ``move``).

    ``remaining_ms``: time until the seat flags (the server's deadline minus the
    server's now); ``deadline_ms``: how long the harness waits for the answer
    (``remaining_ms`` plus a grace); ``turn_ms`` and ``bank_ms`` the clock's
    parts (spend within ``turn_ms`` and the bank is untouched).  All None when
    the match has no clock (engine-only games)."""

    game: str
    options: Json
    seat: int
    state: Json
    ply: int
    match_id: str
    remaining_ms: int | None = None
    deadline_ms: int | None = None
    turn_ms: int | None = None
    bank_ms: int | None = None
    legal_moves: list[str] | None = None  # the complete legal moves (docs/BOTS.md), when the bot asked
    legal_truncated: bool = False  # the list stops at the harness's limit: more moves are legal
    legal_info: Json | None = None

    def message(self) -> Json:
        """The protocol's ``move`` message."""
        msg: Json = {
            "type": "move",
            "game": self.game,
            "options": self.options,
            "match_id": self.match_id,
            "seat": self.seat,
            "ply": self.ply,
            "state": self.state,
            "remaining_ms": self.remaining_ms,
            "deadline_ms": self.deadline_ms,
            "turn_ms": self.turn_ms,
            "bank_ms": self.bank_ms,
        }
        if self.legal_moves is not None:
            msg["legal_moves"] = self.legal_moves
            msg["legal_truncated"] = self.legal_truncated
            msg["legal_info"] = self.legal_info or {}
        return msg


@dataclass(frozen=True)
class Answer:
    """A bot's answer: a move in the rules' notation, or a resignation."""

    move: str | None
    resign: bool = False


class BotFailure(Exception):
    """The bot could not answer: ``reason`` is ``crash`` (it exited, or answered
    something that is not the protocol) or ``timeout`` (no answer in time);
    ``detail`` one sentence for the results file."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class BotStartError(Exception):
    """A bot could not start a game: its program could not be run, or it exited, hung or
    answered something else before its ``hello`` answer (an HTTP bot: could not be reached
    for it).  No game is scored for that: the tournament stops, as fastchess stops when an
    engine cannot be started, and ``--resume`` plays the game once the bot is fixed."""


class Bot(ABC):
    """One player for one game at a time.  ``spec`` is how the command line named it."""

    spec: str
    wants_legal: bool = False  # ask the harness to send the legal moves with each turn

    def begin(self, game: str, options: Json, seat: int, match_id: str | None) -> None:  # noqa: B027 - optional hook
        """A game starts (the protocol's ``hello``); raises :class:`BotFailure`."""

    @abstractmethod
    def choose(self, turn: Turn) -> Answer:
        """The move for ``turn``; raises :class:`BotFailure`."""

    def end(self, result: Json) -> None:  # noqa: B027 - optional hook
        """The game is over (the protocol's ``end``); no answer is expected."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Free what the bot holds (a process); it will not be asked again."""

    @property
    def healthy(self) -> bool:
        """Can this bot play another game as it is (a process that did not crash or hang)?"""
        return True


def result(winner: int | None) -> float:
    """Player 0's result for a winner (None: a draw)."""
    return 0.5 if winner is None else 1.0 - winner
