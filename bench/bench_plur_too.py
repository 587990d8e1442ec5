"""Plur and Too beside Catchup, in one run: ``python -m bench plur_too``.

Random complete games per second through each engine's public API
(``new``, ``apply``, ``max_stones``), on the same board (side 5, 61 cells),
every move checked by the engine, one core, best of a few runs: the aim
(issue: Plur and Too) is that both are at least as fast as Catchup.  Also the
same through ``play`` with move text.  The ratios are printed, since they
hold better than the absolute figures on a shared machine.

A random game shuffles the board's cells once and takes each turn's stones
from the front of that list (as bench_catchup does); Plur and Too place one
stone a turn, Too of a random colour.
"""

from __future__ import annotations

import random
from typing import Any

from bench.bench_catchup import games_per_second
from bench.bench_catchup import random_game_apply as catchup_apply
from bench.bench_catchup import random_game_play as catchup_play
from engine.games.plur.rules import Plur
from engine.games.too.rules import Too

SIDE = 5
PLUR, TOO = Plur(), Too()


def plur_apply(rng: random.Random) -> Any:
    state = PLUR.new({"size": SIDE})
    cells = list(state.board.cells)
    rng.shuffle(cells)
    apply = PLUR.apply
    for b in cells:
        state, _ = apply(state, (b,))
    assert state.end == "full"
    return state


def too_apply(rng: random.Random) -> Any:
    state = TOO.new({"size": SIDE})
    cells = list(state.board.cells)
    rng.shuffle(cells)
    apply, bit = TOO.apply, rng.getrandbits
    for b in cells:
        state, _ = apply(state, ((bit(1), b),))
    assert state.end == "full"
    return state


def plur_play(rng: random.Random) -> Any:
    state = PLUR.new({"size": SIDE})
    names = [state.board.name(b) for b in state.board.cells]
    rng.shuffle(names)
    for name in names:
        state = PLUR.play(state, name).state
    return state


def too_play(rng: random.Random) -> Any:
    state = TOO.new({"size": SIDE})
    names = [state.board.name(b) for b in state.board.cells]
    rng.shuffle(names)
    for name in names:
        state = TOO.play(state, f"{'BW'[rng.getrandbits(1)]} {name}").state
    return state


def main() -> None:
    for how, runs in (("apply", (catchup_apply, plur_apply, too_apply)), ("play", (catchup_play, plur_play, too_play))):
        base, plur, too = (games_per_second(f) for f in runs)
        print(f"side {SIDE}, random games/s through {how} (one core): catchup {base:,.0f}", flush=True)
        print(f"  plur {plur:,.0f} ({plur / base:.2f}x catchup), too {too:,.0f} ({too / base:.2f}x catchup)", flush=True)


if __name__ == "__main__":
    main()
