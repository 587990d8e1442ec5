"""Moves built step by step (``Game.next_steps``), for every game and option set.

A bot or a front end builds a move one step at a time: Catchup's cells, Bug's
grow and bonus cells, Crystal's conversion and shifts (each on the grid as the
shifts before it left it), Plur's cell or ``swap``, Too's ``B D4``.  In random
positions of every registered game, reached by random legal moves:

* every move the legal-move list names is reachable step by step;
* every prefix the walk reaches that may end is a legal move, and plays as one;
* every step not offered is refused, blaming exactly that step;
* a prefix that may not end has somewhere to go.

The games and option sets come from the games' declarations
(tests/gamekit.py), so a new game is covered without editing this file.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from gamekit import config_id, option_configs, random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import MoveError
from engine.game import Game
from engine.registry import GAMES

CONFIGS = option_configs()
BRANCHES = 6  # steps followed from each prefix (the rest are checked as offered, not walked)


def walk(game: Game[Any, Any], state: Any, prefix: list[str], universe: set[str], rnd: random.Random, seen: list[str]) -> None:
    steps = game.next_steps(state, prefix)
    assert len(steps.prefix) == len(prefix)
    if steps.complete:
        assert steps.move is not None
        verdict = game.play(state, steps.move)
        assert verdict.legal, (steps.move, verdict.error)
        assert verdict.move == steps.move
        seen.append(steps.move)
    else:
        assert steps.steps, f"{prefix} can neither end nor go on"
        assert steps.move is None
    offered = set(steps.steps)
    universe |= offered
    for wrong in sorted(universe - offered)[:20]:
        with pytest.raises(MoveError) as e:
            game.next_steps(state, [*steps.prefix, wrong])
        assert e.value.step == len(prefix), (prefix, wrong, e.value)
    for step in rnd.sample(steps.steps, min(BRANCHES, len(steps.steps))):
        walk(game, state, [*steps.prefix, step], universe, rnd, seen)


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[config_id(*c) for c in CONFIGS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.one_of(st.integers(0, 5), st.integers(6, 60)))
def test_moves_built_step_by_step(name: str, options: dict[str, Any], seed: int, plies: int) -> None:
    game = GAMES[name]
    rnd = random.Random(seed)
    _, state, _ = random_game(game, options, plies, rnd)
    if game.is_over(state):
        with pytest.raises(MoveError) as e:
            game.next_steps(state, [])
        assert e.value.code == "game_over"
        return
    seen: list[str] = []
    walk(game, state, [], set(), rnd, seen)
    assert seen, "no complete move was reached"
    # every listed legal move is reachable step by step; each listed whole move completes
    for move in game.legal_moves(state).moves:
        prefix: list[str] = []
        for step in game.split_move(move):
            assert step in game.next_steps(state, prefix).steps, (move, prefix)
            prefix.append(step)
        end = game.next_steps(state, prefix)
        if end.complete:
            assert game.play(state, move).legal


def test_catchup_turn_sizes_follow_the_bonus() -> None:
    # R-C1, R-C3: the first turn ends after one stone; a bonus allows a third
    game = GAMES["catchup"]
    state = game.new({"size": 3})
    first = game.next_steps(state, ["c3"])
    assert (first.prefix, first.complete, first.steps, first.move) == (["C3"], True, [], "C3")
    state = game.play(game.play(state, "C3").state, "B2 B3").state
    assert state.bonus
    third = game.next_steps(state, ["A1", "A2"])
    assert third.complete and "A3" in third.steps and "A1" not in third.steps
    assert game.next_steps(state, ["A1", "A2", "A3"]).steps == []


def test_crystal_shifts_are_offered_on_the_grid_as_shifted_so_far() -> None:
    """R-X5 rocks: a shift that carries a rock over the edge is never offered,
    even where it becomes one only after an earlier shift of the turn moved the rock."""
    game = GAMES["crystal"]
    # rocks (#) at E3, D4, A5, E6; eight crystals of each colour (R-X5 rocks: one fewer of each)
    grid = ["RBGYRB", "GYRBGY", "RBGY#B", "GYR#GY", "#BGYRB", "GYRB#R"]
    state = game.new({"anomalies": ["rocks"], "grid": grid, "colors": [["red", "green"], ["blue", "yellow"]], "first": 0})
    first = game.next_steps(state, [])
    assert "A down 1" in first.steps  # the rock at A5 moves to A6: still on the board
    after = game.next_steps(state, ["A down 1"])
    assert "A down 1" not in after.steps  # now at A6, one more step down would wrap it (R-X5)
    assert "A up 1" in after.steps
    with pytest.raises(MoveError) as e:
        game.next_steps(state, ["A down 1", "A down 1"])
    assert (e.value.code, e.value.step) == ("rock_over_edge", 1)
    turn = game.next_steps(state, ["A down 1", "A up 1", "B up 2"])
    assert turn.complete and turn.move == "A down 1, A up 1, B up 2" and turn.steps == []


def test_a_draft_pick_of_two_colours_in_either_order() -> None:
    game = GAMES["crystal"]
    state = game.play(game.play(game.new({"seed": "steps"}), "first").state, "red").state
    assert game.next_steps(state, []).steps == ["blue", "green", "yellow"]
    steps = game.next_steps(state, ["yellow"])
    assert (steps.steps, steps.complete) == (["blue", "green"], False)
    done = game.next_steps(state, ["yellow", "blue"])
    assert done.complete and done.move == "blue yellow"
    with pytest.raises(MoveError) as e:
        game.next_steps(state, ["red"])
    assert (e.value.code, e.value.step) == ("not_in_draft", 0)
