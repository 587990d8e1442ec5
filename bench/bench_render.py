"""Picture speed against play speed: ``python -m bench render``.

For each game (Catchup at sides 5 and 10, Bug genius and Green Meadow,
Crystal Connector with every anomaly, Plur and Too at side 5), a mid-game
position with its last move's events:

* stateless ``play`` calls per second: what the service does for ``POST
  /v1/games/{game}/play`` in the engine - ``load`` the client's JSON state,
  ``play`` a move given as text, ``dump`` the new state;
* SVG pictures per second (``views.svg``);
* PNG pictures per second (``views.png``: the SVG, then resvg with the
  shipped fonts), first never seen before (the picture cache emptied before
  each), then again (found in ``views.raster``'s cache by its SVG text);

and the ratios render/play (how many plays one picture costs).  Aims: SVG
within 3x a play, PNG within 10x.  Then, in the same run, the HTTP
endpoints through Flask's test client (no network): ``POST .../play`` (which
now also writes the announcements) beside ``POST .../post`` (the forum post
of the same position), as microseconds per request.  Each figure is the best
of a few short runs (the machine is shared).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import views
from engine import get_game
from views import raster

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
        from engine.games.crystal.grid import shift_text

        shifts = []
        for _ in range(listed.info["shifts_due"]):
            s = rng.choice(g.legal_shifts(state))
            shifts.append(shift_text(s.file, s.sign, s.amount))
            state = g.shifted(state, s)
        return ", ".join(shifts)
    return str(rng.choice(listed.moves))


def main() -> None:
    rng = random.Random(2024)
    cases: list[tuple[str, Json, list[Json], str, Json | None, str | None]] = []
    for label, game, options, plies in (
        ("Catchup side 5", "catchup", {"size": 5}, 20),
        ("Catchup side 10", "catchup", {"size": 10}, 90),
        ("Bug genius side 3", "bug", {}, 8),
        ("Bug Green Meadow", "bug", {"variant": "green-meadow"}, 10),
        ("Crystal, all anomalies", "crystal", {"seed": "bench", "anomalies": ANOMALIES}, 8),
        ("Plur side 5", "plur", {"size": 5}, 30),
        ("Too side 5", "too", {"size": 5}, 30),
    ):
        state, events, move = engine_position(game, options, plies, rng)
        cases.append((label, state, events, game, state, move))

    rates = f"{'play/s':>9} {'SVG/s':>9} {'PNG/s':>7} {'cached':>9}"
    print(f"{'position':<24} {rates} {'SVG/play':>9} {'PNG/play':>9} {'cached':>7}")
    for label, state, events, engine_game, play_state, move in cases:
        g = get_game(engine_game)
        assert play_state is not None and move is not None
        loaded = g.load(play_state)
        assert g.play(loaded, move).legal

        def play_once(g: Any = g, data: Json = play_state, move: str = move) -> None:
            g.dump(g.play(g.load(data), move).state)

        def png_new(state: Json = state, events: list[Json] = events) -> None:
            raster.render_cached.cache_clear()
            views.png(state, events=events)

        plays = rate(play_once)
        svgs = rate(lambda state=state, events=events: views.svg(state, events=events))
        pngs = rate(png_new)
        cached = rate(lambda state=state, events=events: views.png(state, events=events))
        ratios = f"{plays / svgs:>8.2f}x {plays / pngs:>8.1f}x {plays / cached:>6.2f}x"
        print(f"{label:<24} {plays:>9,.0f} {svgs:>9,.0f} {pngs:>7,.0f} {cached:>9,.0f} {ratios}", flush=True)
    http(cases)


def http(cases: list[tuple[str, Json, list[Json], str, Json | None, str | None]]) -> None:
    """``POST /v1/games/{game}/play`` and ``POST /v1/games/{game}/post`` of each position, in µs per request."""
    from service import create_app

    client = create_app({"TESTING": True, "REDIS_URL": "unix:///nonexistent"}).test_client()
    print(f"\n{'HTTP (Flask test client)':<24} {'play µs':>9} {'post µs':>9} {'post/play':>10}")
    for label, state, events, game, play_state, move in cases:
        play_body = {"state": play_state, "move": move}
        post_body = {"state": state, "events": events}
        assert client.post(f"/v1/games/{game}/play", json=play_body).status_code == 200
        assert client.post(f"/v1/games/{game}/post", json=post_body).status_code == 200
        plays = rate(lambda game=game, body=play_body: client.post(f"/v1/games/{game}/play", json=body))
        posts = rate(lambda game=game, body=post_body: client.post(f"/v1/games/{game}/post", json=body))
        print(f"{label:<24} {1e6 / plays:>9,.0f} {1e6 / posts:>9,.0f} {plays / posts:>9.2f}x", flush=True)


if __name__ == "__main__":
    main()
