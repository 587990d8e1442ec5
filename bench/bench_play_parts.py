"""What a stateless Catchup ``play`` costs beyond the plumbing (issue 20, "Cost per request"):
``python -m bench play_parts``.

Two positions: the one ``bench request_cpu`` plays (one stone on the board, the move ``D4 F6``),
and one 15 random turns in (seed 3: 27 stones).  For each:

* timeit, best of 7, of each engine step the view takes: ``load`` of the client's state (every
  field checked), ``play``, ``dump`` of the new state, the announcements; and
  ``verdict_response.dump`` of the answer, which the view called before issue 20's changes;
* in the app as ``make run`` configures it (as bench/bench_request_cpu.py does), the CPU of whole
  ``play`` requests, of the view within them, and of the body's reading within the view
  (``json_body``: the JSON parse, the limits and marshmallow's load every POST pays), counted with
  ``time.process_time`` in ``BENCH_BATCHES`` (20) batches of ``BENCH_BATCH`` (300) requests,
  medians.  The view less the body's reading is the play's own work with the caches as a
  request leaves them: two to three times the sum of the timeit figures."""

from __future__ import annotations

import json
import random
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

from bench.common import load_average


def positions() -> list[tuple[str, Any, str]]:
    from engine.registry import get_game

    g = get_game("catchup")
    first = g.play(g.new({}), "E5").state
    rnd = random.Random(3)
    later = first
    for _ in range(14):
        later = g.play(later, rnd.choice(g.complete_moves(later, 300).moves)).state
    return [("1 stone", first, "D4 F6"), (f"{len(g.dump(later)['board'])} stones", later, g.complete_moves(later, 1).moves[0])]


def best(f: Callable[[], Any]) -> float:
    return min(timeit.repeat(f, number=5000, repeat=7)) / 5000 * 1e6


def steps(label: str, state: Any, move: str) -> None:
    import views
    from engine.registry import get_game
    from service.web import schemas

    g = get_game("catchup")
    sent = g.dump(state)
    verdict = g.play(state, move)
    after = g.dump(verdict.state)
    out = schemas.verdict_json(True, after, move=verdict.move, events=verdict.events)
    out["announcements"] = views.announcements(sent, verdict.events, after)
    figures = {
        "load": best(lambda: g.load(sent)),
        "play": best(lambda: g.play(state, move)),
        "dump": best(lambda: g.dump(verdict.state)),
        "announcements": best(lambda: views.announcements(sent, verdict.events, after)),
        "verdict_response.dump": best(lambda: schemas.verdict_response.dump(out)),
    }
    print(f"{label}, timeit µs: " + ", ".join(f"{name} {us:.1f}" for name, us in figures.items()))


def in_requests(label: str, state: Any, move: str, batches: int, size: int) -> None:
    from bench.bench_request_cpu import call
    from engine.registry import get_game
    from service import create_app
    from service.api import games

    app = create_app({})
    body = json.dumps({"state": get_game("catchup").dump(state), "move": move}).encode()
    took = {"view": 0.0, "body": 0.0}
    names = vars(games)  # the view's module: its json_body is timed in place
    view, read = app.view_functions["games.play"], names["json_body"]

    def timed_view(**kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return view(**kwargs)
        finally:
            took["view"] += time.process_time() - start

    def timed_read(schema: Any) -> Any:
        start = time.process_time()
        try:
            return read(schema)
        finally:
            took["body"] += time.process_time() - start

    app.view_functions["games.play"] = timed_view
    names["json_body"] = timed_read
    try:
        if not call(app, "/v1/games/catchup/play", body, "POST").startswith("200"):
            raise SystemExit("bench_play_parts: play did not answer 200")
        rows: dict[str, list[float]] = {"request": [], "view": [], "body": []}
        for _ in range(batches):
            took["view"] = took["body"] = 0.0
            start = time.process_time()
            for _ in range(size):
                call(app, "/v1/games/catchup/play", body, "POST")
            rows["request"].append((time.process_time() - start) / size * 1e6)
            rows["view"].append(took["view"] / size * 1e6)
            rows["body"].append(took["body"] / size * 1e6)
    finally:
        names["json_body"] = read
    m = {name: statistics.median(v) for name, v in rows.items()}
    print(
        f"{label}, CPU a request (medians of batches): request {m['request']:.1f} µs, view {m['view']:.1f} µs, "
        f"of which the body's reading {m['body']:.1f} µs: the play's own work {m['view'] - m['body']:.1f} µs"
    )


def main() -> None:
    from bench.bench_request_cpu import as_make_run_configures

    with as_make_run_configures("play-parts") as (batches, size):
        for label, state, move in positions():
            steps(label, state, move)
            in_requests(label, state, move, batches, size)
    print(f"load average at the end {load_average()}")


if __name__ == "__main__":
    main()
