"""Move errors: the ruling apart from the sentence, and sentences that name
a wrong step by what it says.

Every raise site of a move error in engine/ passes ``rule=`` (read from the
source), no message cites a ruling in brackets, none counts steps ("step 2",
"Shift 2": ``step`` is the one count, 0-based), and ``pass`` gets a plain
answer in every game.  Random wrong moves in every game and option set check
the messages the engine really writes.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import GameApi, config_id, option_configs, random_game

from engine.errors import IllegalMove, InvalidMove, MoveError
from engine.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
RULE = re.compile(r"^R-[A-Z][0-9]+[a-z]?$")
CITED = re.compile(r"\(R-[A-Z]")
COUNTED = re.compile(r"\b(step|shift) [0-9]", re.IGNORECASE)
RULINGS = set(re.findall(r"\*\*(R-[A-Z][0-9]+[a-z]?) ", (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")))


def test_every_raise_site_names_its_rule() -> None:
    missing = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
            if called in ("IllegalMove", "InvalidMove", "MoveError") and not any(k.arg == "rule" for k in node.keywords):
                missing.append(f"{path.name}:{node.lineno}")
    assert missing == []


def check(err: MoveError | None) -> None:
    assert err is not None
    assert err.rule is not None and RULE.match(err.rule), err.to_json()
    assert err.rule in RULINGS, f"{err.rule} is no ruling of docs/RULES.md"
    assert not CITED.search(err.message), err.message
    assert not COUNTED.search(err.message), err.message
    assert err.message.strip() and err.message.endswith("."), err.message
    out = err.to_json()
    assert out["rule"] == err.rule and list(out)[:2] == ["code", "message"]


def wrong_moves(game: Any, state: Any, rnd: random.Random) -> list[Any]:
    """Moves likely wrong here: legal ones with a step repeated, dropped or
    added, steps from other positions, and text that is no move."""
    legal = game.legal_moves(state, 40).moves
    out: list[Any] = ["", "??", "Z99", "C up 9", "1 left 1, 1 left 1, 1 left 1, 1 left 1, 1 left 1, 1 left 1", "red red", "B"]
    for move in rnd.sample(legal, min(6, len(legal))):
        steps = game.split_move(move)
        out.append(game.join_steps([*steps, steps[-1]]))
        out.append(game.join_steps([*steps, rnd.choice(legal)]))
        out.append(steps[:1])
        if len(steps) > 1:
            out.append(game.join_steps(steps[:-1]))
    return out


@pytest.mark.parametrize(("name", "options"), option_configs(), ids=[config_id(*c) for c in option_configs()])
def test_random_wrong_moves_give_clean_sentences(name: str, options: dict[str, Any]) -> None:
    game = GAMES[name]
    rnd = random.Random(f"errors-{config_id(name, options)}")
    seen = 0
    for plies in (0, 1, 3, 8, 20):
        _, state, _ = random_game(game, options, plies, rnd)
        if game.is_over(state):
            continue
        for move in wrong_moves(game, state, rnd):
            if move == "":
                continue
            verdict = game.play(state, move)
            if not verdict.legal:
                assert isinstance(verdict.error, IllegalMove | InvalidMove)
                check(verdict.error)
                seen += 1
    assert seen >= 10


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("move", ["pass", "PASS", " Pass ", ["pass"]])
def test_pass_is_refused_plainly_in_every_game(name: str, move: Any) -> None:
    game = GAMES[name]
    state = game.new({"seed": "pass"} if name == "crystal" else {})
    verdict = game.play(state, move)
    assert not verdict.legal and verdict.error is not None
    assert verdict.error.code == "no_pass"
    assert verdict.error.message.startswith(f"Passing is not allowed in {game.title}: ")
    assert verdict.error.rule == game.move_rule
    check(verdict.error)
    record = game.replay({"seed": "pass"} if name == "crystal" else {}, ["pass"])
    assert record.first_illegal is not None and record.first_illegal[1].code == "no_pass"


def test_pass_over_http(client: FlaskClient) -> None:
    api = GameApi("bug")
    verdict = api.play(client, api.new(client), "pass")
    assert verdict["legal"] is False
    assert verdict["error"] == {
        "code": "no_pass",
        "message": "Passing is not allowed in Bug: every turn grows one piece (Green Meadow's opening turns blacken one cell).",
        "rule": "R-B5",
    }


def test_bug_names_the_bonus_cell_not_its_number() -> None:
    game = GAMES["bug"]
    state = game.new({"position": {"B2": 0, "E3": 1}, "to_move": 0})
    verdict = game.play(state, "D1 A2")  # D1 touches no bug to eat: the bonus cell is not due
    assert verdict.error is not None and verdict.error.to_json() == {
        "code": "no_eat_due",
        "message": "Bonus cell A2 is not due: nothing can be eaten.",
        "step": 1,
        "rule": "R-B4",
    }


def test_crystal_names_the_shift_by_its_text() -> None:
    game = GAMES["crystal"]
    state = game.new({"seed": "walk", "colors": [["red", "green"], ["blue", "yellow"]], "first": 0})
    state = game.play(state, "C up 2, 2 right 3, A down 1").state
    err = game.play(state, "convert A1; D up 1, C up 2, D down 1").error  # the conversion first: the shift is item 2
    assert err is not None and err.code == "no_convertor"  # this game has no convertor: the first item is wrong
    err = game.play(state, "D up 1, D down 1, C up 2").error
    assert err is not None and err.to_json() == {
        "code": "not_your_file",
        "message": "'C up 2' moves column C, which your opponent shifted on their last turn.",
        "step": 2,
        "rule": "R-X2",
    }
    err = game.play(state, "D up 1, D down 9, C up 2").error
    assert err is not None and err.to_json() == {
        "code": "bad_shift",
        "message": "'D down 9': the amount must be a whole number from 1 to 5.",
        "step": 1,
        "rule": "R-X2",
    }


def test_a_cell_that_is_no_cell_is_named() -> None:
    game = GAMES["catchup"]
    err = game.play(game.new({"size": 3}), ["C3", 7]).error  # type: ignore[list-item]
    assert err is not None and err.to_json() == {
        "code": "bad_notation",
        "message": "A move's steps are cell names, not 7.",
        "step": 1,
        "rule": "R-H3",
    }
