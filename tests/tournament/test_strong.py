"""The ``strong`` bot (umpire/bots/strong.py, issue 37 "A computer worth
playing") on the engine alone: it plays only legal moves in many random
positions of every game and variant, boards of side 10 included; it finds
the move that wins (or avoids the move that loses) in a shown position of
each game; it stops on its deadline; and it keeps its tree from one move to
the next.  Searches here are counted in iterations, not seconds, so that a
busy machine plays the same games; the clock has a test of its own.

Boards are drawn as the rules' rows (R-H1): ``X`` player 0's stones (black),
``O`` player 1's (white), ``.`` empty.
"""

from __future__ import annotations

import random
import time
import zlib
from functools import cache
from typing import Any

import pytest
from test_bots import VARIANTS, positions

from engine.game import Game
from engine.hexboard import hexhex
from engine.registry import ROOMS, get_game
from umpire.bots import BotFactory, Turn
from umpire.bots.builtin import StrongBot
from umpire.bots.moves import random_move
from umpire.bots.strong import WHOLE_LIST, StrongSearch, _after_listed, _steps_of, node_count

ITERATIONS = 40  # per move in the legality test: every part of a search (expansion, completion, proofs) runs
LARGE = [("catchup", {"size": 10}), ("plur", {"size": 10}), ("too", {"size": 10}), ("product", {"size": 10})]


def search(name: str, state: Any, iterations: int) -> str:
    guide = ROOMS[name].guide
    assert guide is not None
    return StrongSearch(get_game(name), guide).search(state, time.perf_counter() + 600, iterations=iterations)


@pytest.mark.parametrize(
    ("game", "options"),
    [*VARIANTS, *LARGE, ("product", {"variant": "bentley"}), ("product", {"lone_group": "size"})],
    ids=lambda v: str(v) if isinstance(v, str) else "-".join(f"{k}={v}" for k, v in v.items()) or "default",
)
def test_strong_plays_only_legal_moves(game: str, options: dict[str, Any]) -> None:
    g = get_game(game)
    count = 3 if options.get("size") == 10 else 8
    for state in positions(game, options, count, seed=zlib.crc32(repr((game, options)).encode())):
        move = search(game, state, ITERATIONS)
        verdict = g.play(state, move)
        assert verdict.legal, f"strong played {move!r} in {g.dump(state)}: {verdict.error}"


def test_strong_plays_whole_games_of_legal_moves() -> None:
    """A game to its end against random, in every game: the tree kept between
    moves, each of its moves judged by the engine."""
    for name in ROOMS:
        g = get_game(name)
        options = {"seed": "strong"} if any(o.name == "seed" for o in g.options) else {"size": 3}
        if name == "bug":
            options = {}
        bot = BotFactory("strong:30", name).make(seed=1)
        assert isinstance(bot, StrongBot)
        bot.iterations = 60
        rng = random.Random(2)
        state = g.new(options)
        while not g.is_over(state):
            if state.to_move == 0:
                move = bot.choose(Turn(name, options, 0, g.dump(state), 0, "m")).move
                assert move is not None
            else:
                move = random_move(g, state, rng)
            verdict = g.play(state, move)
            assert verdict.legal, (name, move, verdict.error)
            state = verdict.state


# -- a won or lost position per game, shown --------------------------------------------


def setup(name: str, diagram: str, to_move: int) -> Any:
    """A position of a hex game from its diagram (side 3) with ``to_move`` to
    play (an option where the game has it, else what the stones say)."""
    g = get_game(name)
    board = hexhex(3)
    marks, _ = board.parse_diagram(diagram, {"X": 0, "O": 1})
    options: dict[str, Any] = {"size": 3, "position": {board.name(b): v for b, v in marks.items()}}
    if any(o.name == "to_move" for o in g.options):
        options["to_move"] = to_move
    state = g.new(options)
    assert state.to_move == to_move
    return state


def outcome(g: Game[Any, Any], state: Any, player: int) -> float:
    """``player``'s result with best play from ``state`` to the end (a few empty cells: searched through)."""
    if g.is_over(state):
        return 0.5 if state.winner is None else float(state.winner == player)
    results = [outcome(g, g.play(state, m).state, player) for m in g.complete_moves(state).moves]
    return max(results) if state.to_move == player else min(results)


@cache
def winning(name: str, diagram: str, to_move: int) -> tuple[Any, frozenset[str]]:
    """The position and its winning moves, by searching every line to the end."""
    g = get_game(name)
    state = setup(name, diagram, to_move)
    return state, frozenset(m for m in g.complete_moves(state).moves if outcome(g, g.play(state, m).state, to_move) == 1)


