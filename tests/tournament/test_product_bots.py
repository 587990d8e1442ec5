"""The built-in bots of Product (RULES R-E4, R-E4a, R-E4b) on the engine: the
greedy bot's evaluation (engine/games/product/bot.py), legal moves from every
bot in every variant, and a tournament whose results say what decided each game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine.games.product.bot import end_detail, evaluation, reach
from engine.registry import GAMES
from umpire.bots.mcts import StepTree, search
from umpire.bots.moves import greedy_move, random_move
from umpire.config import Settings
from umpire.local import LocalMatches
from umpire.tournament import run

GAME = GAMES["product"]
CASES = [
    ("product", {"size": 3}),
    ("product", {"size": 3, "variant": "bentley"}),
    ("product", {"size": 3, "variant": "abstractplay", "lone_group": "size"}),
    ("product", {"size": 2, "blocked": ["B2"]}),
]


def test_the_evaluation_looks_at_what_may_still_join() -> None:
    # Side 3. Black A1 and E3, far apart with empty cells between: one region, so black
    # may yet end as one group (1 x 0 now, and its hope 2 x 0). Walled off by a white
    # row C1-C5, black's A1 and E3 can never meet: two regions, a hope of 1 x 1.
    open_board = GAME.new({"size": 3, "position": {"A1": 0, "E3": 0}})
    walled = GAME.new({"size": 3, "position": {"A1": 0, "E3": 0, **{f"C{i}": 1 for i in range(1, 6)}}})
    assert (reach(open_board, 0), reach(walled, 0)) == (0, 1)
    assert evaluation(walled, 0)[0] > evaluation(open_board, 0)[0]
    assert reach(walled, 1) == 0  # white's five stones: one group, one region


@pytest.mark.parametrize(("game", "options"), CASES)
def test_bots_play_legal_moves(game: str, options: dict[str, Any]) -> None:
    rng = random.Random(5)
    model = StepTree(GAME)
    for _ in range(8):
        state = GAME.new(options)
        for _ in range(rng.randint(0, 8)):
            if GAME.is_over(state):
                break
            state = GAME.play(state, random_move(GAME, state, rng)).state
        if GAME.is_over(state):
            continue
        for move in (
            random_move(GAME, state, rng),
            greedy_move(GAME, evaluation, state, rng),
            search(model, state, 60, rng, max_iterations=20)[0],
        ):
            assert GAME.play(state, move).legal, move


@pytest.mark.parametrize(("game", "options"), CASES[:2])
def test_a_tournament_on_the_engine(tmp_path: Path, game: str, options: dict[str, Any]) -> None:
    settings = Settings(game, options, ["random", "greedy", "mcts:0.01"], 2, seed=2)
    outcome = run(settings, LocalMatches(), tmp_path / "r.jsonl", progress=False)
    assert not outcome.failures and len(outcome.lines) == 6
    for line in outcome.lines:
        assert line["reason"] == "end"
        assert "(R-E4)" in line["detail"] or "(R-E4a)" in line["detail"], line["detail"]
        replayed = GAME.replay(line["options"], line["moves"])
        assert replayed.valid and GAME.dump(replayed.state)["winner"] == line["winner"]


def test_the_end_detail_says_what_decided() -> None:
    final = {"end": "full", "winner": 0, "scores": [8, 8]}
    end = {"type": "end", "decided_by": "fewer_stones", "products": [8, 8], "factors": [[8, 1], [8, 1]], "stones": [9, 10]}
    assert end_detail(final, [end]) == (
        "board full: equal products 8 (8 x 1) against 8 (8 x 1), stones [9, 10]: fewer stones, player 0 wins (R-E4a)"
    )
    end = {"type": "end", "decided_by": "products", "products": [12, 11], "factors": [[4, 3], [11, 1]]}
    assert (
        end_detail({**final, "scores": [12, 11]}, [end])
        == "board full: products 12 (4 x 3) against 11 (11 x 1): player 0 wins (R-E4)"
    )
