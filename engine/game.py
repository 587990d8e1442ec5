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
    complete_moves(state) -> LegalMoves
                                      every complete legal move (legal_moves
                                      when that list already is of whole moves)
    notation(state, move) -> str      the normalised text of a move
    resign(state, player), timeout(state) -> (State, events)
                                      ends that are not moves, for managed matches

``replay`` checks a game record: moves, and the reserved entries a managed
match writes for what is not a move: ``timeout``, ``resign 0|1``,
``forfeit 0|1``, ``abort``, ``adjudicate 0|1|draw`` (:meth:`Game.record_step`) and
the umpire's ``takeback`` (:meth:`Game.take_back`: the move right before it undone).
``play`` refuses them: they are not moves a player can make.

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
from functools import cached_property
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engine.clock import ClockSpec
from engine.errors import BadOptions, BadState, EngineError, IllegalMove, InvalidMove, MoveError
from engine.options import FieldErrorType, Option, check_names
from engine.stateio import is_player


class StateLike(Protocol):
    """What every game's state has, whatever else it holds (API.md "Reading a state")."""

    @property
    def to_move(self) -> int | None: ...  # None once finished

    @property
    def winner(self) -> int | None: ...

    @property
    def end(self) -> str | None: ...  # None while ongoing, else why it finished

    @property
    def ply(self) -> int: ...


S = TypeVar("S", bound=StateLike)
M = TypeVar("M")

Json = dict[str, Any]
MoveInput = str | Sequence[str]

RESERVED = ("timeout", "resign", "forfeit", "abort", "adjudicate", "takeback")  # record entries that are not moves
TAKEBACK = "takeback"  # the umpire undid the move right before it (Game.replay, Game.take_back)
# Ends every game shares; each game adds its natural end.  R-T1: a resignation
# or a flag; a managed match also ends by an illegal move when its policy is to
# forfeit, by an umpire's abort (no winner), or by an umpire's adjudication
# (a winner, or a draw, with a reason).
COMMON_ENDS = ("resign", "flag", "illegal", "aborted", "adjudicated")
UNDECIDED_ENDS = ("aborted", "adjudicated")  # common ends that may have no winner (adjudicated: a draw)
ON_THE_MOVER = ("flag", "illegal")  # ends that fall on the player to move, who loses


def is_takeback(text: MoveInput) -> bool:
    """A record's ``takeback`` entry (any case, spaces around it)."""
    return isinstance(text, str) and text.strip().lower() == TAKEBACK


def line_of(moves: Sequence[MoveInput]) -> list[MoveInput]:
    """A record's moves as the game stands after it: each ``takeback`` removes the entry before it
    (another site's record format has no word for a take-back)."""
    out: list[MoveInput] = []
    for text in moves:
        if is_takeback(text):
            if out:
                out.pop()
        else:
            out.append(text)
    return out