# Catchup, X to move with two stones (no bonus), B3 and E3 empty; scores 3 to 5 (R-C2).
# X's groups: A1 B1 B2 (3), C4 C5 D3 (3), D1 E1 (2); O's: C1 C2 C3 D2 E2 (5), A2 A3 B4 (3), D4.
# B3 and E3 both (R-C1) join A1 B1 B2 to C4 C5 D3 and fill the board: 8 beats 5 (R-C4).
# One stone only, and O fills the other cell: with E3, O's D4 joins its five (7); 7 to 7,
# then 2 to 3 (R-C4): O wins.
CATCHUP_FILL_TO_WIN = """
  X O O
 X X . O
O O O X X
 X O X O
  X O .
"""

# Plur, X to move, A3, C4 and D2 empty (R-E1: the three largest groups of the full board).
PLUR_LAST_CELLS = """
  O O .
 O O X X
X X O . O
 O . O X
  X X X
"""

# Too, O to move, A3 and C4 empty (R-E2: player 0 wins iff black's second-largest
# group is larger than white's; X is black).
TOO_LAST_CELLS = """
  O O .
 O O O X
X O X . O
 O X O O
  O X X
"""

# Product, O (white) to move, two stones due (R-E4a), B3 and D2 empty (R-E4:
# the two largest groups of each colour multiplied; X is black).
PRODUCT_LAST_TURN = """
  X O X
 X O . O
X X X O O
 X . O X
  X X O
"""


@pytest.mark.parametrize(
    ("name", "diagram", "to_move"),
    [
        ("catchup", CATCHUP_FILL_TO_WIN, 0),
        ("plur", PLUR_LAST_CELLS, 0),
        ("too", TOO_LAST_CELLS, 1),
        ("product", PRODUCT_LAST_TURN, 1),
    ],
    ids=["catchup", "plur", "too", "product"],
)
def test_strong_finds_the_winning_move(name: str, diagram: str, to_move: int) -> None:
    state, wins = winning(name, diagram, to_move)
    moves = get_game(name).complete_moves(state).moves
    assert wins and len(wins) < len(moves) / 2, "the position shows a choice that matters"
    assert search(name, state, 300) in wins


# Bug, O to move.  Every grow of O but one leaves X no legal grow (R-B3), and the
# player to move who cannot grow wins (R-B6): X.  The one is E2: a new bug of one
# beside X's lone E3, congruent to it, so it eats E3 and grows onto E1 (R-B4:
# "E2 E1"), which frees X's grows.
BUG_ONE_WAY_ON = """
  X . .
 X . X .
X O X O X
 . X . O
  . . X
"""


def test_strong_avoids_the_move_that_hands_over_a_bug_game() -> None:
    g = get_game("bug")
    state = setup("bug", BUG_ONE_WAY_ON, 1)
    moves = g.complete_moves(state).moves
    losing = {m for m in moves if g.play(state, m).state.winner == 0}
    assert len(losing) == len(moves) - 1, "all moves but one hand the game over (R-B6)"
    move = search("bug", state, 200)
    assert move not in losing and not g.is_over(g.play(state, move).state)


# Crystal Connector, player 1 (blue and yellow) to move and ending the round at
# 232 to 213 (threshold 250, R-X4); columns C and F and row 3 barred (R-X2).
# After a turn both players add the product of their colours' largest groups
# (R-X3); player 1 wins only with a turn that leaves it ahead at or past 250:
# one random turn in two thousand does (measured), and most end the game with
# player 0 ahead.
CRYSTAL_LAST_TURN = {
    "game": "crystal", "version": 1, "options": {"anomalies": []}, "status": "ongoing", "to_move": 1, "ply": 25,
    "winner": None, "end": None, "scores": [232, 213],
    "board": ["RYYRRB", "YBGBRG", "RGYYYG", "YGGYBG", "YBRRBR", "BGRBBG"],
    "phase": "shift", "colors": [["red", "green"], ["blue", "yellow"]], "first": 0, "threshold": 250,
    "barred": ["C", "F", "3"], "shifts_due": 3, "turns": [11, 10], "seed": "strong-0",
}  # fmt: skip


def test_strong_finds_the_winning_crystal_turn() -> None:
    g = get_game("crystal")
    state = g.load(CRYSTAL_LAST_TURN)
    after = g.play(state, search("crystal", state, 300)).state
    assert g.is_over(after) and after.winner == 1 and after.scores[1] >= 250


