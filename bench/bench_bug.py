"""Bug speed: ``python -m bench bug``.

Figures printed:

* milliseconds for ``Bug.legal_moves`` (every complete move, grow plus each
  bonus sequence, as notation strings) in crowded side-4 positions: of all
  positions of 300 seeded random games with at least 19 of the 37 cells
  occupied, the 30 with the most complete moves; the figure is the mean over
  them;
* the same for the single most expensive of those positions;
* complete random games per second on side 3: each turn lists the complete
  moves (``Bug.move_cells``), picks one uniformly, and applies it through
  ``Bug.apply``, which checks it step by step as for any client;
* the same with ``eaters: all`` (R-B8).

Aims (from the Bug issue): listing under 1 ms; at least 500 games per second.
Each figure is the best of a few runs, because the machine is shared.
"""

from __future__ import annotations

import random
import time
import timeit
from typing import Any

from engine.games.bug.rules import Bug, BugState

GAME = Bug()
RUNS = 5
SECONDS = 1.0  # per run


def random_game(rng: random.Random, options: dict[str, Any]) -> BugState:
    state = GAME.new(options)
    move_cells, apply, choice = GAME.move_cells, GAME.apply, rng.choice
    while state.to_move is not None:
        state, _ = apply(state, choice(move_cells(state)))
    return state


def games_per_second(options: dict[str, Any]) -> tuple[float, float]:
    """(games per second, mean plies per game)."""
    best, plies = 0.0, 0.0
    rng = random.Random(2024)
    for _ in range(RUNS):
        n = total = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < SECONDS:
            total += random_game(rng, options).ply
            n += 1
        if n / elapsed > best:
            best, plies = n / elapsed, total / n
    return best, plies


def crowded_positions(count: int, side: int = 4, games: int = 300) -> list[BugState]:
    """The ``count`` ongoing side-``side`` positions with the most complete moves
    among those of ``games`` seeded random games where at least half the cells hold
    a piece: crowded boards where eat chains branch most."""
    rng = random.Random(11)
    seen: list[tuple[int, int, BugState]] = []
    for _ in range(games):
        state = GAME.new({"size": side})
        while state.to_move is not None:
            moves = GAME.move_cells(state)
            if 2 * (state.stones[0] | state.stones[1]).bit_count() >= len(state.board.cells):
                seen.append((len(moves), len(seen), state))
            state, _ = GAME.apply(state, rng.choice(moves))
    seen.sort(reverse=True, key=lambda t: (t[0], t[1]))
    return [s for _, _, s in seen[:count]]


def listing_ms(positions: list[BugState]) -> tuple[float, float, int]:
    """(mean ms per listing, worst position's ms, mean number of moves)."""
    number = 200
    best_mean, best_worst = float("inf"), float("inf")
    for _ in range(RUNS):
        times = [timeit.timeit(lambda s=s: GAME.legal_moves(s), number=number) / number * 1e3 for s in positions]  # type: ignore[misc]
        best_mean = min(best_mean, sum(times) / len(times))
        best_worst = min(best_worst, max(times))
    moves = sum(len(GAME.legal_moves(s).moves) for s in positions) // len(positions)
    return best_mean, best_worst, moves


def main() -> None:
    positions = crowded_positions(30)
    mean, worst, moves = listing_ms(positions)
    crowded = f"a crowded position (>= 19 of 37 cells occupied, {moves} moves on average)"
    print(f"bug side 4: legal_moves in {crowded}: {mean:.3f} ms mean")
    print(f"bug side 4: legal_moves in the slowest of those {len(positions)} positions: {worst:.3f} ms")
    for eaters in ("active", "all"):
        gps, plies = games_per_second({"size": 3, "eaters": eaters})
        print(f"bug side 3, eaters {eaters}: random complete games/s (one core, {plies:.1f} plies each): {gps:,.0f}")


if __name__ == "__main__":
    main()
