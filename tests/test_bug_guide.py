"""Bug's guide for the ``strong`` bot (engine/games/bug/bot.py, issue 37):
its playouts and its priors play moves on the bit sets, without the engine's
list of every eat chain, so they are held here to the engine's own rules: a
move they make is a legal move (R-B3 to R-B5, R-B8) that :meth:`Bug.apply`
plays to the same position, its end (R-B6) included."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.games.bug import bot
from engine.games.bug.rules import Bug, BugState, Eat

GAME = Bug()
OPTIONS: list[dict[str, Any]] = [{}, {"eaters": "all"}, {"size": 4}, {"variant": "green-meadow"}]


def same(a: BugState, b: BugState) -> bool:
    """Equal positions, their bugs (derived, not part of ``==``) as sets."""
    return a == b and all(set(x) == set(y) for x, y in zip(a.bugs, b.bugs, strict=True))


def random_positions(options: dict[str, Any], games: int, seed: int) -> list[BugState]:
    """Every ongoing position of ``games`` random games (the engine's own moves)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = GAME.new(options)
        while state.to_move is not None:
            out.append(state)
            state = GAME.apply(state, rng.choice(GAME.move_cells(state)))[0]
    return out


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_a_playout_move_is_a_legal_move_the_engine_plays_to_the_same_position(options: dict[str, Any]) -> None:
    rng = random.Random(7)
    eats = 0
    for state in random_positions(options, 12, seed=3):
        if state.phase != "grow":
            continue
        legal = set(GAME.move_cells(state))
        for _ in range(3):
            picks = random.Random(rng.random())

            def pick(bits: int, picks: random.Random = picks) -> int:
                return bot._nth_bit(bits, picks.randrange(bits.bit_count()))

            def pick_eat(due: list[Eat], pick: Any = pick, picks: random.Random = picks) -> tuple[Eat, int]:
                eat = picks.choice(due)
                return eat, pick(eat.bonus)

            after, cells = bot._grown(state, pick, pick_eat)
            assert cells in legal, (GAME.dump(state), cells)  # R-B5: the grow, then one bonus cell per eat
            assert same(after, GAME.apply(state, cells)[0]), (GAME.dump(state), cells)
            eats += len(cells) > 1
    assert eats, "the positions include eats (R-B4)"


def test_the_priors_complete_an_eat_with_a_legal_move() -> None:
    """A grow that must eat ranks by a completion that is one of its legal moves,
    with the bonus cells already chosen kept (R-B4, R-B5)."""
    checked = 0
    for state in random_positions({}, 12, seed=5):
        moves = GAME.move_cells(state)
        for move in moves:
            if len(move) < 2:
                continue
            for k in range(1, len(move)):
                done = bot._completed(state, move[:k])
                cells = next(m for m in moves if m[:k] == move[:k] and same(GAME.apply(state, m)[0], done))
                assert cells[:k] == move[:k]
                checked += 1
    assert checked, "the positions include eats (R-B4)"


def test_a_playout_from_a_position_where_every_move_hands_the_game_over_is_lost() -> None:
    """The player to move whose every move leaves the opponent unable to grow
    loses the playout, however many times it draws again (R-B6); one with a
    move that does not may lose or win."""
    rng = random.Random(1)
    forced = 0
    for state in random_positions({}, 40, seed=9):
        ends = {GAME.apply(state, m)[0].winner for m in GAME.move_cells(state)}
        if ends == {1 - state.to_move}:
            assert bot._playout(state, rng) == 1.0 - (1 - state.to_move), GAME.dump(state)
            forced += 1
    assert forced, "the positions include one where every move hands the game over"
