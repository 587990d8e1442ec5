"""Catchup speed on side 5 (61 cells): ``python -m bench catchup``.

Figures printed:

* microseconds per ``Catchup.apply`` of a two-stone move on a half-full board;
* complete random games per second through ``apply`` (every move checked by
  the engine's public API; cells chosen from the empty cells);
* the same through ``play`` with the move as text, so parsing is included.

A random game is played by shuffling the board's cells once and taking each
turn's stones from the front of that list: every pick is then a uniformly
random empty cell, without the benchmark scanning the board for empty cells on
every turn.  The turn size is uniform in 1..``max_stones``.  Each figure is the
best of a few runs, because the machine is shared.
"""

from __future__ import annotations

import functools
import random
import time
import timeit
from collections.abc import Callable

from engine.games.catchup.rules import Catchup, CatchupState
from engine.hexboard import iter_bits

GAME = Catchup()
SIDE = 5
RUNS = 5
SECONDS = 1.0  # per run


def random_game_apply(rng: random.Random) -> CatchupState:
    """One random game, each move checked and applied by ``Catchup.apply``."""
    state = GAME.new({"size": SIDE})
    cells = list(state.board.cells)
    rng.shuffle(cells)
    apply, max_stones, random_ = GAME.apply, GAME.max_stones, rng.random
    i = 0
    while state.to_move is not None:
        k = 1 + int(random_() * max_stones(state))
        state, _ = apply(state, tuple(cells[i : i + k]))
        i += k
    return state


def random_game_play(rng: random.Random) -> CatchupState:
    """One random game through ``play``: the move is text, parsed each time."""
    state = GAME.new({"size": SIDE})
    board = state.board
    names = [board.name(b) for b in board.cells]
    rng.shuffle(names)
    play, max_stones, random_ = GAME.play, GAME.max_stones, rng.random
    i = 0
    while state.to_move is not None:
        k = 1 + int(random_() * max_stones(state))
        verdict = play(state, " ".join(names[i : i + k]))
        if not verdict.legal:
            raise AssertionError(f"random legal move refused: {verdict.error}")
        state = verdict.state
        i += k
    return state


def games_per_second(play_one: Callable[[random.Random], object]) -> float:
    best = 0.0
    rng = random.Random(2024)
    for _ in range(RUNS):
        n = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < SECONDS:
            play_one(rng)
            n += 1
        best = max(best, n / elapsed)
    return best


def half_full_positions(count: int) -> list[tuple[CatchupState, tuple[int, int]]]:
    """Positions with about 30 of 61 cells filled, each with a legal two-stone move."""
    rng = random.Random(7)
    out: list[tuple[CatchupState, tuple[int, int]]] = []
    while len(out) < count:
        state = GAME.new({"size": SIDE})
        cells = list(state.board.cells)
        rng.shuffle(cells)
        i = 0
        while i < 30:
            k = rng.randint(1, GAME.max_stones(state))
            state, _ = GAME.apply(state, tuple(cells[i : i + k]))
            i += k
        empty = list(iter_bits(state.empty))
        out.append((state, (empty[0], empty[len(empty) // 2])))
    return out


def us_per_apply() -> float:
    positions = half_full_positions(20)
    apply = GAME.apply
    number = 2000
    best = float("inf")
    for _ in range(RUNS):
        total = 0.0
        for state, move in positions:
            total += timeit.timeit(functools.partial(apply, state, move), number=number)
        best = min(best, total / (number * len(positions)) * 1e6)
    return best


def main() -> None:
    print(f"catchup side {SIDE}: apply of a two-stone move on a half-full board: {us_per_apply():.2f} us")
    print(f"catchup side {SIDE}: random games/s through apply (one core): {games_per_second(random_game_apply):,.0f}")
    print(f"catchup side {SIDE}: random games/s through play with text (one core): {games_per_second(random_game_play):,.0f}")


if __name__ == "__main__":
    main()
