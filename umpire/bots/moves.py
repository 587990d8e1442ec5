"""Moves for the built-in bots, from what every game answers (engine/game.py):
``legal_moves`` (marked ``complete`` when it lists whole moves),
``complete_moves`` and ``next_steps``.  No game is named here; a game's own
knowledge is its position evaluation (engine/room.py), for ``greedy`` only.

* :func:`random_move`: uniform over the game's list when it is of whole
  moves and at most ``LISTED`` long, else built step by step: each step
  uniform over the legal next steps, and where the move may end but could go
  on, ended with even odds (so Catchup's turns are one, two or three stones,
  not mostly three).  A long list of whole moves is not written out for one
  draw (Product on side 10 lists 146,000 two-stone turns).
* :func:`candidates`: every complete move when there are at most
  ``ALL_MOVES`` of them, else a sample of random moves (Crystal's turns
  run to millions).
* :func:`greedy_move`: the candidate whose position rates highest (of
  those judged by a deadline, when given).
"""

from __future__ import annotations

import random
import time
from typing import Any

from engine.game import Game, Steps
from engine.room import STOP, Evaluation

ALL_MOVES = 1000  # greedy judges every complete move up to this many
SAMPLE = 150  # else this many random ones (duplicates dropped)
LISTED = 1000  # random draws from the game's list of whole moves up to this long, else builds a move step by step


def random_move(game: Game[Any, Any], state: Any, rng: random.Random) -> str:
    """A random legal move of ``state`` (ongoing)."""
    listed = game.legal_moves(state, LISTED)
    if listed.complete and not listed.truncated:
        return rng.choice(listed.moves)
    return finish(game, state, [], rng)


def finish(game: Game[Any, Any], state: Any, prefix: list[str], rng: random.Random) -> str:
    """A random legal move that begins with the (legal) steps of ``prefix``."""
    while True:
        found = game.next_steps(state, prefix)
        if found.complete and (not found.steps or rng.random() < 0.5):
            assert found.move is not None
            return found.move
        prefix = [*found.prefix, rng.choice(found.steps)]


def after_step(game: Game[Any, Any], state: Any, found: Steps, step: str) -> tuple[str | None, Steps | None]:
    """A move begun in ``state`` with the steps ``found`` goes on with ``step``
    (:data:`engine.room.STOP`: it ends there): the whole move's text when that
    ends it (nothing may follow), else what may follow."""
    if step == STOP:
        return found.move, None
    after = game.next_steps(state, [*found.prefix, step])
    if after.complete and not after.steps:
        return after.move, None
    return None, after


def candidates(game: Game[Any, Any], state: Any, rng: random.Random, deadline: float | None = None) -> list[str]:
    """The moves greedy judges: all of them when few, else a random sample (as
    many as ``deadline`` leaves time to draw, at least one)."""
    listed = game.complete_moves(state, ALL_MOVES)
    if not listed.truncated:
        return listed.moves
    drawn: list[str] = []
    for _ in range(SAMPLE):
        if drawn and deadline is not None and time.perf_counter() >= deadline:
            break
        drawn.append(random_move(game, state, rng))
    return list(dict.fromkeys(drawn))


def greedy_move(
    game: Game[Any, Any], evaluation: Evaluation, state: Any, rng: random.Random, deadline: float | None = None
) -> str:
    """The move after which ``evaluation`` rates the position highest for the
    player to move; a finished position ranks by its result first (a win
    above everything, a loss below); ties broken at random.  With a
    ``deadline`` (a time of ``time.perf_counter``), the best of the
    candidates judged by then (at least one)."""
    player = state.to_move
    best: tuple[Any, ...] | None = None
    choice = None
    for move in candidates(game, state, rng, deadline):
        if choice is not None and deadline is not None and time.perf_counter() >= deadline:
            break
        verdict = game.play(state, move)
        if not verdict.legal:  # pragma: no cover - the engine lists legal moves only
            continue
        after = verdict.state
        if game.is_over(after):
            w = after.winner
            key: tuple[Any, ...] = (2 if w == player else 0 if w is not None else 1, 0, rng.random())
        else:
            key = (1, 1, evaluation(after, player), rng.random())
        if best is None or key > best:
            best, choice = key, move
    assert choice is not None
    return choice
