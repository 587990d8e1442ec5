"""Property tests for Catchup: random legal games, checked move by move against
independent oracles (a breadth-first search for groups, Python's list order for
the R-C4 tie-break), JSON round trips, replays, and illegal moves that must
change nothing."""

from __future__ import annotations

import dataclasses
import json
import random
from itertools import pairwise

from gamekit import bfs_sizes
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.catchup.rules import Catchup, CatchupState
from engine.groups import groups

GAME = Catchup()
VARIANTS = st.sampled_from(["standard", "mindsports", "bolanos"])
SIZES = st.integers(min_value=3, max_value=5)


def random_move(state: CatchupState, rng: random.Random) -> list[str]:
    empty = state.board.names(state.empty)
    return rng.sample(empty, rng.randint(1, GAME.max_stones(state)))


def random_game(variant: str, size: int, rng: random.Random) -> tuple[list[CatchupState], list[str]]:
    """All states of one random legal game and the moves between them."""
    state = GAME.new({"variant": variant, "size": size})
    states, moves = [state], []
    while state.to_move is not None:
        move = random_move(state, rng)
        verdict = GAME.play(state, move)
        if not verdict.legal:
            # R-C3 bolanos may refuse two stones; one stone is always legal
            assert variant == "bolanos" and verdict.error is not None and verdict.error.code == "largest_group_grew"
            verdict = GAME.play(state, move[:1])
            assert verdict.legal
        assert verdict.move is not None
        moves.append(verdict.move)
        state = verdict.state
        states.append(state)
    return states, moves


@settings(max_examples=80, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_random_games_end_on_a_full_board_with_a_winner(variant: str, size: int, seed: int) -> None:
    states, _ = random_game(variant, size, random.Random(seed))
    end = states[-1]
    assert not end.empty
    assert (end.end, end.to_move, GAME.max_stones(end)) == ("full", None, 0)
    # R-C4 oracle: sizes largest first compared as Python lists (a missing group
    # counts 0, which sorts below any size), never equal on an odd board.
    s0, s1 = bfs_sizes(end.board, end.stones[0]), bfs_sizes(end.board, end.stones[1])
    assert s0 != s1
    assert end.winner == (0 if s0 > s1 else 1)


@settings(max_examples=60, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_every_state_of_a_game_is_consistent(variant: str, size: int, seed: int) -> None:
    states, _ = random_game(variant, size, random.Random(seed))
    for before, after in pairwise(states):
        board = after.board
        for p in (0, 1):
            sizes = bfs_sizes(board, after.stones[p])
            # R-C2: the score track is the largest group, at least 1, and never falls
            assert after.scores[p] == max([1, *sizes])
            assert after.scores[p] >= before.scores[p]
            # the incrementally merged groups are exactly the board's groups
            assert sorted(after.groups[p]) == sorted(groups(board, after.stones[p]))
        assert after.empty == board.mask & ~(after.stones[0] | after.stones[1])
        assert after.ply == before.ply + 1
        if variant == "bolanos":
            assert not after.bonus  # R-C3: bolanos never gives 3
            placed = (after.stones[0] | after.stones[1]) & ~(before.stones[0] | before.stones[1])
            if placed.bit_count() == 2:
                assert max(after.scores) == max(before.scores)


@settings(max_examples=60, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_states_round_trip_through_json(variant: str, size: int, seed: int) -> None:
    states, _ = random_game(variant, size, random.Random(seed))
    for state in states:
        data = GAME.dump(state)
        text = json.dumps(data)
        assert GAME.load(json.loads(text)) == state
        assert json.dumps(GAME.dump(GAME.load(json.loads(text)))) == text


@settings(max_examples=60, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_replay_equals_playing_move_by_move(variant: str, size: int, seed: int) -> None:
    states, moves = random_game(variant, size, random.Random(seed))
    result = GAME.replay({"variant": variant, "size": size}, moves)
    assert result.valid and result.plies == len(moves) and result.first_illegal is None
    assert result.state == states[-1]
    assert GAME.dump(result.state) == GAME.dump(states[-1])
    # a replay that breaks off names the first illegal move and keeps the state before it
    cut = len(moves) // 2
    broken = GAME.replay({"variant": variant, "size": size}, [*moves[:cut], moves[0]])
    if cut:
        assert not broken.valid and broken.plies == cut
        assert broken.first_illegal is not None and broken.first_illegal[0] == cut
        assert broken.state == states[cut]


def junk_moves(state: CatchupState, rng: random.Random) -> list[str]:
    """Moves that some rule refuses: occupied cells, a repeated cell, too many stones, off-board cells."""
    board = state.board
    empty = board.names(state.empty)
    taken = board.names(state.stones[0] | state.stones[1])
    out = [" ".join(rng.sample(empty, GAME.max_stones(state) + 1))] if len(empty) > GAME.max_stones(state) else []
    out.append(f"{empty[0]} {empty[0]}")
    out.append(f"{empty[-1]} Z9")
    out.append("A0")
    if taken:
        out.append(f"{rng.choice(empty)} {rng.choice(taken)}")
    return out


@settings(max_examples=60, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_no_illegal_move_changes_the_state(variant: str, size: int, seed: int) -> None:
    rng = random.Random(seed)
    states, _ = random_game(variant, size, rng)
    for state in states[:-1]:
        before = GAME.dump(state)
        copy = dataclasses.replace(state)
        for move in junk_moves(state, rng):
            verdict = GAME.play(state, move)
            assert not verdict.legal, move
            assert verdict.state is state
            assert verdict.error is not None and verdict.error.message
        assert GAME.dump(state) == before and state == copy
    assert GAME.play(states[-1], "A1").error.code == "game_over"  # type: ignore[union-attr]


@settings(max_examples=60, deadline=None)
@given(variant=VARIANTS, size=SIZES, seed=st.integers(0, 2**32 - 1), where=st.floats(0, 1))
def test_resign_and_flag_give_the_opponent_the_win(variant: str, size: int, seed: int, where: float) -> None:
    states, _ = random_game(variant, size, random.Random(seed))
    state = states[int(where * (len(states) - 2))]  # an ongoing state
    mover = state.to_move
    assert mover is not None
    for player in (0, 1):
        done, _ = GAME.resign(state, player)
        assert (done.winner, done.end, done.to_move) == (1 - player, "resign", None)
        assert GAME.load(json.loads(json.dumps(GAME.dump(done)))) == done
    flagged, _ = GAME.timeout(state)
    assert (flagged.winner, flagged.end) == (1 - mover, "flag")
    assert GAME.load(GAME.dump(flagged)) == flagged
    assert state.to_move == mover  # the ongoing state itself is untouched


@settings(max_examples=60, deadline=None)
@given(size=SIZES, seed=st.integers(0, 2**32 - 1))
def test_a_mindsports_bonus_is_always_a_standard_bonus(size: int, seed: int) -> None:
    # R-C3: a group larger than every group at the start of the turn means the
    # score rose and now exceeds the opponent's, so the player also leads.
    rng = random.Random(seed)
    state = GAME.new({"variant": "mindsports", "size": size})
    while state.to_move is not None:
        move = GAME.parse(state, random_move(state, rng))
        as_standard = dataclasses.replace(state, variant="standard")
        after, _ = GAME.apply(state, move)
        after_standard, _ = GAME.apply(as_standard, move)
        assert after.scores == after_standard.scores
        if after.bonus:
            assert after_standard.bonus
        state = after