# -- the clock and the tree ------------------------------------------------------------


class Readings:
    """A clock that moves 3 units each time it is read."""

    def __init__(self) -> None:
        self.last = -3

    def __call__(self) -> int:
        self.last += 3
        return self.last


def test_strong_stops_at_its_deadline_on_a_counted_clock() -> None:
    """The clock is read after each descent, and a descent is begun only if it
    should end by the deadline: on a clock that moves 3 units a descent, a
    search with 100 units ends at 99 (33 descents), never past its deadline."""
    for name in ROOMS:
        g = get_game(name)
        options = {"seed": "clock"} if any(o.name == "seed" for o in g.options) else {}
        readings = Readings()
        tree = StrongSearch(g, ROOMS[name].guide)  # type: ignore[arg-type]
        move = tree.search(g.new(options), 100, clock=readings)
        assert tree.iterations == 33 and readings.last == 99, (name, tree.iterations, readings.last)
        assert g.play(g.new(options), move).legal


def test_strong_keeps_the_subtree_of_the_moves_played() -> None:
    """After its move, the bot keeps the node its move led to; when the opponent
    answers with a move the tree had searched, the next search starts from that
    node, its visits and nodes carried over."""
    name = "plur"
    g = get_game(name)
    bot = BotFactory("strong", name).make(seed=1)
    assert isinstance(bot, StrongBot)
    tree = bot.tree
    state = g.new({"size": 4})
    tree.search(state, time.perf_counter() + 600, iterations=400)
    mine = tree.kept
    assert mine is not None and mine.visits > 1
    played = g.play(state, mine.move or "").state
    reply = max(range(len(mine.actions)), key=lambda i: mine.n[i])
    answer = mine.children[reply]
    assert answer is not None and answer.move is not None
    carried, nodes = answer.visits, node_count(answer)
    tree.search(g.play(played, answer.move).state, time.perf_counter() + 600, iterations=50)
    assert tree.root is answer and tree.reused == carried - 1 > 0
    assert node_count(answer) >= nodes + 50 - 1  # the old subtree, grown by this search


def test_a_move_the_tree_never_searched_starts_a_new_tree() -> None:
    g = get_game("plur")
    tree = StrongSearch(g, ROOMS["plur"].guide)  # type: ignore[arg-type]
    state = g.new({"size": 4})
    move = tree.search(state, time.perf_counter() + 600, iterations=30)
    played = g.play(state, move).state
    mine = tree.kept
    assert mine is not None
    tried = {c.move for c in mine.children if c is not None}
    unsearched = next(m for m in g.complete_moves(played).moves if m not in tried)
    tree.search(g.play(played, unsearched).state, time.perf_counter() + 600, iterations=10)
    assert tree.reused == 0 and tree.root is not None and tree.root.visits == 11


def test_steps_read_from_the_listed_moves_are_the_games_next_steps() -> None:
    """Where a game lists its whole moves, a node reads its steps from that list
    rather than asking ``next_steps`` (which may list them all again): along
    every listed move, in every game and variant (Bug's grows with their bonus
    cells and Product's two stones among them), each step read is one of the
    game's next steps, and where the list says the move may end the game
    agrees, with the same move.  (Fewer steps may be read than the game
    takes: Product lists a turn of two stones in one order of the two.)"""
    several: set[str] = set()  # games whose listed moves had several steps
    for game, options in [*VARIANTS, ("product", {"size": 3}), ("product", {"size": 3, "variant": "bentley"})]:
        g = get_game(game)
        for state in positions(game, options, 6, seed=zlib.crc32(repr(("steps", game, options)).encode())):
            listed = g.legal_moves(state, WHOLE_LIST)
            if not listed.complete or listed.truncated:
                continue
            listing = [g.split_move(m) for m in listed.moves]
            for move in listing:
                found, rest = _steps_of(g, listing, []), listing
                for step in move:
                    want = g.next_steps(state, found.prefix)
                    assert found.prefix == want.prefix and found.steps, (g.dump(state), found.prefix)
                    assert set(found.steps) <= set(want.steps), (g.dump(state), found.prefix)
                    assert not found.complete or (want.complete and found.move == want.move), (g.dump(state), found.prefix)
                    done, after, rest_after = _after_listed(g, rest, found, step)
                    if done is not None:
                        assert done == g.join_steps(move) and g.play(state, done).legal
                        break
                    assert after is not None and rest_after is not None
                    found, rest = after, rest_after
                if len(move) > 1:
                    several.add(game)
    assert {"bug", "product"} <= several, several
