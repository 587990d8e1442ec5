"""Each game's page hints (engine/hints.py, declared in engine/games/<g>/hints.py)
agree with the game's own rules, so the page, which learns everything about a
game from them and from the legal-moves prefix calls, cannot drift from the
engine (issue 19: the page once read Crystal's draft ``blue green`` as one step
where the engine counts two, and clicks in Too made ``C3`` where a step is ``B C3``).

Positions are those of a few random games per game, built step by step from
``next_steps`` as the page builds a move; seeded, so every run sees the same."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from engine.game import COMMON_ENDS, Game
from engine.hints import CELL, CHOICE, COMMON_END_SENTENCES, WINNER, Click, End, Hints
from engine.registry import ROOMS
from engine.room import Room

NAMES = sorted(ROOMS)
CELL_NAME = re.compile(r"\b[A-Za-z][0-9]{1,2}\b")


def random_move(game: Game[Any, Any], state: Any, rng: random.Random) -> str:
    """A legal move built one step at a time, as the page builds one by clicks."""
    prefix: list[str] = []
    while True:
        found = game.next_steps(state, prefix)
        if found.complete and (not found.steps or rng.random() < 0.4):
            assert found.move is not None
            return found.move
        prefix = [*found.prefix, rng.choice(found.steps)]


def positions(room: Room, games: int = 3, plies: int = 14) -> Iterator[Any]:
    """The start and the positions of a few random games (``example_options``)."""
    game = room.game
    rng = random.Random(19)
    for _ in range(games):
        state = game.new(dict(room.hints.example_options))
        for _ in range(plies):
            if game.is_over(state):
                break
            yield state
            verdict = game.play(state, random_move(game, state, rng))
            assert verdict.legal, verdict.error
            state = verdict.state
        yield state


@pytest.mark.parametrize("name", NAMES)
def test_the_examples_play_one_after_another_from_the_examples_options(name: str) -> None:
    room = ROOMS[name]
    options = dict(room.hints.example_options)
    if "seed" in room.game.describe()["options"]:  # a record replays on one deal (Crystal's check_replay_options)
        options.setdefault("seed", "examples")
    result = room.game.replay(options, list(room.hints.examples))
    assert result.valid, result.first_illegal and result.first_illegal[1].message
    assert result.plies == len(room.hints.examples)


@pytest.mark.parametrize("name", NAMES)
def test_the_step_pattern_splits_moves_as_the_engine_does_and_the_joiner_joins_them_back(name: str) -> None:
    room = ROOMS[name]
    game, hints = room.game, room.hints
    seen = 0
    for state in positions(room):
        if game.is_over(state):
            continue
        rng = random.Random(state.ply)
        for _ in range(6):
            move = random_move(game, state, rng)
            steps = game.split_move(move)
            assert hints.split(move) == steps, move
            joined = hints.joiner.join(steps)
            verdict = game.play(state, joined)
            assert verdict.legal and verdict.move == move, (joined, verdict.error)
            seen += 1
    assert seen >= 20


def test_crystal_s_draft_pick_is_two_steps_and_a_turn_is_its_items() -> None:
    """The drift issue 19 found: the page read ``blue green`` as one step (R-X1)."""
    hints = next(r.hints for r in ROOMS.values() if r.hints.click is None)
    assert hints.split("blue green") == ["blue", "green"]
    assert hints.split("convert C4; C up 2, 2 right 3") == ["convert C4", "C up 2", "2 right 3"]


@pytest.mark.parametrize("name", NAMES)
def test_a_click_on_a_cell_makes_the_step_the_engine_offers(name: str) -> None:
    """Every legal step that names a cell is the click's step for that cell
    (with one of the choices, for a game whose steps carry one); a step that
    names no cell (``swap``, ``first``, a shift) is offered as a word."""
    room = ROOMS[name]
    click = room.hints.click
    for state in positions(room):
        if room.game.is_over(state):
            continue
        for step in room.game.next_steps(state, []).steps:
            cells = CELL_NAME.findall(step)
            if click is None or not cells:
                continue
            cell = click.step.replace(CELL, cells[-1])
            made = {cell.replace(CHOICE, c.code) for c in click.choices} if click.choices else {cell}
            assert step in made, (step, made)


@pytest.mark.parametrize("name", NAMES)
def test_every_end_has_its_sentences(name: str) -> None:
    room = ROOMS[name]
    said = room.hints.end_sentences(room.game)
    assert list(said) == list(room.game.ends)  # Crystal has no "flag": its flag opens R-X6's window
    for end, sentences in said.items():
        assert sentences.won or sentences.drawn, end
        assert sentences.won is None or WINNER in sentences.won
    for end in room.game.natural_ends:
        assert said[end].won is not None  # a natural end names a winner, or says it is a draw as well


def test_the_common_ends_are_said_once_for_every_game() -> None:
    assert set(COMMON_END_SENTENCES) == set(COMMON_ENDS)
    assert COMMON_END_SENTENCES["aborted"] == End(drawn="The umpire aborted the game: no result.")  # no winner, no draw


@pytest.mark.parametrize("name", NAMES)
def test_the_board_words_and_turn_notes_read_the_state(name: str) -> None:
    room = ROOMS[name]
    hints = room.hints
    for state in positions(room):
        data = room.game.dump(state)
        board = data["board"]
        values = board.values() if isinstance(board, dict) else [sym for row in board for sym in row]
        for value in values:
            assert str(value) in hints.board_words, value
        for field in hints.turn_notes:
            assert field in data, field


def test_hints_are_checked_when_declared() -> None:
    with pytest.raises(ValueError, match="names the cell"):
        Click(step="swap")
    with pytest.raises(ValueError, match="go together"):
        Click(step="{choice} {cell}")
    with pytest.raises(ValueError, match="example"):
        Hints(players=("a", "b"), colours=None, syntax="", examples=(), ends={}, board_words={})
    with pytest.raises(ValueError, match="name no seat"):
        Hints(players=("a", "b"), colours=None, syntax="", examples=("x",), ends={}, board_words={"0": "a's"},
              named_words={"0": "Red's stone"})  # fmt: skip
    with pytest.raises(ValueError, match="which board_words do not"):
        Hints(players=("a", "b"), colours=None, syntax="", examples=("x",), ends={}, board_words={},
              named_words={"0": "{player0}'s stone"})  # fmt: skip


# Each game's pieces said with the players' names (issue 35: cell names and screen-reader labels said
# "Blue's piece" in a match of Ann and Bob); the game's own words only where no names are given.
NAMED = {
    "catchup": {"0": "Ann's stone", "1": "Bob's stone"},  # R-C1: each player's stones
    "bug": {"0": "Ann's piece", "1": "Bob's piece"},  # R-B1: each player's pieces
    "plur": {"0": "Ann's stone (black)", "1": "Bob's stone (white)"},  # R-E1: player 0 owns black
    "product": {"0": "black stone (Ann's colour)", "1": "white stone (Bob's colour)"},  # R-E4: either places either
    "too": {"0": "black stone", "1": "white stone"},  # R-E2: colours, not owners
}


@pytest.mark.parametrize("name", NAMES)
def test_a_players_piece_is_said_with_the_players_name(name: str) -> None:
    hints = ROOMS[name].hints
    said = {value: hints.board_word(value, ("Ann", "Bob")) for value in hints.board_words}
    if name in NAMED:
        assert said == NAMED[name]
    owners = [f"{seat}'s" for seat in hints.players]  # "Red's": the game's own name for a seat
    assert not any(owner in words for owner in owners for words in said.values()), said
    assert {value: hints.board_word(value) for value in hints.board_words} == dict(hints.board_words)


def test_the_games_list_carries_the_named_words(client: FlaskClient) -> None:
    games = {g["name"]: g["hints"] for g in client.get("/v1/games").get_json()["games"]}
    assert games["catchup"]["named_words"] == {"0": "{player0}'s stone", "1": "{player1}'s stone"}
    assert games["catchup"]["board_words"] == {"0": "Red's stone", "1": "Blue's stone"}  # no names given
    assert games["too"]["named_words"] == {} and games["crystal"]["named_words"] == {}  # nobody's pieces


@pytest.mark.parametrize("name", NAMES)
def test_the_description_is_json(name: str) -> None:
    room = ROOMS[name]
    described = room.hints.describe(room.game)
    assert json.loads(json.dumps(described)) == described
    assert described["players"] == list(room.hints.players)


@pytest.mark.parametrize("name", NAMES)
def test_the_page_names_the_players_as_the_pictures_do(name: str) -> None:
    room = ROOMS[name]
    assert room.hints.players == room.show.default_names
