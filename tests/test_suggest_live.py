"""A long search does not hold a real server (issue 23): gunicorn with one
gevent worker (tests/liveserver.py) answers health and play requests
promptly while that same worker waits for a 3-second ``mcts`` suggestion,
because the search runs in a searcher process (service/api/searcher.py) and the
request waits for it cooperatively.  Were the search run in the request,
the one worker's event loop would be held for the whole 3 seconds."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import liveserver

from engine.registry import ROOMS

LONG_S = 3.0
PROMPT_S = 0.5  # a health or play answer while the search runs: far under LONG_S


def post(base: str, path: str, body: dict[str, Any], timeout: float = 30) -> tuple[int, Any, float]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    start = time.monotonic()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read()), time.monotonic() - start


def get(base: str, path: str) -> tuple[int, float]:
    start = time.monotonic()
    with urllib.request.urlopen(base + path, timeout=10) as resp:
        resp.read()
        return resp.status, time.monotonic() - start


def test_requests_are_answered_promptly_while_a_long_search_runs(tmp_path: Path) -> None:
    name = next(iter(ROOMS))
    with liveserver.serve(tmp_path, WEB_CONCURRENCY="1", SUGGEST_MAX_BUDGET_S=str(LONG_S), SUGGEST_RATE_LIMIT="off") as base:
        state = post(base, f"/v1/games/{name}/new", {})[1]["state"]
        post(base, f"/v1/games/{name}/suggest", {"state": state, "bot": "random"})  # the searcher process starts
        found: list[tuple[int, Any, float]] = []
        long = {"state": state, "bot": "mcts", "budget_s": LONG_S}
        searching = threading.Thread(target=lambda: found.append(post(base, f"/v1/games/{name}/suggest", long)))
        searching.start()
        time.sleep(0.5)  # the search is under way
        waits = []
        while searching.is_alive() and len(waits) < 10:  # bounded: ten rounds at most
            status, took = get(base, "/v1/health")
            assert status == 200
            waits.append(took)
            status, verdict, took = post(base, f"/v1/games/{name}/play", {"state": state, "move": found_move(base, name, state)})
            assert status == 200 and verdict["legal"]
            waits.append(took)
            time.sleep(0.1)
        searching.join(LONG_S + 10)
        assert max(waits) < PROMPT_S, waits  # inline in the worker, the first probe waited 2.5 s (measured)
        assert len(waits) >= 4, "the search ended before the probes: nothing was shown"
        status, answer, took = found[0]
        assert status == 200 and answer["bot"] == "mcts"
        assert LONG_S * 0.9 <= answer["spent_s"] <= LONG_S + 0.5 and took >= LONG_S * 0.9


def found_move(base: str, name: str, state: dict[str, Any]) -> str:
    """A legal move, from the server's own list."""
    moves: list[str] = post(base, f"/v1/games/{name}/legal-moves", {"state": state, "limit": 1})[1]["moves"]
    return moves[0]
