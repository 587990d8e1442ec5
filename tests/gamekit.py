"""Helpers shared by the game tests: one game's stateless HTTP endpoints through
a test client, and a breadth-first group search to check the engine against.

Imported by its name (``from gamekit import ...``), as ``openapi_check`` and
``tests/matches/matchkit.py`` are: pytest puts ``tests/`` on the path.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from flask.testing import FlaskClient

from engine.game import Game
from engine.hexboard import HexBoard, iter_bits
from engine.registry import GAMES

Json = dict[str, Any]


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


def option_samples(game: Game[Any, Any]) -> list[Json]:
    """Option sets that cover a game's declared options, read from its
    declarations alone (so a new game is covered without editing a test):
    the defaults; each other word of each choice; each integer at its least;
    each boolean flipped; each list of choices whole.  Set-up options are
    left out (they need a position)."""
    out: list[Json] = [{}]
    for opt in game.options:
        if opt.setup:
            continue
        if opt.type == "string" and opt.choices:
            out += [{opt.name: word} for word in opt.choices if word != opt.default]
        elif opt.type == "integer" and opt.min is not None and opt.min != opt.default:
            out.append({opt.name: opt.min})
        elif opt.type == "boolean":
            out.append({opt.name: not opt.default})
        elif opt.type == "array" and opt.choices:
            out.append({opt.name: list(opt.choices)})
    return out


def option_configs() -> list[tuple[str, Json]]:
    """Every registered game with each of its :func:`option_samples`."""
    return [(name, options) for name, game in GAMES.items() for options in option_samples(game)]


def config_id(name: str, options: Json) -> str:
    return "-".join([name, *(f"{k}={v if not isinstance(v, list) else len(v)}" for k, v in options.items())])


def seeded(game: Game[Any, Any], options: Json, rnd: random.Random) -> Json:
    """``options``, plus a seed from ``rnd`` for a game that deals from one
    (Crystal's grid, R-X1), so that random games are reproducible."""
    if any(opt.name == "seed" for opt in game.options) and "seed" not in options:
        return {**options, "seed": f"kit-{rnd.randrange(10**6)}"}
    return options


def random_move(game: Game[Any, Any], state: Any, rnd: random.Random) -> str:
    """A uniformly built legal move: each step chosen from ``next_steps``, the
    move ended at random once it may end (so turn sizes vary)."""
    prefix: list[str] = []
    while True:
        steps = game.next_steps(state, prefix)
        if steps.complete and (not steps.steps or rnd.random() < 0.5):
            assert steps.move is not None
            return steps.move
        prefix.append(rnd.choice(steps.steps))


def random_game(game: Game[Any, Any], options: Json, plies: int, rnd: random.Random) -> tuple[Json, Any, list[str]]:
    """``plies`` random legal moves from ``new(options)`` (fewer if the game
    ends): the options that replay it, the state, and the moves."""
    options = seeded(game, options, rnd)
    state = game.new(options)
    options = game.replay_options(options, state)
    moves = []
    for _ in range(plies):
        if game.is_over(state):
            break
        move = random_move(game, state, rnd)
        verdict = game.play(state, move)
        assert verdict.legal, (move, verdict.error)
        moves.append(verdict.move)
        state = verdict.state
    return options, state, moves
