"""What a front end needs to know to offer a game to a person: the page's hints.

Each game declares one :class:`Hints` in its own folder
(``engine/games/<name>/hints.py``) and registers it on its
:class:`~engine.room.Room`; ``GET /v1/games`` answers it (:meth:`Hints.describe`)
and the page (``service/api/static/``) learns everything about a game from it and
from the legal-moves prefix calls, never from tables of its own.

Plain data: no rule is decided here.  The legal steps, and whether a move may
end, are always the engine's answer (``Game.next_steps``); the hints only say
how a person writes and clicks a move, and the words for what they see.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.game import COMMON_ENDS

if TYPE_CHECKING:
    from engine.game import Game

Json = dict[str, Any]

CELL = "{cell}"  # in Click.step: the name of the cell clicked
CHOICE = "{choice}"  # in Click.step: the code of the choice picked before the click
WINNER = "{winner}"  # in End.won: the winner's name
PLAYERS = ("{player0}", "{player1}")  # in Hints.named_words: each seat's name


@dataclass(frozen=True)
class Choice:
    """Something a step carries that the person picks before clicking a cell
    (Too's colour): ``code`` as the step writes it (``B``), ``name`` as the
    page shows it (``Black``), ``colour`` a CSS colour of its pieces."""

    code: str
    name: str
    colour: str

    def describe(self) -> Json:
        return {"code": self.code, "name": self.name, "colour": self.colour}


@dataclass(frozen=True)
class Click:
    """How a click on a cell becomes a step: ``step`` with ``{cell}`` the
    cell's name and ``{choice}`` the code of the choice picked first (one of
    ``choices``, called ``label`` on the page): ``"{cell}"`` (Catchup's
    ``D7``), ``"{choice} {cell}"`` (Too's ``B D4``)."""

    step: str = CELL
    choices: tuple[Choice, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if CELL not in self.step:
            raise ValueError(f"a click step names the cell clicked ({CELL}): {self.step!r}")
        if (CHOICE in self.step) != bool(self.choices):
            raise ValueError(f"{CHOICE} in a click step and choices go together: {self.step!r}")
        if self.choices and not self.label:
            raise ValueError("choices need a label (what the page calls them)")

    def describe(self) -> Json:
        out: Json = {"step": self.step, "choices": [c.describe() for c in self.choices]}
        if self.label:
            out["label"] = self.label
        return out


@dataclass(frozen=True)
class End:
    """The sentences of one way a game ends: ``won`` when a player won
    (``{winner}`` stands for their name), ``drawn`` when nobody did; ``None``
    where that cannot happen (a resignation always has a winner; an abort
    never has one, and is no draw)."""

    won: str | None = None
    drawn: str | None = None

    def describe(self) -> Json:
        return {"won": self.won, "drawn": self.drawn}


# The ends every game shares (engine.game.COMMON_ENDS), said once for all.
COMMON_END_SENTENCES: dict[str, End] = {
    "resign": End(won=f"{WINNER} wins by resignation."),
    "flag": End(won=f"{WINNER} wins on time: the opponent's flag fell."),
    "illegal": End(won=f"{WINNER} wins: the opponent's illegal move forfeits the game."),
    "aborted": End(drawn="The umpire aborted the game: no result."),
    "adjudicated": End(won=f"{WINNER} wins by the umpire's decision.", drawn="The umpire adjudicated a draw."),
}
if set(COMMON_END_SENTENCES) != set(COMMON_ENDS):  # pragma: no cover - a new common end needs its sentence here
    raise RuntimeError("engine/hints.py: COMMON_END_SENTENCES must say every one of engine.game.COMMON_ENDS")


@dataclass(frozen=True, eq=False)
class Hints:
    """A game as a person meets it on the page.

    * ``players``: each seat's name (seat 0 first), as the pictures name them;
      ``colours``: a CSS colour of each seat's pieces, or ``None`` when seats
      own no fixed colour.
    * ``syntax``: how a move is written, in words; ``examples``: moves that
      are legal one after another from ``new(example_options)``.
    * ``click``: how a click on a cell becomes a step; ``None`` when cells are
      not steps (the steps are words, picked from the legal-moves list).
    * ``step_pattern``: a regular expression (the common subset of Python's
      and JavaScript's) each match of which, in a typed move, is one step as
      the engine counts them (an error's ``step`` indexes them); ``joiner``
      joins steps back into a move a person can read and the engine parses.
    * ``ends``: the sentences of the game's natural ends (the common ends are
      :data:`COMMON_END_SENTENCES`).
    * ``board_words``: what a value of the state's ``board`` is, in words,
      where no names are given (``"0"``: ``"Red's stone"``, the seats as the
      game names them); ``empty`` an empty cell.  A ``board`` is an object of
      cells, or a list of rows of one symbol a column.
    * ``named_words``: the same words where the players have names (a match's,
      or a picture's ``names``), ``{player0}`` and ``{player1}`` standing for
      them (``"{player0}'s stone"``): the colour words are said only when no
      names are given (issue 35).  A value not here is nobody's piece (Too's
      stones, Crystal's crystals) and reads as in ``board_words``.
    * ``turn_notes``: words added to "X to move" from a field of the state:
      field, then the value as text (``"*"`` for any other, where ``{value}``
      is the value; an empty text says nothing).
    """

    players: tuple[str, str]
    colours: tuple[str, str] | None
    syntax: str
    examples: tuple[str, ...]
    ends: Mapping[str, End]
    board_words: Mapping[str, str]
    click: Click | None = Click()
    step_pattern: str = r"[^\s,]+"
    joiner: str = " "
    empty: str = "empty"
    example_options: Mapping[str, Any] = field(default_factory=dict)
    turn_notes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    named_words: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        re.compile(self.step_pattern)
        if not self.examples:
            raise ValueError("a game shows at least one example move")
        for value, words in self.named_words.items():
            if value not in self.board_words:
                raise ValueError(f"named_words say the board value {value!r}, which board_words do not")
            if not any(p in words for p in PLAYERS):
                raise ValueError(f"named_words of {value!r} name no seat ({' or '.join(PLAYERS)}): {words!r}")

    def board_word(self, value: object, names: Sequence[str] | None = None) -> str:
        """What the board value ``value`` is, in words: with the players' ``names`` (seat 0's
        first) where the game's pieces are theirs, else in the game's own words."""
        key = str(value)
        named = self.named_words.get(key) if names else None
        if named is None or names is None:
            return self.board_words.get(key, key)
        for placeholder, name in zip(PLAYERS, names, strict=True):
            named = named.replace(placeholder, name)
        return named

    def split(self, move: str) -> list[str]:
        """The steps of ``move`` as the page reads them (``step_pattern``)."""
        return [m.group(0).strip() for m in re.finditer(self.step_pattern, move, re.IGNORECASE) if m.group(0).strip()]

    def end_sentences(self, game: Game[Any, Any]) -> dict[str, End]:
        """Every end ``game`` may reach (``game.ends``), with its sentences."""
        said = {**COMMON_END_SENTENCES, **self.ends}
        missing = [e for e in game.ends if e not in said]
        if missing:
            raise ValueError(f"{game.name}: no sentence for the end(s) {', '.join(missing)}")
        return {end: said[end] for end in game.ends}

    def describe(self, game: Game[Any, Any]) -> Json:
        """The hints as ``GET /v1/games`` answers them (``hints`` of each game)."""
        return {
            "players": list(self.players),
            "colours": None if self.colours is None else list(self.colours),
            "syntax": self.syntax,
            "examples": list(self.examples),
            "example_options": dict(self.example_options),
            "click": None if self.click is None else self.click.describe(),
            "step_pattern": self.step_pattern,
            "joiner": self.joiner,
            "ends": {end: e.describe() for end, e in self.end_sentences(game).items()},
            "board_words": dict(self.board_words),
            "named_words": dict(self.named_words),
            "empty": self.empty,
            "turn_notes": {name: dict(words) for name, words in self.turn_notes.items()},
        }
