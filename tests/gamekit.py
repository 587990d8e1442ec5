"""Helpers shared by the game tests: one game's stateless HTTP endpoints through
a test client, and a breadth-first group search to check the engine against.

Imported by its name (``from gamekit import ...``), as ``openapi_check`` and
``tests/matches/matchkit.py`` are: pytest puts ``tests/`` on the path.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from flask.testing import FlaskClient

from engine.hexboard import HexBoard, iter_bits


class GameApi:
    """``/v1/games/<game>/...``; every call asserts the answer's status (200 unless told)."""

    def __init__(self, game: str) -> None:
        self.game = game

    def post(self, client: FlaskClient, what: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        resp = client.post(f"/v1/games/{self.game}/{what}", json=body)
        assert resp.status_code == status, resp.get_data(as_text=True)
        out: dict[str, Any] = resp.get_json()
        return out

    def new(self, client: FlaskClient, **options: Any) -> dict[str, Any]:
        state: dict[str, Any] = self.post(client, "new", {"options": options})["state"]
        return state

    def play(self, client: FlaskClient, state: dict[str, Any], move: Any) -> dict[str, Any]:
        return self.post(client, "play", {"state": state, "move": move})


def bfs_sizes(board: HexBoard, stones: int) -> list[int]:
    """Group sizes, largest first, by a textbook search over the R-H2 neighbour
    lists: independent of engine/groups.py's bit-shift dilation."""
    seen: set[int] = set()
    sizes = []
    for start in iter_bits(stones):
        if start in seen:
            continue
        seen.add(start)
        queue, size = deque([start]), 0
        while queue:
            b = queue.popleft()
            size += 1
            for c in iter_bits(board.neighbours[b] & stones):
                if c not in seen:
                    seen.add(c)
                    queue.append(c)
        sizes.append(size)
    return sorted(sizes, reverse=True)
