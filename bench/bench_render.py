"""Picture speed against play speed: ``python -m bench render``.

For each game (Catchup at sides 5 and 10, Bug genius and Green Meadow,
Crystal Connector with every anomaly, Plur and Too at side 5), a mid-game
position with its last move's events:

* SVG pictures per second (``views.svg``);
* PNG pictures per second (``views.png``: the SVG, then resvg with the shipped fonts);
* stateless ``play`` calls per second in the same run: what the service does
  for ``POST /v1/games/{game}/play`` - ``load`` the client's JSON state,
  ``play`` a move given as text, ``dump`` the new state.  Plur and Too have no
  engine yet, so their ratios are against Catchup's ``play`` on the same side;

and the ratios render/play (how many plays one picture costs).  Aims: SVG
within 3x a play, PNG within 10x.  Each figure is the best of a few short
runs (the machine is shared).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import views
from engine import get_game
from engine.groups import group_sizes
from engine.hexboard import hexhex

ANOMALIES = ["bombs", "chameleons", "color-convertor", "pylons", "rocks", "shift-plus", "spikes"]
RUNS = 3
SECONDS = 0.4  # per run
Json = dict[str, Any]


def rate(fn: Callable[[], object]) -> float:
    """Calls per second, best of RUNS."""
    best = 0.0
    for _ in range(RUNS):
        n = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < SECONDS:
            fn()
            n += 1
        best = max(best, n / elapsed)
    return best


def engine_position(game: str, options: Json, plies: int, rng: random.Random) -> tuple[Json, list[Json], str]:
    """A position ``plies`` random moves in, its last move's events, and a legal next move (text)."""
    g = get_game(game)
    state = g.new(options)
    events: list[Json] = []
    for _ in range(plies):
        move = pick(g, state, rng)
        verdict = g.play(state, move)
        assert verdict.legal, verdict.error
        state, events = verdict.state, verdict.events
    return g.dump(state), events, pick(g, state, rng)


def pick(g: Any, state: Any, rng: random.Random) -> str:
    listed = g.legal_moves(state)
    if g.name == "catchup":
        return " ".join(rng.sample(listed.moves, min(2, g.max_stones(state))))
    if g.name == "crystal" and state.phase == "shift":
        from engine.crystal_grid import shift_text

        shifts = []
        for _ in range(listed.info["shifts_due"]):
            s = rng.choice(g.legal_shifts(state))
            shifts.append(shift_text(s.file, s.sign, s.amount))
            state = g.shifted(state, s)
        return ", ".join(shifts)
    return str(rng.choice(listed.moves))


def hand_position(game: str, size: int, stones: int, rng: random.Random) -> tuple[Json, list[Json]]:
    """Plur or Too (no engine yet): ``stones`` random stones, scores as the spec gives them."""
    board = hexhex(size)
    cells = [board.name(b) for b in board.cells]
    placed = {c: i % 2 for i, c in enumerate(rng.sample(cells, stones))}
    bits = [sum(1 << board.parse_cell(c) for c, v in placed.items() if v == p) for p in (0, 1)]
    g0, g1 = group_sizes(board, bits[0]), group_sizes(board, bits[1])
    last = list(placed)[-1]
    state: Json = {
        "game": game,
        "version": 1,
        "options": {"size": size, "pie": False} if game == "plur" else {"size": size},
        "status": "ongoing",
        "to_move": stones % 2,
        "ply": stones,
        "winner": None,
        "end": None,
        "scores": [g0, g1] if game == "plur" else [g0[1] if len(g0) > 1 else 0, g1[1] if len(g1) > 1 else 0],
        "board": placed,
        "blocked": [],
    }
    event: Json = {"type": "place", "player": (stones - 1) % 2, "cells": [last]}
    if game == "too":
        event["color"] = ("black", "white")[placed[last]]
    return state, [event]


def main() -> None:
    rng = random.Random(2024)
    cases: list[tuple[str, Json, list[Json], str, Json | None, str | None]] = []
    for label, game, options, plies in (
        ("Catchup side 5", "catchup", {"size": 5}, 20),
        ("Catchup side 10", "catchup", {"size": 10}, 90),
        ("Bug genius side 3", "bug", {}, 8),
        ("Bug Green Meadow", "bug", {"variant": "green-meadow"}, 10),
        ("Crystal, all anomalies", "crystal", {"seed": "bench", "anomalies": ANOMALIES}, 8),
    ):
        state, events, move = engine_position(game, options, plies, rng)
        cases.append((label, state, events, game, state, move))
    catchup5 = next(c for c in cases if c[0] == "Catchup side 5")
    for label, game in (("Plur side 5", "plur"), ("Too side 5", "too")):
        state, events = hand_position(game, 5, 30, rng)
        cases.append((label, state, events, "catchup", catchup5[4], catchup5[5]))

    print(f"{'position':<24} {'play/s':>9} {'SVG/s':>9} {'PNG/s':>8} {'SVG/play':>9} {'PNG/play':>9}")
    for label, state, events, engine_game, play_state, move in cases:
        g = get_game(engine_game)
        assert play_state is not None and move is not None
        loaded = g.load(play_state)
        assert g.play(loaded, move).legal

        def play_once(g: Any = g, data: Json = play_state, move: str = move) -> None:
            g.dump(g.play(g.load(data), move).state)

        plays = rate(play_once)
        svgs = rate(lambda state=state, events=events: views.svg(state, events=events))
        pngs = rate(lambda state=state, events=events: views.png(state, events=events))
        versus = "" if engine_game == state["game"] else f"  (play: {engine_game})"
        ratios = f"{plays / svgs:>8.2f}x {plays / pngs:>8.1f}x"
        print(f"{label:<24} {plays:>9,.0f} {svgs:>9,.0f} {pngs:>8,.0f} {ratios}{versus}", flush=True)


if __name__ == "__main__":
    main()
