"""What every bot is: the questions the harness asks (:class:`Bot`), what it
tells a bot when it is to move (:class:`Turn`), what a bot answers
(:class:`Answer`), and how a bot fails (:class:`BotFailure`).

Built-in bots (umpire/bots/builtin.py) play in this process on the engine;
external ones (umpire/bots/external.py) are programs or HTTP services that
speak the JSON-lines protocol of docs/BOTS.md.  The harness treats them alike.

Per-game knowledge (how to pick a random, a greedy or a searched move in one
game) lives in one module per game, each a :class:`Knowledge`, registered in
umpire/bots/__init__.py.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engine.game import Game
from engine.registry import GAMES

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
    legal_moves: list[str] | None = None
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


# -- per-game knowledge ---------------------------------------------------------------

S = TypeVar("S")  # an engine state
N = TypeVar("N")  # a node of the step tree: an engine state plus the part of a turn chosen so far
A = TypeVar("A", bound=Hashable)  # one step of a turn


class StepModel(ABC, Generic[N, A]):
    """A game seen as a tree of small steps, for Monte Carlo tree search.

    A turn may be several steps (Catchup: one stone at a time; Crystal: one
    shift at a time), so that the search branches over a few dozen steps
    instead of thousands of whole turns."""

    @abstractmethod
    def root(self, state: Any) -> N:
        """The node of an engine state at the start of a turn."""

    @abstractmethod
    def mover(self, node: N) -> int | None:
        """Who decides at ``node``; None once the game is over."""

    @abstractmethod
    def actions(self, node: N) -> Sequence[A]:
        """The steps that may follow; each leads to a legal position."""

    @abstractmethod
    def child(self, node: N, action: A) -> N:
        """The node after ``action``."""

    @abstractmethod
    def completes(self, node: N, action: A) -> str | None:
        """The whole turn's text when ``action`` ends the turn begun at the
        turn's root, else None."""

    @abstractmethod
    def finish(self, node: N, rng: random.Random) -> str:
        """Complete the turn in progress at ``node`` at random; the whole turn's text."""

    @abstractmethod
    def rollout(self, node: N, rng: random.Random) -> float:
        """Play on at random: player 0's result, 1.0 a win, 0.0 a loss, 0.5 a
        draw (a playout cut short may say how likely a win looks)."""


class Knowledge(ABC):
    """How to play one game: a random move, a greedy move, a step tree for
    search, and how to explain the end of a game.  Engine states in, notation
    out; the engine judges every move as for any client."""

    name: str  # the game's name in engine/registry.py and the API

    @property
    def game(self) -> Game[Any, Any]:
        game = GAMES.get(self.name)
        if game is None:
            raise RuntimeError(f"the engine has no game '{self.name}' yet")
        return game

    @property
    def available(self) -> bool:
        return self.name in GAMES

    def load(self, state: Mapping[str, Any]) -> Any:
        return self.game.load(state)

    @abstractmethod
    def random_move(self, state: Any, rng: random.Random) -> str:
        """A uniformly random legal move (as the module's docstring defines uniform)."""

    @abstractmethod
    def greedy_move(self, state: Any, rng: random.Random) -> str:
        """The move that looks best one turn ahead."""

    def best_listed_move(self, state: Any, rng: random.Random, worth: Callable[[Any], Any]) -> str:
        """Of the engine's legal moves, the one after which ``worth`` rates the
        position highest (ties broken at random); a random move when none is legal."""
        game = self.game
        best: tuple[Any, float] | None = None
        choice = None
        for move in game.legal_moves(state).moves:
            verdict = game.play(state, move)
            if not verdict.legal:
                continue
            key = (worth(verdict.state), rng.random())
            if best is None or key > best:
                best, choice = key, move
        return choice if choice is not None else self.random_move(state, rng)

    @abstractmethod
    def model(self) -> StepModel[Any, Any]:
        """The step tree for Monte Carlo tree search."""

    def end_detail(self, final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
        """One sentence on what decided a game that ended normally: the tie-break,
        from the final state and the last move's events."""
        scores = final.get("scores")
        winner = final.get("winner")
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"{final.get('end')}: {who}, scores {scores}"


def result(winner: int | None) -> float:
    """Player 0's result for a winner (None: a draw)."""
    return 0.5 if winner is None else 1.0 - winner


def winner_of(game: Game[Any, Any], state: Any) -> int | None:
    """The winner of a finished engine state (None: a draw)."""
    w = getattr(state, "winner", None)
    if w is None and not hasattr(state, "winner"):
        w = game.dump(state)["winner"]
    return None if w is None else int(w)
