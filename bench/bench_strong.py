"""How close the bots stop to their deadlines: ``python -m bench strong``.

Issue 37 (item 11 and "A computer worth playing"): a search stops on its
budget, plus a small stated margin.  In one run:

* **The strong bot's iterations** (umpire/bots/strong.py), per game on its
  default board and on side 10 where the game takes a size: iterations a
  second of CPU, and the longest single iteration (the search reads the clock
  before each, so it overruns its deadline by one iteration at most), over
  searches from positions at every stage of random games.
* **Each built-in bot's overrun** asked as the harness asks it
  (``choose``, a fresh bot each time as the service makes them): wall time
  less the budget, median and worst, at 0.01 s and 0.2 s, on side-10
  Product (the slowest case issue 37 names) and on each game's default board.
* **Suggestions over HTTP** (``POST /v1/games/{game}/suggest`` on the Flask
  test client, a ready searcher at the workers' priority): the round trip
  less the budget, median and worst, for each bot on side-10 Product at
  0.01 s and on Catchup at 0.2 s, against the stated ``searcher.MARGIN_S``.

Knobs (environment): ``BENCH_POSITIONS`` (6 per game and board),
``BENCH_REQUESTS`` (10 per bot and budget).  Wall times on a shared machine
wander with its load: the CPU figures are the search's own.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from typing import Any

from engine.registry import ROOMS
from umpire.bots import BUILTIN, TIMED, BotFactory, Turn
from umpire.bots.moves import random_move
from umpire.bots.strong import Node, StrongSearch

POSITIONS = int(os.environ.get("BENCH_POSITIONS", "6"))
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "10"))


class Timed(StrongSearch):
    """The search, each iteration's CPU time kept."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.took: list[float] = []

    def iterate(self, root: Node) -> None:
        start = time.process_time()
        super().iterate(root)
        self.took.append(time.process_time() - start)


def boards(name: str) -> list[dict[str, Any]]:
    game = ROOMS[name].game
    if any(o.name == "seed" for o in game.options):
        return [{"seed": "bench"}]
    if any(o.name == "size" for o in game.options) and name != "bug":
        return [{}, {"size": 10}]
    return [{}]


def positions(name: str, options: dict[str, Any], count: int) -> list[Any]:
    game = ROOMS[name].game
    rng = random.Random(11)
    out = []
    while len(out) < count:
        state, plies = game.new(options), rng.randint(0, 40)  # a random game's position, at any stage
        while plies and not game.is_over(state):
            state, plies = game.play(state, random_move(game, state, rng)).state, plies - 1
        if not game.is_over(state):
            out.append(state)
    return out


def iterations() -> None:
    print("strong: iterations per CPU second, and the longest iteration (ms of CPU)")
    print(f"{'game':10} {'board':12} {'it/s':>7} {'median':>8} {'longest':>8}")
    for name, room in ROOMS.items():
        assert room.guide is not None
        for options in boards(name):
            took: list[float] = []
            for state in positions(name, options, POSITIONS):
                tree = Timed(room.game, room.guide)
                tree.search(state, time.perf_counter() + 60, iterations=150)
                took += tree.took
            label = f"side {options['size']}" if "size" in options else "default"
            print(
                f"{name:10} {label:12} {len(took) / sum(took):7.0f} {1000 * statistics.median(took):8.2f} {1000 * max(took):8.2f}"
            )


def overruns() -> None:
    print("each bot's choose(): wall time less the budget, ms (median / worst)")
    cases = [("product", {"size": 10}), *((name, options) for name in ROOMS for options in boards(name)[:1])]
    print(f"{'game':10} {'board':12} {'budget':>7} " + " ".join(f"{b:>15}" for b in BUILTIN))
    for name, options in cases:
        game = ROOMS[name].game
        states = positions(name, options, POSITIONS)
        for budget in (0.01, 0.2):
            cells = []
            for bot in BUILTIN:
                over = []
                for state in states:
                    spec = f"{bot}:{budget!r}" if bot in TIMED else bot
                    player = BotFactory(spec, name).make(seed=1, limit_s=budget)
                    start = time.perf_counter()
                    player.choose(Turn(name, options, 0, game.dump(state), 0, "bench"))
                    over.append(time.perf_counter() - start - budget)
                cells.append(f"{1000 * statistics.median(over):+6.1f} / {1000 * max(over):+6.1f}")
            label = f"side {options['size']}" if "size" in options else "default"
            print(f"{name:10} {label:12} {budget:7.2f} " + " ".join(f"{c:>15}" for c in cells))


def suggestions() -> None:
    from flask.testing import FlaskClient

    from service import create_app
    from service.api.searcher import MARGIN_S
    from service.api.suggest import search_pool

    app = create_app({"TESTING": True, "SUGGEST_RATE_LIMIT": "off", "SUGGEST_NICE": 0})
    pool = search_pool(app)
    assert pool.wait_ready(60)
    client = FlaskClient(app)
    print(f"suggest over HTTP: round trip less the budget, ms (median / worst); the stated margin {1000 * MARGIN_S:.0f} ms")
    for name, options, budget in (("product", {"size": 10}, 0.01), ("catchup", {}, 0.2)):
        game = ROOMS[name].game
        states = [game.dump(s) for s in positions(name, options, POSITIONS)]
        client.post(f"/v1/games/{name}/suggest", json={"state": states[0], "bot": "random"})  # the app's lazy set-up
        for bot in BUILTIN:
            over, busy = [], 0
            for i in range(REQUESTS):
                start = time.perf_counter()
                body = {"state": states[i % len(states)], "bot": bot, "budget_s": budget}
                resp = client.post(f"/v1/games/{name}/suggest", json=body)
                over.append(time.perf_counter() - start - budget)
                busy += resp.status_code == 503
            label = f"side {options.get('size', 5)}"
            print(
                f"{name:10} {label:8} {bot:7} {budget:5.2f} s: {1000 * statistics.median(over):+6.1f} / "
                f"{1000 * max(over):+6.1f} ms{f', {busy} of {REQUESTS} answered 503' if busy else ''}"
            )
    pool.close()


def main() -> None:
    iterations()
    overruns()
    suggestions()
