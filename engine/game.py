"""The common shape every game follows (OpenSpiel-style: a game object holds the
rules and makes states; states are plain values).

A game implements six small steps; :class:`Game` builds ``play`` and
``replay`` from them, so every game answers the same way::

    new(options)        -> State      options validated and normalised (BadOptions)
    load(json)          -> State      a client's state, checked field by field (BadState)
    dump(state)         -> json       the inverse of load: load(dump(s)) == s, exactly
    parse(state, text)  -> Move       notation -> move (InvalidMove)
    apply(state, move)  -> (State, events)
                                      checks the rules step by step and raises
                                      IllegalMove at the first wrong step; never
                                      mutates ``state``
    legal_moves(state)  -> LegalMoves
    notation(state, move) -> str      the normalised text of a move
    resign(state, player), timeout(state) -> (State, events)
                                      ends that are not moves, for managed matches

``replay`` checks a game record: moves, and the two reserved entries a
managed match writes for ends that are not moves, ``timeout`` (apply
``timeout``) and ``resign 0`` / ``resign 1`` (that seat resigns).  ``play``
refuses them: they are not moves a player can make.

Every state's JSON carries ``end``: ``null`` while ongoing, else why it
finished (each game names its own natural end, e.g. ``"full"``; ``"resign"``
and ``"flag"`` are common to all).

States are immutable values of each game's own dataclass; the JSON form is
the only form that leaves the engine.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from engine.errors import EngineError, IllegalMove, InvalidMove

S = TypeVar("S")
M = TypeVar("M")

Json = dict[str, Any]
MoveInput = str | Sequence[str]

RESERVED = ("timeout", "resign")  # record entries that are not moves (Game.record_step)


@dataclass(frozen=True)
class Verdict(Generic[S]):
    """The answer to "is this move legal?" - the engine's one verdict type."""

    legal: bool
    state: S
    move: str | None = None
    events: list[Json] = field(default_factory=list)
    error: EngineError | None = None


@dataclass(frozen=True)
class LegalMoves:
    """Legal moves from a position, as notation strings.

    ``info`` carries what a game says beside the list (Catchup's
    ``max_stones``, Crystal's ``shifts_due``...)."""

    moves: list[str]
    truncated: bool = False
    info: Json = field(default_factory=dict)


@dataclass(frozen=True)
class Replay(Generic[S]):
    """Result of playing a recorded game from its options."""

    valid: bool
    plies: int
    state: S
    first_illegal: tuple[int, EngineError] | None = None


class Game(ABC, Generic[S, M]):
    """One game's rules.  Subclasses are stateless; one instance serves all."""

    name: ClassVar[str]
    title: ClassVar[str]

    @abstractmethod
    def describe(self) -> Json:
        """Variants and options with their defaults, for ``GET /v1/games``."""

    @abstractmethod
    def new(self, options: Mapping[str, Any]) -> S:
        """A starting state (or a set-up position) from raw options."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> S:
        """Validate a client's JSON state; raise BadState naming the field."""

    @abstractmethod
    def dump(self, state: S) -> Json:
        """The JSON form of a state (API.md "Reading a state")."""

    @abstractmethod
    def parse(self, state: S, text: MoveInput) -> M:
        """Read a move in the rules' notation; raise InvalidMove."""

    @abstractmethod
    def apply(self, state: S, move: M) -> tuple[S, list[Json]]:
        """Check and apply; raise IllegalMove at the first wrong step."""

    @abstractmethod
    def notation(self, state: S, move: M) -> str:
        """Normalised text of ``move`` as played from ``state``."""

    @abstractmethod
    def legal_moves(self, state: S, limit: int | None = None) -> LegalMoves:
        """Every legal move (or the first ``limit`` of them)."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True once the game has finished."""

    # -- ends that are not moves (managed matches) -----------------------------

    flag_rule: ClassVar[str] = "loses"  # R-T1: what a flag does; Crystal says "proxy" (R-X6)

    @abstractmethod
    def resign(self, state: S, player: int) -> tuple[S, list[Json]]:
        """``player`` resigns: the game is finished, the opponent wins.
        The state records why it ended (``end: "resign"``)."""

    @abstractmethod
    def timeout(self, state: S) -> tuple[S, list[Json]]:
        """The player to move has flagged (R-T1) and nobody moved for them.

        Catchup and Bug: that player loses (``end: "flag"``).  Crystal
        Connector (R-X6): the turn passes with no shifts and is scored."""

    # -- built from the steps above ------------------------------------------

    def play(self, state: S, text: MoveInput) -> Verdict[S]:
        """Parse, check and apply one move; an illegal move is an answer."""
        if self.is_over(state):
            err: EngineError = IllegalMove("game_over", "The game is over: no more moves can be played.")
            return Verdict(False, state, error=err)
        try:
            move = self.parse(state, text)
            new_state, events = self.apply(state, move)
        except (InvalidMove, IllegalMove) as e:
            return Verdict(False, state, error=e)
        return Verdict(True, new_state, self.notation(state, move), events)

    def replay(self, options: Mapping[str, Any], moves: Sequence[MoveInput]) -> Replay[S]:
        """Play ``moves`` from ``new(options)``, stopping at the first illegal one.

        A record also holds the ends that are not moves, as two reserved
        entries (see :meth:`record_step`): ``timeout`` and ``resign 0`` /
        ``resign 1``."""
        state = self.new(options)
        for i, text in enumerate(moves):
            verdict = self.record_step(state, text)
            if not verdict.legal:
                assert verdict.error is not None
                return Replay(False, i, state, (i, verdict.error))
            state = verdict.state
        return Replay(True, len(moves), state)

    def record_step(self, state: S, text: MoveInput) -> Verdict[S]:
        """One entry of a game record: a move, or one of the reserved entries
        a managed match writes for what is not a move (R-T1, R-X6):

        * ``timeout``: the player to move flagged and nobody moved for them
          (:meth:`timeout`: Catchup and Bug, that player loses; Crystal, the
          turn passes with no shifts and is scored);
        * ``resign 0`` / ``resign 1``: that seat resigned (either seat may, at
          any time, so the entry names it).

        Only a record may say these: :meth:`play` judges moves, and refuses
        them, so a player cannot pass by typing ``timeout``."""
        words = text.lower().split() if isinstance(text, str) else []
        if not words or words[0] not in RESERVED:
            return self.play(state, text)
        if self.is_over(state):
            err: EngineError = IllegalMove("game_over", f"The game is over: '{' '.join(words)}' cannot follow its end.")
            return Verdict(False, state, error=err)
        try:
            if words == ["timeout"]:
                new_state, events = self.timeout(state)
            elif words[0] == "resign" and len(words) == 2 and words[1] in ("0", "1"):
                new_state, events = self.resign(state, int(words[1]))
            else:
                raise InvalidMove("A record writes a time-out as 'timeout' and a resignation as 'resign 0' or 'resign 1'.")
        except (InvalidMove, IllegalMove) as e:
            return Verdict(False, state, error=e)
        return Verdict(True, new_state, " ".join(words), events)
