"""Crystal Connector speed: one full turn (three shifts plus both scores) and
random complete games per second (``python -m bench crystal``).

Aim: one turn under 60 microseconds.
"""

from __future__ import annotations

import random
import time

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import Crystal, CrystalState, Shift, Turn

GAME = Crystal()
COLORS = [["red", "green"], ["blue", "yellow"]]
ALL = ["bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes"]


def random_turn(state: CrystalState, rng: random.Random) -> Turn:
    """A legal turn chosen shift by shift: a random shift of a file that is not
    barred, drawn again while it would carry a rock over the edge (rocks move, so
    each shift is checked on the grid the earlier ones left)."""
    due = GAME.shifts_due(state)
    files = [f for f in range(12) if not state.barred >> f & 1]
    items = []
    grid = state.grid
    for _ in range(due):
        while True:
            f, sign, amount = rng.choice(files), rng.choice((-1, 1)), rng.randint(1, 5)
            if not grid[cg.ROCK] & cg.WRAP[f][sign][amount]:
                break
        items.append(Shift(f, sign, amount))
        grid = cg.shift(grid, f, sign, amount)
    return Turn(tuple(items))


def random_game(options: dict[str, object], rng: random.Random) -> int:
    state = GAME.new(options)
    turns = 0
    while state.to_move is not None:
        state, _ = GAME.apply(state, random_turn(state, rng))
        turns += 1
    return turns


def time_turn(anomalies: list[str], n: int) -> tuple[float, float]:
    """(microseconds per apply of a parsed turn, microseconds per play of its text)."""
    state = GAME.new({"seed": "bench", "anomalies": anomalies, "colors": COLORS, "first": 0})
    turn = Turn((Shift(2, -1, 2), Shift(7, 1, 3), Shift(0, 1, 1)))
    text = "C up 2, 2 right 3, A down 1"
    if "rocks" in anomalies:  # pick a legal turn for this grid instead
        turn = random_turn(state, random.Random(1))
        text = GAME.notation(state, turn)
    best_apply = best_play = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            GAME.apply(state, turn)
        best_apply = min(best_apply, (time.perf_counter() - t0) / n * 1e6)
        t0 = time.perf_counter()
        for _ in range(n):
            GAME.play(state, text)
        best_play = min(best_play, (time.perf_counter() - t0) / n * 1e6)
    return best_apply, best_play


def time_games(anomalies: list[str], seconds: float) -> tuple[float, float]:
    """(random complete games per second, mean turns per game)."""
    rng = random.Random(7)
    games = turns = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        turns += random_game({"seed": f"g{games}", "anomalies": anomalies, "colors": COLORS, "first": games % 2}, rng)
        games += 1
    return games / (time.perf_counter() - t0), turns / games


def main() -> None:
    six = [a for a in ALL if a != "shift-plus"]  # shift-plus would make the first turn 2 shifts
    for label, anomalies in (("no anomalies", []), ("all anomalies but shift-plus", six)):
        apply_us, play_us = time_turn(anomalies, 5000)
        print(
            f"crystal, {label}: one turn (3 shifts + both scores): apply {apply_us:.1f} us, play (parse+apply) {play_us:.1f} us"
        )
    for label, anomalies in (("no anomalies", []), ("all seven anomalies", ALL)):
        gps, mean_turns = time_games(anomalies, 2.0)
        print(f"crystal, {label}: {gps:.1f} random complete games/s (mean {mean_turns:.1f} turns a game)")


if __name__ == "__main__":
    main()
