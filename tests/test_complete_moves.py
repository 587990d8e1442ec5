"""Every complete legal move (``Game.complete_moves``), for every game and option set.

A client that is given the complete moves never has to guess how steps combine
(issue 19: a bot that guessed lost Catchup ``bolanos`` games by R-C3's
``largest_group_grew`` and Crystal ``rocks`` games by R-X5's ``rock_over_edge``).
So, in random positions of every registered game (tests/gamekit.py):

* every listed move is accepted by ``play`` and written as ``play`` writes it
  (the canonical notation), each once;
* each is reachable step by step through ``next_steps``, ending there;
* ``limit`` cuts the same list, and ``truncated`` says so exactly;

and, by brute force on small boards, every move ``play`` accepts is listed:
Catchup's sets of cells (R-C1, R-C3 with bolanos' condition), Bug's grow and
eat chains (R-B3, R-B4, R-B8), Crystal's draft words and whole turns of shifts
(R-X1, R-X2, R-X5: barred files, rocks, color-convertor, shift-plus), Plur's
cells and ``swap`` (R-E1, R-E1a), Too's colour and cell (R-E2).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from gamekit import config_id, option_configs, random_game

from engine.game import Game
from engine.games.crystal import grid as cg
from engine.registry import GAMES

CONFIGS = option_configs()
LIMIT = 3000  # complete moves checked per position (Crystal's turns run to millions)


def reach_step_by_step(game: Game[Any, Any], state: Any, move: str) -> None:
    prefix: list[str] = []
    for step in game.split_move(move):
        found = game.next_steps(state, prefix)
        assert step in found.steps, (move, prefix, found.steps[:10])
        prefix.append(step)
    end = game.next_steps(state, prefix)
    assert end.complete and end.move == move, (move, end)


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[config_id(*c) for c in CONFIGS])
def test_every_listed_complete_move_is_legal(name: str, options: dict[str, Any]) -> None:
    game = GAMES[name]
    rnd = random.Random(config_id(name, options))
    for plies in (0, 1, 2, 3, 5, 8, 13, 21, 40):
        _, state, _ = random_game(game, options, plies, rnd)
        listed = game.complete_moves(state, LIMIT)
        assert listed.complete
        if game.is_over(state):
            assert listed.moves == [] and not listed.truncated
            continue
        moves = listed.moves
        assert moves, "an ongoing game has a legal move"
        assert len(set(moves)) == len(moves), "a move listed twice"
        for move in moves if len(moves) <= 400 else rnd.sample(moves, 400):
            verdict = game.play(state, move)
            assert verdict.legal, (move, verdict.error)
            assert verdict.move == move, "listed in the notation play writes"
        for move in rnd.sample(moves, min(25, len(moves))):
            reach_step_by_step(game, state, move)
        few = game.complete_moves(state, 7)
        assert few.moves == moves[:7] and few.truncated == (len(moves) > 7)
        assert listed.truncated == (len(moves) == LIMIT and len(game.complete_moves(state, LIMIT + 1).moves) > LIMIT)


def accepted(game: Game[Any, Any], state: Any, candidates: Any) -> set[str]:
    out = set()
    for text in candidates:
        verdict = game.play(state, text)
        if verdict.legal:
            assert verdict.move is not None
            out.add(verdict.move)
    return out


def positions(name: str, options: dict[str, Any], count: int, seed: int) -> list[Any]:
    game = GAMES[name]
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        _, state, _ = random_game(game, options, rnd.randint(0, 30), rnd)
        if not game.is_over(state):
            out.append(state)
    return out


@pytest.mark.parametrize("variant", ["standard", "mindsports", "bolanos"])
def test_catchup_lists_every_set_of_cells_play_accepts(variant: str) -> None:
    """R-C1: 1 to max_stones distinct empty cells, in any order; R-C3 bolanos:
    two stones only if the largest group on the board keeps its size."""
    game = GAMES["catchup"]
    for state in positions("catchup", {"size": 3, "variant": variant}, 8, seed=3):
        cells = state.board.names(state.board.mask)
        tries = itertools.chain(
            (" ".join(seq) for k in (1, 2, 3) for seq in itertools.product(cells, repeat=k)),
            (" ".join(seq) for seq in itertools.combinations(cells, 4)),  # never more than 3 (R-C1)
        )
        # a turn is a set: play writes its cells in reading order whatever order they came in ("D3 D2" is
        # "D2 D3"), the notation the list writes, so a client finds play's move in the list as it is
        assert accepted(game, state, tries) == set(game.complete_moves(state).moves)


def test_catchup_bolanos_refuses_pairs_that_grow_the_largest_group() -> None:
    # R-C3 bolanos; player 1 holds the largest group (B2-B3), so player 0's pair must not reach 3
    game = GAMES["catchup"]
    state = game.new({"size": 3, "variant": "bolanos", "position": {"C3": 0, "B2": 1, "B3": 1}, "to_move": 0})
    moves = game.complete_moves(state).moves
    assert "C2 C4" not in moves and not game.play(state, "C2 C4").legal  # C2-C3-C4: a group of 3
    assert "A1 E3" in moves and game.play(state, "A1 E3").legal


@pytest.mark.parametrize(
    "options",
    [
        {"size": 2},
        {"size": 2, "eaters": "all"},
        {"size": 3},
        {"size": 3, "eaters": "all"},
        {"variant": "green-meadow"},
    ],
)
def test_bug_lists_every_grow_and_eat_chain_play_accepts(options: dict[str, Any]) -> None:
    """R-B3 grows, R-B4 every eat due with its bonus cell, R-B8 eaters: all."""
    game = GAMES["bug"]
    small = options.get("size") == 2
    eats = 0
    for state in positions("bug", options, 12 if small else 4, seed=5):
        cells = state.board.names(state.board.mask)
        longest = 4 if small else 2
        tries = (" ".join(seq) for k in range(1, longest + 1) for seq in itertools.product(cells, repeat=k))
        listed = set(game.complete_moves(state).moves)
        assert accepted(game, state, tries) == {m for m in listed if len(m.split()) <= longest}
        eats += sum(1 for m in listed if len(m.split()) > 1)
    if small:
        assert eats, "no position with an eat: the brute force checked only grows"


def test_bug_eat_chains_in_full() -> None:
    """R-B4: a grow that brings a congruent bug next to the active bug eats it,
    and the bonus cell is part of the move; every chain is listed."""
    game = GAMES["bug"]
    state = game.new({"size": 2, "position": {"A1": 0, "C1": 1}, "to_move": 0})
    cells = state.board.names(state.board.mask)
    tries = (" ".join(seq) for k in (1, 2, 3) for seq in itertools.product(cells, repeat=k))
    listed = game.complete_moves(state).moves
    assert accepted(game, state, tries) == set(listed)
    assert any(len(m.split()) == 2 for m in listed), listed


SHIFTS = [cg.shift_text(f, sign, amount) for f in range(12) for sign in (-1, 1) for amount in range(1, 6)]


@pytest.mark.parametrize(
    "anomalies", [["shift-plus"], ["rocks", "shift-plus"], ["color-convertor", "shift-plus"]], ids=lambda a: "+".join(a)
)
def test_crystal_lists_every_turn_play_accepts(anomalies: list[str]) -> None:
    """Shift-plus turns of two shifts (R-X5), so that every pair of the 120 shifts
    can be tried: barred files (R-X2), rocks carried over the edge (R-X5, on the
    grid as the first shift left it), a conversion first (color-convertor)."""
    game = GAMES["crystal"]
    rnd = random.Random(7)
    state = game.new({"seed": "complete", "anomalies": anomalies})
    checked = 0
    while checked < 2:
        listed = game.complete_moves(state)
        if state.phase != "shift":
            words = ["first", "second", *cg.COLOURS]
            tries = [*words, *(f"{a} {b}" for a in cg.COLOURS for b in cg.COLOURS)]
            assert accepted(game, state, tries) == set(listed.moves)  # R-X1: the draft
        elif state.ply >= 5:  # the second turn on: files barred by the opponent's shifts
            assert game.shifts_due(state) == 2 and state.barred
            heads = [""]
            if "color-convertor" in anomalies:
                heads += [f"convert {cg.cell_name(x)}; " for x in cg.CELLS[::12]]
            tries = (head + ", ".join(seq) for head in heads for seq in itertools.product(SHIFTS, repeat=2))
            got = accepted(game, state, tries)
            assert got == {m for m in listed.moves if not m.startswith("convert") or m.split(";")[0] + "; " in heads}
            checked += 1
        state = game.play(state, rnd.choice(listed.moves)).state


def test_crystal_draft_pick_is_one_move_of_two_steps() -> None:
    """R-X1: the second picker names two colours: ``blue green`` is one complete
    move, built in two steps (either order), listed once."""
    game = GAMES["crystal"]
    state = game.play(game.play(game.new({"seed": "draft"}), "first").state, "red").state
    assert game.complete_moves(state).moves == ["blue green", "blue yellow", "green yellow"]
    assert game.split_move("blue green") == ["blue", "green"]
    reach_step_by_step(game, state, "blue green")


def test_crystal_turns_are_truncated_at_the_limit() -> None:
    game = GAMES["crystal"]
    state = game.new({"seed": "x", "colors": [["red", "blue"], ["green", "yellow"]], "first": 0})
    listed = game.complete_moves(state, 1000)
    assert listed.truncated and len(listed.moves) == 1000  # 120 ** 3 turns of three shifts
    assert listed.moves[0] == "A up 1, A up 1, A up 1"
    assert listed.info["shifts_due"] == 3


@pytest.mark.parametrize("pie", [False, True])
def test_plur_lists_cells_and_swap(pie: bool) -> None:
    """R-E1: one stone on an empty cell; R-E1a: ``swap`` once, when the pie rule allows."""
    game = GAMES["plur"]
    opened = game.play(game.new({"size": 3, "pie": pie}), "C3").state
    for state in [*positions("plur", {"size": 3, "pie": pie}, 8, seed=11), opened]:
        cells = state.board.names(state.board.mask)
        tries = [*cells, "swap", *(f"{a} {b}" for a in cells for b in cells)]
        assert accepted(game, state, tries) == set(game.complete_moves(state).moves)
    assert ("swap" in game.complete_moves(opened).moves) == pie


def test_too_lists_colour_and_cell() -> None:
    """R-E2: one stone of either colour on an empty cell."""
    game = GAMES["too"]
    for state in positions("too", {"size": 3}, 8, seed=13):
        cells = state.board.names(state.board.mask)
        tries = [f"{c} {x}" for c in "BWX" for x in cells] + [f"B {a}, W {b}" for a in cells[:4] for b in cells[:4]]
        assert accepted(game, state, tries) == set(game.complete_moves(state).moves)
