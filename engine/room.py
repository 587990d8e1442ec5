"""A game's registration: one :class:`Room` per game, built in the game's own
folder (``engine/games/<name>/__init__.py``) and listed once in
:mod:`engine.registry` (OpenSpiel's ``register_game``).

A room holds the game's rules and everything else the service asks of the
game, so nothing outside the game's folder names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from engine.hints import Hints
from engine.show import Show


@dataclass(frozen=True)
class RecordFormat:
    """A game record format other sites write (Little Golem's...): ``read``
    turns its text into ``(options, moves)`` as ``replay`` takes them (raising
    a FieldError that names the line and token), ``write`` turns a game's
    options and moves (and the players' names) back into that text."""

    name: str
    title: str
    read: Callable[[str], tuple[dict[str, object], list[str]]]
    write: Callable[[Mapping[str, object], Sequence[str], Sequence[str]], str]


@dataclass(frozen=True)
class Room:
    """Everything about one game, as the other layers read it."""

    game: Game[Any, Any]
    show: Show  # the picture as data and the sentences of announcements (engine/show.py)
    # other sites' record formats, by name (POST /v1/games/{game}/import, a match's moves ?format=)
    records: Mapping[str, RecordFormat] = field(default_factory=dict)
    # How the page offers the game to a person (engine/hints.py): names, move
    # syntax, examples, how a click becomes a step, the words of its ends.
    hints: Hints = field(kw_only=True)

    @property
    def name(self) -> str:
        return self.game.name
