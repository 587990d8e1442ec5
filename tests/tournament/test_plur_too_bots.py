"""The built-in bots of Plur and Too (RULES R-E1, R-E1a, R-E2) on the engine."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine.registry import GAMES, ROOMS
from umpire.bots.mcts import StepTree, search
from umpire.bots.moves import greedy_move, random_move
from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.tournament import run

CASES = [("plur", {"size": 3}), ("plur", {"size": 3, "pie": True}), ("too", {"size": 3})]


@pytest.mark.parametrize(("game", "options"), CASES)
def test_bots_play_legal_moves(game: str, options: dict[str, Any]) -> None:
    g = GAMES[game]
    evaluation = ROOMS[game].evaluation
    assert evaluation is not None
    rng = random.Random(5)
    model = StepTree(g)
    for _ in range(12):
        state = g.new(options)
        for _ in range(rng.randint(0, 14)):
            if g.is_over(state):
                break
            state = g.play(state, random_move(g, state, rng)).state
        if g.is_over(state):
            continue
        for move in (
            random_move(g, state, rng),
            greedy_move(g, evaluation, state, rng),
            search(model, state, 60, rng, max_iterations=20)[0],
        ):
            assert g.play(state, move).legal, move


@pytest.mark.parametrize(("game", "options"), CASES)
def test_a_tournament_on_the_engine(tmp_path: Path, game: str, options: dict[str, Any]) -> None:
    settings = Settings(game, options, ["random", "greedy", "mcts:0.01"], 2, seed=2)
    outcome = run(settings, LocalMatches(), tmp_path / "r.jsonl", progress=False)
    assert not outcome.failures
    assert len(outcome.lines) == 6
    for line in outcome.lines:
        assert line["reason"] == "end"
        assert "(R-E1)" in line["detail"] if game == "plur" else "(R-E2)" in line["detail"]
        replayed = GAMES[game].replay(line["options"], line["moves"])
        assert replayed.valid and GAMES[game].dump(replayed.state)["winner"] == line["winner"]