def movers_at_end(end: str, winner: int | None) -> tuple[int, ...]:
    """Who can have been to move when a game ended by ``end``: a flag or an
    illegal move falls on the player to move, who lost; a resignation or an
    abort may come at any time."""
    if end in ON_THE_MOVER and winner is not None:
        return (1 - winner,)
    return (0, 1)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended (python-chess's ``Outcome``): the winner
    (``None`` for a draw), why it ended (``end``: the game's natural end, or
    ``resign``/``flag``), and what decided it (``detail``: the game's own
    words, e.g. Catchup's tie-break)."""

    winner: int | None
    end: str
    detail: Json = field(default_factory=dict)

    @property
    def result(self) -> str:
        """``1-0`` when player 0 won, ``0-1`` when player 1 won, ``1/2-1/2`` for a
        draw, and ``*`` (no result, as PGN writes an abandoned game) when aborted."""
        if self.end == "aborted":
            return "*"
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner == 0 else "0-1")


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
    ``max_stones``, Crystal's ``shifts_due``...).  ``complete``: every entry is
    a whole move and together they are every legal move (up to ``truncated``);
    false when the list gives first steps (Catchup's cells, Crystal's shifts)."""

    moves: list[str]
    truncated: bool = False
    info: Json = field(default_factory=dict)
    complete: bool = False


@dataclass(frozen=True)
class Steps:
    """What may follow a move begun with ``prefix`` (its steps so far, as
    written back): the legal next ``steps``, whether the move may end here
    (``complete``), and then the whole ``move`` in notation."""

    prefix: list[str]
    steps: list[str]
    complete: bool
    move: str | None = None


@dataclass(frozen=True)
class Replay(Generic[S]):
    """Result of playing a recorded game from its options.  ``before``,
    ``move`` and ``events`` are those of the last entry applied (the one that
    reached ``state``; none when nothing was), for whoever announces it."""

    valid: bool
    plies: int
    state: S
    first_illegal: tuple[int, EngineError] | None = None
    before: S | None = None
    move: str | None = None
    events: list[Json] = field(default_factory=list)


class Game(ABC, Generic[S, M]):
    """One game's rules.  Subclasses are stateless; one instance serves all.

    A game declares everything about itself as class attributes - its
    ``options`` (:class:`engine.options.Option`), its clock ``presets``
    (R-T2), its natural ends, what a flag does, the JSON Schema of its state -
    and the rest of the service picks it up from the registry."""

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[tuple[Option, ...]]
    presets: ClassVar[dict[str, ClockSpec]]  # R-T2; the first is the default unless default_preset says otherwise
    # JSON Schema of the game's own state fields, beside the common ones
    # (API.md "Reading a state"); openapi.yaml is generated from it.
    state_schema: ClassVar[Json]
    schemas: ClassVar[dict[str, Json]] = {}  # named JSON Schemas the game's options and state refer to
    # The rulings a move error cites (MoveError.rule) when no more precise one
    # applies: what a turn is (a step no legal move takes, a pass), and how the
    # game ends (a move after the end).
    move_rule: ClassVar[str]
    end_rule: ClassVar[str]
    # What a turn must do, for the sentence refusing "pass" (code no_pass).
    turn_needs: ClassVar[str]
    # The codes of the game's own illegal moves, with when (beside engine/errors.py's MOVE_ERROR_CODES).
    move_codes: ClassVar[dict[str, str]] = {}

    # -- options -------------------------------------------------------------------

    def describe(self) -> Json:
        """The game for ``GET /v1/games``: its variants, options with their
        defaults, clock presets and what a flag does - all from the declarations."""
        out: Json = {"name": self.name, "title": self.title, "variants": [], "options": {}}
        for opt in self.options:
            if opt.name == "variant":
                out["variants"] = list(opt.choices)
                if opt.aliases:
                    out["aliases"] = opt.alias_map
        out["options"] = {opt.name: opt.describe() for opt in self.options}
        out["presets"] = {name: spec.to_json() for name, spec in self.presets.items()}
        out["default_preset"] = next(iter(self.presets))
        for value, preset in self.variant_presets().items():  # which preset a match of each variant gets
            out["presets"][preset].setdefault("default_with", {"variant": []})["variant"].append(value)
        out["flag_rule"] = self.flag_rule
        return out

    @cached_property
    def declared(self) -> dict[str, Option]:
        """The declarations by name, made once: every ``load`` reads its options through them."""
        out: dict[str, Option] = {}
        for opt in self.options:
            out.setdefault(opt.name, opt)
        return out

    def option(self, name: str) -> Option:
        """The declaration of option ``name``."""
        opt = self.declared.get(name)
        if opt is None:
            raise KeyError(name)
        return opt

    def check_options(self, options: Any) -> Mapping[str, Any]:
        """``options`` is an object naming only options this game declares (BadOptions)."""
        return check_names(options, self.options, self.title)

    def read_option(
        self, options: Mapping[str, Any], name: str, err: FieldErrorType = BadOptions, prefix: str = "options"
    ) -> Any:
        """Option ``name`` from ``options`` (its default when absent), checked
        against its declaration: ``BadOptions`` naming ``options.<name>``.  A
        state's options (``err=BadState``) are read strictly, as dumped."""
        opt = self.option(name)
        raw = options.get(name, opt.default)
        return opt.read(raw, f"{prefix}.{name}", err, strict=err is BadState)

    def read_state_options(
        self, data: Mapping[str, Any], names: tuple[str, ...], optional: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """A state's ``options``: exactly ``names`` (and any of ``optional``),
        each spelt as dumped (BadState naming ``state.options.<name>``).
        Options without a simple type come back as they are, for the game to read."""
        opts = data["options"]
        if not isinstance(opts, Mapping):
            raise BadState("state.options", "state.options must be an object.")
        allowed = names + optional
        for key in opts:
            if key not in allowed:
                held = ", ".join(allowed)
                raise BadState(f"state.options.{key}", f"A {self.title} state's options hold only {held}, not '{key}'.")
        for key in names:
            if key not in opts:
                raise BadState(f"state.options.{key}", f"state.options lacks '{key}'.")
        return {key: self.read_option(opts, key, BadState, "state.options") for key in allowed if key in opts}

    def default_preset(self, options: Mapping[str, Any]) -> str:
        """The clock preset a match gets when it names none (R-T2); ``options``
        are the normalised options of the match's state."""
        return next(iter(self.presets))

    def variant_presets(self) -> dict[str, str]:
        """Each variant's clock preset (:meth:`default_preset` of a new game of it), for ``GET /v1/games``'s
        ``default_with``: a page choosing a variant selects its preset (issue 35); empty without variants."""
        variant = self.declared.get("variant")
        if variant is None:
            return {}
        return {value: self.default_preset(self.dump(self.new({"variant": value}))["options"]) for value in variant.choices}

    def check_replay_options(self, options: Mapping[str, Any]) -> None:
        """Raise :class:`BadOptions` for options that cannot replay a record (Crystal's with no deal: a
        new grid each time); most games' options always can."""

    def replay_options(self, options: Mapping[str, Any], state: S) -> Json:
        """The options with which ``replay`` reproduces a game that ``new(options)``
        started as ``state`` (Crystal adds the seed the server drew, R-X1)."""
        return dict(options)

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
        """Every legal move (or the first ``limit`` of them); a game whose
        list is of whole moves says so (``LegalMoves.complete``)."""

    def complete_moves(self, state: S, limit: int | None = None) -> LegalMoves:
        """Every complete legal move, in canonical notation (each move once,
        as :meth:`notation` writes it), or the first ``limit`` of them with
        ``truncated`` set.  Each is accepted by :meth:`play`, and every move
        :meth:`play` accepts is one of them (up to the order of a move's
        interchangeable steps, e.g. Catchup's stones).

        This default answers :meth:`legal_moves` when that list is complete
        already, and otherwise walks :meth:`next_steps` depth first; a game
        with many moves overrides it with something faster."""
        listed = self.legal_moves(state, limit)
        if listed.complete:
            return listed
        cap = None if limit is None else limit + 1
        out: list[str] = []
        if not self.is_over(state):
            self._walk(state, [], out, cap)
        truncated = limit is not None and len(out) > limit
        return LegalMoves(out[:limit] if limit is not None else out, truncated, listed.info, complete=True)

    def _walk(self, state: S, prefix: list[str], out: list[str], cap: int | None) -> None:
        found = self.next_steps(state, prefix)
        if found.complete and found.move is not None:
            out.append(found.move)
        for step in found.steps:
            if cap is not None and len(out) >= cap:
                return
            self._walk(state, [*found.prefix, step], out, cap)

    # -- a move step by step (bots and front ends build moves this way) --------------

    def split_move(self, move: str) -> list[str]:
        """The steps of a move (``"B1 A3"`` -> ``["B1", "A3"]``), separated by spaces and/or commas
        as the move parser takes them (R-H3: ``"b1, a3"`` too)."""
        return move.replace(",", " ").split()

    def join_steps(self, steps: Sequence[str]) -> str:
        """The notation of a move made of ``steps`` (the inverse of :meth:`split_move`)."""
        return " ".join(steps)

    def preview(self, state: S, prefix: Sequence[str]) -> S | None:
        """The position as the legal steps ``prefix`` of a move leave the board,
        for a front end to show while the move is built (issue 22: Crystal's
        shifts); None where the steps change nothing until the move is whole
        (this default).  Called only with a prefix :meth:`next_steps` accepted.
        Only a picture: the turn is not over, and nothing is to be played from it."""
        return None

    def next_steps(self, state: S, prefix: Sequence[str]) -> Steps:
        """The legal steps after ``prefix`` and whether the move may end there.

        Raises the first wrong step of ``prefix`` as a move error.  This default
        walks the complete legal moves; a game whose list gives single steps
        (Catchup's cells, Crystal's first shift) overrides it."""
        if self.is_over(state):
            raise self.game_over()
        moves = [self.split_move(m) for m in self.legal_moves(state).moves]
        written: list[str] = []
        for i, raw in enumerate(prefix):
            want = " ".join(raw.split()).casefold()
            moves = [m for m in moves if len(m) > i and m[i].casefold() == want]
            if not moves:
                raise self.wrong_step(state, prefix, i)
            written.append(moves[0][i])
        n = len(written)
        complete = any(len(m) == n for m in moves)
        steps = list(dict.fromkeys(m[n] for m in moves if len(m) > n))
        return Steps(written, steps, complete, self.join_steps(written) if complete else None)

    def wrong_step(self, state: S, prefix: Sequence[str], i: int) -> MoveError:
        """Why step ``i`` of ``prefix`` cannot be taken: the engine's own verdict
        on the move so far when it blames step ``i`` (or the move as a whole), else a plain word."""
        verdict = self.play(state, self.join_steps(list(prefix[: i + 1])))
        err = verdict.error
        # the steps before i were legal (next_steps walked them), so an error blaming one of them
        # (Plur's "swap A1" read as cells: "'swap' is not a cell") misnames the wrong step
        if isinstance(err, MoveError) and (err.step is None or err.step == i):
            return err
        return IllegalMove("bad_step", f"No legal move goes on with {prefix[i].strip()!r} here.", step=i, rule=self.move_rule)

    def game_over(self) -> IllegalMove:
        """The answer to any move once the game has ended."""
        return IllegalMove("game_over", "The game is over: no more moves can be played.", rule=self.end_rule)

    def is_pass(self, text: MoveInput) -> bool:
        """Is ``text`` the word ``pass`` (as text, or as a one-step list)?  No
        game allows passing (R-C1, R-B3, R-X2, R-E1, R-E2); it gets a plain answer."""
        if isinstance(text, str):
            return text.strip().casefold() == "pass"
        return len(text) == 1 and isinstance(text[0], str) and text[0].strip().casefold() == "pass"

    def no_pass(self) -> IllegalMove:
        return IllegalMove("no_pass", f"Passing is not allowed in {self.title}: {self.turn_needs}.", rule=self.move_rule)

    def state_head(self, state: S, version: int, options: Json) -> Json:
        """The fields every state starts with (API.md "Reading a state"), in
        order; each game's ``dump`` adds scores, board and its own."""
        return {
            "game": self.name,
            "version": version,
            "options": options,
            "status": "ongoing" if state.end is None else "finished",
            "to_move": state.to_move,
            "ply": state.ply,
            "winner": state.winner,
            "end": state.end,
        }

    def setup_options(self, state: S) -> Json:
        """Options with which ``new`` sets up ``state``'s position (API.md
        ``new``): an umpire's diagram, or a position to start a match from."""
        return dict(self.dump(state)["options"])

    def board_setup_options(self, state: S) -> Json:
        """:meth:`setup_options` of a game whose state dumps a ``board`` and
        ``blocked`` cells: the options, the position, and who is to move."""
        data = self.dump(state)
        out: Json = {**data["options"], "position": data["board"], "blocked": data["blocked"]}
        if state.to_move is not None:
            out["to_move"] = state.to_move
        return out

    def is_over(self, state: S) -> bool:
        """True once the game has finished."""
        return state.to_move is None

    # -- how a game ends (written once for every game) ---------------------------

    natural_ends: ClassVar[tuple[str, ...]]  # the game's own ends: Catchup "full", Bug "stuck"...
    flag_rule: ClassVar[str] = "loses"  # R-T1: what a flag does; Crystal says "proxy" (R-X6)

    @property
    def ends(self) -> tuple[str, ...]:
        """Every value a state's ``end`` may take besides null.  A flag ends only
        games whose flag loses (R-T1); in the others it opens R-X6's window."""
        common = COMMON_ENDS if self.flag_rule == "loses" else tuple(e for e in COMMON_ENDS if e != "flag")
        return (*self.natural_ends, *common)

    @abstractmethod
    def _finished(self, state: S, winner: int | None, end: str) -> S:
        """A copy of ``state`` that has ended by ``end`` with ``winner``."""

    def outcome(self, state: S) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if state.end is None:
            return None
        return Outcome(state.winner, state.end, self.decided_by(state))

    def decided_by(self, state: S) -> Json:
        """What decided a finished game beyond its winner and end (a tie-break...);
        the same detail the game's ``end`` event carries."""
        return {}

    def resign(self, state: S, player: int) -> tuple[S, list[Json]]:
        """``player`` resigns: the game is finished, the opponent wins (R-T1:
        either seat may resign at any time).  The state records why it ended."""
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: nobody can resign.", rule="R-T1")
        if player not in (0, 1):
            raise ValueError("player must be 0 or 1")
        winner = 1 - player
        return self._finished(state, winner, "resign"), [
            {"type": "resign", "player": player},
            {"type": "end", "winner": winner, "end": "resign"},
        ]

    def timeout(self, state: S) -> tuple[S, list[Json]]:
        """The player to move has flagged (R-T1) and nobody moved for them: that
        player loses.  Crystal Connector overrides this (R-X6: the turn passes)."""
        p = state.to_move
        if p is None:
            raise IllegalMove("game_over", "The game is over: nobody can flag.", rule="R-T1")
        return self._finished(state, 1 - p, "flag"), [
            {"type": "flag", "player": p},
            {"type": "end", "winner": 1 - p, "end": "flag"},
        ]

    def forfeit(self, state: S, player: int, error: MoveError | None = None) -> tuple[S, list[Json]]:
        """The player to move forfeits by an illegal move (a managed match's
        ``forfeit`` policy): the game is over and the opponent wins."""
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: nobody can forfeit.", rule=self.end_rule)
        if player != state.to_move:
            raise ValueError("only the player to move can forfeit")
        winner = 1 - player
        illegal: Json = {"type": "illegal", "player": player, "forfeit": True}
        if error is not None:
            illegal.update(error.to_json())
        return self._finished(state, winner, "illegal"), [illegal, {"type": "end", "winner": winner, "end": "illegal"}]

    def abort(self, state: S) -> tuple[S, list[Json]]:
        """An umpire stops a game: it is over with no winner."""
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: it cannot be aborted.", rule=self.end_rule)
        return self._finished(state, None, "aborted"), [{"type": "end", "winner": None, "end": "aborted"}]

    def adjudicate(self, state: S, winner: int | None, reason: str) -> tuple[S, list[Json]]:
        """An umpire decides the game: ``winner`` (0, 1, or None for a draw) for ``reason``."""
        if state.to_move is None:
            raise IllegalMove("game_over", "The game is over: it cannot be adjudicated.", rule=self.end_rule)
        if winner not in (0, 1, None):
            raise ValueError("winner must be 0, 1 or None")
        return self._finished(state, winner, "adjudicated"), [
            {"type": "adjudicate", "winner": winner, "reason": reason},
            {"type": "end", "winner": winner, "end": "adjudicated"},
        ]

    def read_end(self, data: Mapping[str, Any]) -> tuple[str | None, int | None, int | None]:
        """The lifecycle fields of a client's state, checked against each other:
        ``end`` one of :attr:`ends` or null, ``status`` following from it,
        ``to_move`` a player exactly while ongoing, ``winner`` null while
        ongoing and after an abort, a player after a resignation, a flag or
        a forfeit.  Returns ``(end,
        to_move, winner)``; whether a natural end really happened, and who won
        it, is for the game to check against the position."""
        end = data["end"]
        if end is not None and end not in self.ends:
            raise BadState("state.end", f"end must be null or one of {', '.join(self.ends)}, not {end!r}.")
        status = "ongoing" if end is None else "finished"
        if data["status"] != status:
            raise BadState("state.status", f"state.status is {data['status']!r} but end is {end!r}: expected {status!r}.")
        to_move, winner = data["to_move"], data["winner"]
        if end is None:
            if not is_player(to_move):
                raise BadState("state.to_move", "to_move must be 0 or 1 while the game is ongoing.")
            if winner is not None:
                raise BadState("state.winner", "An ongoing game has no winner yet.")
        else:
            if to_move is not None:
                raise BadState("state.to_move", "The game is over, so to_move must be null.")
            if winner is not None and not is_player(winner):
                raise BadState("state.winner", f"winner must be 0, 1 or null, not {winner!r}.")
            if end == "aborted" and winner is not None:
                raise BadState("state.winner", "An aborted game has no winner.")
            if end in COMMON_ENDS and end not in UNDECIDED_ENDS and winner is None:
                raise BadState("state.winner", f"A game that ended by {end} has a winner, 0 or 1.")
        return end, to_move, winner

    # -- built from the steps above ------------------------------------------

    def play(self, state: S, text: MoveInput) -> Verdict[S]:
        """Parse, check and apply one move; an illegal move is an answer."""
        if self.is_over(state):
            return Verdict(False, state, error=self.game_over())
        if self.is_pass(text):
            return Verdict(False, state, error=self.no_pass())
        try:
            move = self.parse(state, text)
            new_state, events = self.apply(state, move)
        except (InvalidMove, IllegalMove) as e:
            return Verdict(False, state, error=e)
        return Verdict(True, new_state, self.notation(state, move), events)

    def replay(self, options: Mapping[str, Any], moves: Sequence[MoveInput]) -> Replay[S]:
        """Play ``moves`` from ``new(options)``, stopping at the first illegal one.

        A record also holds what is not a move, as reserved entries (see
        :meth:`record_step`): ``timeout``, ``resign 0`` / ``resign 1``... and the
        umpire's ``takeback``, which undoes the move right before it
        (:meth:`take_back`)."""
        self.check_replay_options(options)
        state = self.new(options)
        last: Verdict[S] | None = None
        before: S | None = None
        undo: tuple[S, str] | None = None  # the move a take-back here would undo, and the position before it
        for i, text in enumerate(moves):
            if is_takeback(text):
                verdict = self.takeback_step(state, undo)
                undo = None  # only the last move, once (docs/UMPIRES.md "Taking back a move")
            else:
                verdict = self.record_step(state, text)
                word = verdict.move
                undo = (state, word) if verdict.legal and word and word.split()[0] not in RESERVED else None
            if not verdict.legal:
                assert verdict.error is not None
                return self._replayed(False, i, state, (i, verdict.error), before, last)
            before, last, state = state, verdict, verdict.state
        return self._replayed(True, len(moves), state, None, before, last)

    def take_back(self, before: S, move: str) -> tuple[S, list[Json]]:
        """The umpire takes back ``move``, the last one played: the game is back at ``before``, the
        position it was played from (a game it ended is open again), and the same player is to move."""
        event: Json = {"type": "takeback", "player": before.to_move, "move": move, "ply": before.ply}
        return before, [event]

    def takeback_step(self, state: S, undo: tuple[S, str] | None) -> Verdict[S]:
        """A record's ``takeback`` at ``state``: ``undo`` is the move right before it and the position
        it was played from (None when the entry before it was no move: nothing to take back)."""
        if undo is None:
            err = IllegalMove(
                "nothing_to_take_back",
                "A take-back undoes the move right before it in the record, once; there is none here "
                "(the start, a take-back, or an end that was not a move).",
                rule=None,  # no ruling: a take-back is the umpire's control of a match, in no game's rules
            )
            return Verdict(False, state, error=err)
        new_state, events = self.take_back(*undo)
        return Verdict(True, new_state, TAKEBACK, events)

    @staticmethod
    def _replayed(
        valid: bool, plies: int, state: S, first: tuple[int, EngineError] | None, before: S | None, last: Verdict[S] | None
    ) -> Replay[S]:
        if last is None:
            return Replay(valid, plies, state, first)
        return Replay(valid, plies, state, first, before, last.move, last.events)

    def record_step(self, state: S, text: MoveInput) -> Verdict[S]:
        """One entry of a game record: a move, or one of the reserved entries
        a managed match writes for what is not a move (R-T1, R-X6):

        * ``timeout``: the player to move flagged and nobody moved for them
          (:meth:`timeout`: Catchup and Bug, that player loses; Crystal, the
          turn passes with no shifts and is scored);
        * ``resign 0`` / ``resign 1``: that seat resigned (either seat may, at
          any time, so the entry names it);
        * ``forfeit 0`` / ``forfeit 1``: that seat, to move, lost by an illegal
          move (a match whose policy is to forfeit);
        * ``abort``: an umpire stopped the game, with no winner;
        * ``adjudicate 0`` / ``adjudicate 1`` / ``adjudicate draw``: an umpire
          decided the game (the reason is the record's comment, not the game's);
        * ``takeback``: an umpire undid the move before it, which only a whole
          record can say (:meth:`replay`): alone it is refused here.

        Only a record may say these: :meth:`play` judges moves, and refuses
        them, so a player cannot pass by typing ``timeout``."""
        words = text.lower().split() if isinstance(text, str) else []
        if not words or words[0] not in RESERVED:
            return self.play(state, text)
        if self.is_over(state):
            err: EngineError = IllegalMove(
                "game_over", f"The game is over: '{' '.join(words)}' cannot follow its end.", rule=self.end_rule
            )
            return Verdict(False, state, error=err)
        seat = int(words[1]) if len(words) == 2 and words[1] in ("0", "1") else None
        try:
            if words == ["timeout"]:
                new_state, events = self.timeout(state)
            elif words == ["abort"]:
                new_state, events = self.abort(state)
            elif words[0] == "resign" and seat is not None:
                new_state, events = self.resign(state, seat)
            elif words[0] == "adjudicate" and len(words) == 2 and words[1] in ("0", "1", "draw"):
                new_state, events = self.adjudicate(state, seat, "")
            elif words[0] == "forfeit" and seat is not None:
                if seat != state.to_move:
                    raise IllegalMove(
                        "not_to_move",
                        f"Only the player to move forfeits by an illegal move, not player {seat}.",
                        rule=self.move_rule,
                    )
                new_state, events = self.forfeit(state, seat)
            else:
                raise InvalidMove(
                    "A record writes a time-out as 'timeout', a resignation as 'resign 0' or 'resign 1', a forfeit by an "
                    "illegal move as 'forfeit 0' or 'forfeit 1', an umpire's abort as 'abort', an umpire's decision as "
                    "'adjudicate 0', 'adjudicate 1' or 'adjudicate draw', and an umpire's take-back of the move before it "
                    "as 'takeback' (in a whole record).",
                    rule="R-T1",
                )
        except (InvalidMove, IllegalMove) as e:
            return Verdict(False, state, error=e)
        return Verdict(True, new_state, " ".join(words), events)
