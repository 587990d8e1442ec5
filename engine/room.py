"""A game's registration: one :class:`Room` per game, built in the game's own
folder (``engine/games/<name>/__init__.py``) and listed once in
:mod:`engine.registry` (OpenSpiel's ``register_game``).

A room holds the game's rules and everything else the service asks of the
game, so nothing outside the game's folder names it.

What the built-in bots (umpire/bots/) ask of a game: nothing for ``random``
and ``mcts`` (they build moves from ``Game.next_steps`` and
``Game.complete_moves``); for ``greedy``, an :data:`Evaluation` of positions;
for ``strong``, a :class:`Guide` (a value of positions and a prior over the
next steps of a move).
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


# ``evaluation(state, player)``: how good the engine ``state`` (ongoing, just
# after ``player``'s move) looks for ``player``; higher is better, and values
# of one game compare with ``<`` (a number, or a tuple of numbers compared in
# order).  Pure: no randomness, no change to ``state``.  The greedy bot plays
# the move whose position rates highest (a finished position ranks by its
# result, before any evaluation: a win first, a loss last).
Evaluation = Callable[[Any, int], Any]

# ``end_detail(final, events)``: one sentence on what decided a game that
# ended by its own rules, from the final state's JSON and the last move's
# events, for a tournament's results (``detail``); cite the ruling.
EndDetail = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], str]


STOP = ""  # among the steps a Guide ranks: "end the move here" (where it may end but could go on)


@dataclass(frozen=True)
class Guide:
    """What the ``strong`` bot (umpire/bots/strong.py) asks of a game: pure,
    fast functions of the engine's state, declared in the game's folder.

    ``value(state)``: player 0's chances in an ongoing position, strictly
    between 0 and 1 (0.5: even), whoever is to move; the search scores every
    new position with it, in place of random games to the end, so it must
    compare positions of different depths sensibly (a chance, not a ranking).

    ``priors(state, prefix, steps)``: a score for each of ``steps``, the legal
    next steps of a move begun with ``prefix`` in ``state`` (as
    ``Game.next_steps`` gives them; :data:`STOP` where the move may end there),
    higher for a step more likely best for the player to move; the search
    tries steps in this order and weights them by ``exp(score)``, so a
    difference of 1 means about e times as likely.

    ``exploration``: the weight of a UCB1 term (``sqrt(ln N / n)``) the search
    adds to PUCT's for this game: for values that are noisy (random games to
    the end), so that a step unlucky in its first values is tried again.
    0 (the default): PUCT alone, where the priors alone say what to try.
    """

    value: Callable[[Any], float]
    priors: Callable[[Any, Sequence[str], Sequence[str]], Sequence[float]]
    exploration: float = 0.0


@dataclass(frozen=True)
class Room:
    """Everything about one game, as the other layers read it."""

    game: Game[Any, Any]
    show: Show  # the picture as data and the sentences of announcements (engine/show.py)
    # other sites' record formats, by name (POST /v1/games/{game}/import, a match's moves ?format=)
    records: Mapping[str, RecordFormat] = field(default_factory=dict)
    evaluation: Evaluation | None = None  # the greedy bot's measure; None: no greedy bot for this game
    guide: Guide | None = None  # the strong bot's value and priors; None: no strong bot for this game
    end_detail: EndDetail | None = None  # None: the results say the end, the winner and the scores
    # How the page offers the game to a person (engine/hints.py): names, move
    # syntax, examples, how a click becomes a step, the words of its ends.
    hints: Hints = field(kw_only=True)

    @property
    def name(self) -> str:
        return self.game.name
