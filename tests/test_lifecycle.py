"""How games end beyond their own rules, the same for every game (engine/game.py):
a resignation and a flag (R-T1), a forfeit by an illegal move and an umpire's
abort (a managed match's policy and its admin), each written as a reserved
record entry that ``replay`` takes back.  Games and option sets come from the
registry and the games' declarations (tests/gamekit.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gamekit import config_id, option_configs, random_game
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.errors import BadState, IllegalMove
from engine.game import Outcome
from engine.registry import GAMES

CONFIGS = option_configs()


def ended(name: str, options: dict[str, Any], seed: int, plies: int, how: str) -> tuple[Any, Any, list[str], dict[str, Any]]:
    game = GAMES[name]
    rnd = random.Random(seed)
    options, state, moves = random_game(game, options, plies, rnd)
    assume(not game.is_over(state))  # a game that ended by itself is another test's business
    mover = state.to_move
    entry = {"forfeit": f"forfeit {mover}", "abort": "abort", "resign": f"resign {1 - mover}"}[how]
    verdict = game.record_step(state, entry)
    assert verdict.legal, verdict.error
    return state, verdict, [*moves, entry], options


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[config_id(*c) for c in CONFIGS])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 6), how=st.sampled_from(["forfeit", "abort", "resign"]))
def test_every_game_ends_by_forfeit_abort_or_resignation(
    name: str, options: dict[str, Any], seed: int, plies: int, how: str
) -> None:
    game = GAMES[name]
    before, verdict, record, options = ended(name, options, seed, plies, how)
    after = verdict.state
    data = game.dump(after)
    expect = {"forfeit": ("illegal", 1 - before.to_move), "abort": ("aborted", None), "resign": ("resign", before.to_move)}[how]
    assert (data["end"], data["winner"], data["status"], data["to_move"]) == (*expect, "finished", None)
    assert verdict.events[-1] == {"type": "end", "winner": expect[1], "end": expect[0]}
    assert game.load(data) == after  # a finished state of this kind reads back
    outcome = game.outcome(after)
    assert outcome is not None and outcome.result == {None: "*", 0: "1-0", 1: "0-1"}[expect[1]]  # aborted: no result
    replayed = game.replay(options, record)  # the reserved entry replays
    assert replayed.valid and game.dump(replayed.state) == data


@pytest.mark.parametrize("name", list(GAMES))
def test_only_the_player_to_move_forfeits_and_only_once(name: str) -> None:
    game = GAMES[name]
    state = game.new({"seed": "x"} if name == "crystal" else {})
    assert state.to_move == 0
    refused = game.record_step(state, "forfeit 1")
    assert refused.error is not None and refused.error.code == "not_to_move"
    done = game.record_step(state, "forfeit 0").state
    assert game.record_step(done, "abort").error.code == "game_over"  # type: ignore[union-attr]
    with pytest.raises(IllegalMove):
        game.forfeit(done, 0)
    assert not game.play(state, "forfeit 0").legal  # a player cannot type a reserved entry


@pytest.mark.parametrize("name", list(GAMES))
def test_end_and_winner_must_agree(name: str) -> None:
    game = GAMES[name]
    state = game.new({"seed": "x"} if name == "crystal" else {})
    aborted = game.dump(game.abort(state)[0])
    with pytest.raises(BadState) as e:
        game.load({**aborted, "winner": 0})
    assert e.value.field == "state.winner"  # an aborted game has no winner
    forfeited = game.dump(game.forfeit(state, 0)[0])
    with pytest.raises(BadState) as e:
        game.load({**forfeited, "winner": None})
    assert e.value.field == "state.winner"  # a forfeit has a winner


def test_results_say_who_won_as_chess_records_do() -> None:
    """``1-0``: player 0 (seat 0, who moved first) won; ``0-1`` player 1; a draw ``1/2-1/2``;
    an aborted game has no result, ``*``, as PGN writes an abandoned one."""
    assert Outcome(0, "resign").result == "1-0"
    assert Outcome(1, "flag").result == "0-1"
    assert Outcome(None, "full").result == "1/2-1/2"
    assert Outcome(None, "aborted").result == "*"
