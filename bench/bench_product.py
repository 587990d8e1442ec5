"""Product beside Catchup, in one run: ``python -m bench product``.

Random complete games per second through the engine's public API (``new``,
``apply``), on the same board as bench_plur_too (side 5, 61 cells), every move
checked by the engine, one core, best of a few runs; also the same through
``play`` with move text.  The ratio to Catchup is printed, since it holds
better than the absolute figures on a shared machine.

A random game shuffles the board's cells once and takes each turn's stones
from the front of that list (as bench_catchup does), each of a random colour:
produto's one stone and then two a turn (31 turns on 61 cells), and bentley's
one a turn (61 turns).
"""

from __future__ import annotations

import random
from typing import Any

from bench.bench_catchup import games_per_second
from bench.bench_catchup import random_game_apply as catchup_apply
from bench.bench_catchup import random_game_play as catchup_play
from engine.games.product.rules import Product

SIDE = 5
GAME = Product()


def product_apply(rng: random.Random, variant: str = "produto") -> Any:
    state = GAME.new({"size": SIDE, "variant": variant})
    cells = list(state.board.cells)
    rng.shuffle(cells)
    apply, bit = GAME.apply, rng.getrandbits
    i = 0
    while state.to_move is not None:
        due = state.stones_due
        state, _ = apply(state, tuple((bit(1), b) for b in cells[i : i + due]))
        i += due
    assert state.end == "full"
    return state


def bentley_apply(rng: random.Random) -> Any:
    return product_apply(rng, "bentley")


def product_play(rng: random.Random) -> Any:
    state = GAME.new({"size": SIDE})
    names = [state.board.name(b) for b in state.board.cells]
    rng.shuffle(names)
    i = 0
    while state.to_move is not None:
        due = state.stones_due
        state = GAME.play(state, " ".join(f"{'BW'[rng.getrandbits(1)]} {n}" for n in names[i : i + due])).state
        i += due
    assert state.end == "full"
    return state


def main() -> None:
    for how, runs in (
        ("apply", (catchup_apply, product_apply, bentley_apply)),
        ("play", (catchup_play, product_play)),
    ):
        base, *rest = (games_per_second(f) for f in runs)
        print(f"side {SIDE}, random games/s through {how} (one core): catchup {base:,.0f}", flush=True)
        print(f"  product (produto) {rest[0]:,.0f} ({rest[0] / base:.2f}x catchup)", flush=True)
        if len(rest) > 1:
            print(f"  product (bentley) {rest[1]:,.0f} ({rest[1] / base:.2f}x catchup)", flush=True)


if __name__ == "__main__":
    main()
