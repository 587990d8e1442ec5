"""A position read back from its text diagram (views/diagram.py, issue 22:
umpires paste the diagram the post prints, not the API's JSON): for every
game whose diagram can be read, render -> read -> the same position; a post
pasted whole; and each way a diagram can be wrong, named by line and token,
through POST /v1/games/{game}/import with ``format: diagram``."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

import views
from engine.errors import BadOptions
from engine.registry import ROOMS
from views import diagram

READABLE = [name for name in ROOMS if diagram.readable(name)]
# Positions worth reading: blocked cells, another board shape, another size.
SETUPS: dict[str, list[dict[str, Any]]] = {
    "catchup": [{"size": 3}, {"size": 4, "blocked": ["A1", "D4"]}],
    "bug": [{}, {"variant": "green-meadow"}],
    "plur": [{"size": 4}, {"size": 3, "blocked": ["B2"]}],
    "too": [{"size": 3}],
    "product": [{"size": 4, "blocked": ["C3"]}],
}


def positions(name: str) -> list[dict[str, Any]]:
    """Positions of ``name`` met in play: from each set-up, seeded random moves, every ply kept while the game goes on."""
    game = ROOMS[name].game
    out = []
    for number, options in enumerate(SETUPS.get(name, [{}])):
        rng = random.Random(number)
        state = game.new(options)
        for _ in range(12):
            if game.is_over(state):
                break
            out.append(game.dump(state))
            moves = game.complete_moves(state, limit=200).moves
            state = game.play(state, rng.choice(moves)).state
    return out


def the_position(state: dict[str, Any]) -> tuple[Any, ...]:
    return state["board"], sorted(state.get("blocked") or []), state["to_move"], state["options"].get("size")


def test_the_games_whose_diagram_is_read_are_those_of_stones_on_hex_cells() -> None:
    assert set(READABLE) == {"catchup", "bug", "plur", "too", "product"}  # Crystal's grid holds a draft it does not draw


@pytest.mark.parametrize("name", READABLE)
def test_a_diagram_reads_back_as_its_position(name: str) -> None:
    game = ROOMS[name].game
    found = positions(name)
    assert len(found) >= 8
    read = 0
    for state in found:
        for coords in (False, True):  # with coords every empty cell shows its name, and reads as empty
            text = views.text(state, coords=coords)
            try:
                game.new(game.setup_options(game.load(state)))
            except BadOptions:  # no set-up gives it (Green Meadow's blackening): refused alike from its diagram
                with pytest.raises(BadOptions):
                    diagram.read(name, text, options=state["options"])
                continue
            read += 1
            options = diagram.read(name, text, options=state["options"])
            again = game.dump(game.new({**state["options"], **options}))
            assert the_position(again) == the_position(state), text
    assert read >= 16


@pytest.mark.parametrize("fmt", ["markdown", "bbcode", "text", "discord"])
def test_a_post_pasted_whole_reads_as_its_position(fmt: str) -> None:
    """As an umpire pastes it: the heading, the announcements, the diagram in its block, whose turn."""
    game = ROOMS["bug"].game
    state = game.dump(game.new({}))
    for move in ("B1", "C3", "E1", "A3"):
        verdict = game.play(game.load(state), move)
        assert verdict.legal, verdict.error
        before, state = state, game.dump(verdict.state)
    post = views.post(state, before=before, events=verdict.events, format=fmt, png_url="https://umpire.test/x.png")
    options = diagram.read("bug", post)  # whose turn: the post's "Red to move" line, under the diagram's block
    assert options == {"size": 3, "position": state["board"], "to_move": state["to_move"]}
    assert options["to_move"] == 0 and "Red to move" in post and len(state["board"]) == 4


def test_to_move_given_wins_over_the_line_under_the_diagram() -> None:
    game = ROOMS["product"].game
    state = game.dump(game.new({"size": 3, "position": {"A1": 0, "C3": 1}, "to_move": 1}))
    text = views.text(state)
    assert "White to move" in text and diagram.read("product", text)["to_move"] == 1
    assert diagram.read("product", text, to_move=0)["to_move"] == 0
    bare = "\n".join(line for line in text.splitlines() if " to move" not in line)
    assert "to_move" not in diagram.read("product", bare)  # then the game's own rule (from the stones' counts)


PLUR_3 = """Plur, side 3, ply 1
A   . . .
B  . B . .
C . . . . .
D  . . . .
E   . . .
"""


@pytest.mark.parametrize(
    ("text", "line", "token", "said"),
    [
        (PLUR_3.replace("B  . B . .", "B  . Q . ."), 3, "Q", "'Q' on B2 is no piece of Plur (its pieces: B, W"),
        (PLUR_3.replace("B  . B . .", "B  . B ."), 3, "B", "row B has 4 cells on this board; the diagram gives 3"),
        ("\n".join(PLUR_3.splitlines()[:5]), 5, "D", "a hexhex board has an odd number of rows"),
        ("just words", 1, "just words", "no board in it"),
    ],
)
def test_what_cannot_be_read_is_named_by_line_and_token(client: FlaskClient, text: str, line: int, token: str, said: str) -> None:
    r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": text})
    assert r.status_code == 422, r.get_json()
    error = r.get_json()["error"]
    assert error["code"] == "bad_record" and error["details"]["line"] == line and error["details"]["token"] == token
    assert error["message"].startswith(f"Line {line}: {said}")


def test_over_http_the_answer_sets_the_position_up(client: FlaskClient) -> None:
    r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": PLUR_3, "to_move": 1, "options": {"pie": True}})
    assert r.status_code == 200, r.get_json()
    assert r.get_json() == {
        "format": "diagram",
        "options": {"pie": True, "size": 3, "position": {"B2": 0}, "to_move": 1},
        "moves": [],
    }
    state = client.post("/v1/games/plur/new", json={"options": r.get_json()["options"]}).get_json()["state"]
    assert state["board"] == {"B2": 0} and state["to_move"] == 1
    # an impossible position is the engine's to refuse, as `new` would
    r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": PLUR_3, "to_move": 7})
    assert r.status_code == 422 and r.get_json()["error"]["details"]["field"] == "to_move"
    crystal = client.post("/v1/games/crystal/import", json={"format": "diagram", "text": "A B"})
    assert crystal.status_code == 404  # no record format, no diagram reader: no import at all


def test_the_diagram_s_side_wins_over_a_size_sent(client: FlaskClient) -> None:
    """The rows tell the side: a size sent with the other options (even one no board has) is not read,
    where it once reached the board's own check, a ValueError and a 500."""
    for size in ("x", 9, True):
        r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": PLUR_3, "options": {"size": size}})
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["options"]["size"] == 3
