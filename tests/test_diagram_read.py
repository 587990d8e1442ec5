"""A position read back from its text diagram (views/diagram.py, issue 22:
umpires paste the diagram the post prints, not the API's JSON): for every
game whose diagram can be read, render -> read -> the same position; a post
pasted whole; and each way a diagram can be wrong, named by line and token,
through POST /v1/games/{game}/import with ``format: diagram``.

Issue 35: a post pasted back is the very state it was made from, its
``[State ...]`` line carrying what the board does not draw (whose turn, the
ply, Catchup's bonus, Bug's phase, Crystal Connector's draft and totals), in
every post format, for every game (property-style, over random positions)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from test_views_props import WALKS

import views
from engine.errors import BadOptions
from engine.registry import ROOMS
from views import diagram, posts

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


def board_alone(text: str) -> str:
    """The diagram without its [State] line, as an umpire may have typed it."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("[State", "\uff3bState")))


def test_every_game_s_diagram_is_read() -> None:
    """The hex boards of stones by value, and Crystal Connector's grid (which needs its [State] line)."""
    assert set(READABLE) == {"catchup", "bug", "crystal", "plur", "too", "product"}


@pytest.mark.parametrize("name", READABLE)
def test_a_diagram_reads_back_as_its_state(name: str) -> None:
    game = ROOMS[name].game
    found = positions(name)
    assert len(found) >= 8
    read = 0
    for state in found:
        for coords in (False, True):  # with coords every empty cell shows its name, and reads as empty
            text = views.text(state, coords=coords)
            assert diagram.read(name, text).state == state, text
            if name == "crystal":  # the grid alone is not the position: the draft, turns and totals are not drawn
                with pytest.raises(diagram.BadDiagram, match=r"reads back with its \[State \.\.\.\] line"):
                    diagram.read(name, board_alone(text))
                continue
            try:
                game.new(game.setup_options(game.load(state)))
            except BadOptions:  # no set-up gives it (Green Meadow's blackening): refused alike from its board alone
                with pytest.raises(BadOptions):
                    diagram.read(name, board_alone(text), options=state["options"])
                continue
            read += 1
            alone = diagram.read(name, board_alone(text), options=state["options"])
            assert the_position(alone.state) == the_position(state), text
            assert alone.state == game.dump(game.new({**state["options"], **alone.options}))
    assert read >= 16 or name == "crystal"


# A Catchup record of 10 moves on a side-3 board (R-C5): after Red's B2 D3 at ply 9, Red leads 8 to 5,
# so Blue may place up to 3 stones (R-C3).  The page read the post back as "1 or 2 stones".
RECORD = ["C1", "B3 C2", "C3 D4", "A1 B1", "A2 B4 C5", "A3 D1", "E2", "E1", "B2 D3", "C4 D2 E3"]
PLY_9 = """\
A   O X O
B  O x O X
C X O X . X
D  O . x X
E   O X ."""


def ply_9() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    game = ROOMS["catchup"].game
    taken_back = game.replay({"size": 3}, RECORD[:9])  # the umpire takes back the tenth move
    assert taken_back.before is not None and taken_back.valid
    return game.dump(taken_back.before), taken_back.events, game.dump(taken_back.state)


@pytest.mark.parametrize("fmt", posts.FORMATS)
def test_catchup_s_bonus_comes_back_with_the_post_at_ply_9(fmt: str) -> None:
    """Issue 35's case: the post says "Blue to move: up to 3 stones, since Red led last turn"; pasted, it says so again."""
    game = ROOMS["catchup"].game
    before, events, state = ply_9()
    post = views.post(state, events=events, before=before, png_url="https://umpire.test/b.png?names=Ann,Bob", format=fmt)
    assert "\n".join(views.text(state, events=events).splitlines()[1:6]) == PLY_9
    assert "Blue to move: up to 3 stones, since Red led last turn (R-C3)" in post
    assert (state["ply"], state["bonus"], state["to_move"], state["max_stones"]) == (9, True, 1, 3)
    got = diagram.read("catchup", post).state
    assert got == state
    assert game.play(game.load(got), RECORD[9]).legal  # C4 D2 E3: three stones, the bonus (R-C3)
    assert views.text(got).splitlines()[-2] == "Blue to move: up to 3 stones, since Red led last turn (R-C3)"


def test_over_http_the_import_answers_the_state_itself(client: FlaskClient) -> None:
    before, events, state = ply_9()
    post = views.post(state, events=events, before=before, format="discord")
    r = client.post("/v1/games/catchup/import", json={"format": "diagram", "text": post})
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert answer["state"] == state and answer["moves"] == []
    assert answer["options"]["bonus"] is True and answer["options"]["to_move"] == 1  # the set-up nearest it: no ply
    played = client.post("/v1/games/catchup/play", json={"state": answer["state"], "move": RECORD[9]})
    assert played.status_code == 200 and played.get_json()["legal"], played.get_json()


# Issue 35's own case on the default board (R-C5): ten moves, taken back to ply 9, where Red's B5 I3 has
# made Red lead 3 to 2 (R-C3); the tenth move, E1 E2 E3, is Blue's bonus.
RECORD_5 = ["H1", "D6 F1", "H4 H5", "B1 C5", "A1 C2 F8", "C3 G5", "A2 E8", "A3", "B5 I3", "E1 E2 E3"]
MATCH_CLOCK = {
    "turn_s": 60.0, "bank_s": 300.0, "step_s": 1.0, "on_flag": "loses", "to_move": 1,
    "seats": {"0": {"bank_s": 288.0}, "1": {"bank_s": 300.0, "deadline": "2026-11-22T12:06:00.000Z"}},
    "turn_started": "2026-11-22T12:00:00.000Z", "deadline": "2026-11-22T12:06:00.000Z", "now": "2026-11-22T12:00:10.000Z",
}  # fmt: skip


@pytest.mark.parametrize("fmt", posts.FORMATS)
def test_the_issue_s_discord_post_pasted_over_http_keeps_its_bonus(client: FlaskClient, fmt: str) -> None:
    """The match's post as Discord got it - names, clocks and all, over 1,000 characters, which the body's
    limit on any string once refused - read back by POST import, then E1 E2 E3 played on what it answers."""
    game = ROOMS["catchup"].game
    taken_back = game.replay({}, RECORD_5[:9])
    assert taken_back.before is not None
    state = game.dump(taken_back.state)
    post = views.post(
        state, events=taken_back.events, before=game.dump(taken_back.before), names=["Ann Umpire-Tester", "Bob Q. Player"],
        clock=MATCH_CLOCK, png_url="https://umpire.example/v1/matches/m/board.png?ply=9&names=Ann,Bob", format=fmt,
    )  # fmt: skip
    assert len(post) > 1000 and "Bob Q. Player to move: up to 3 stones, since Ann Umpire-Tester led last turn (R-C3)" in post
    r = client.post("/v1/games/catchup/import", json={"format": "diagram", "text": post, "options": {"variant": "standard"}})
    assert r.status_code == 200, r.get_json()
    got = r.get_json()["state"]
    assert got == state and (got["ply"], got["bonus"], got["to_move"]) == (9, True, 1)
    played = client.post("/v1/games/catchup/play", json={"state": got, "move": "E1 E2 E3"}).get_json()
    assert played["legal"] and played["state"]["board"]["E3"] == 1, played
    too_long = client.post("/v1/games/catchup/import", json={"format": "diagram", "text": "x" * 200_001})
    assert too_long.status_code == 422 and too_long.get_json()["error"]["details"]["field"] == "text"  # the schema's bound


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(sorted(WALKS)),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 60),
    fmt=st.sampled_from(posts.FORMATS),
    named=st.booleans(),
    ending=st.sampled_from([None, "resign", "adjudicate", "abort"]),
)
def test_every_post_reads_back_as_its_state(kind: str, seed: int, plies: int, fmt: str, named: bool, ending: str | None) -> None:
    """Any position of any game, in any post format, with or without the players' names, ended by the
    game, a resignation, the umpire or not at all: pasted back, the same state."""
    moves = WALKS[kind](random.Random(seed), plies)
    if not moves:
        return
    before, events, after = moves[-1]
    game = ROOMS[after["game"]].game
    state = game.dump(game.load(after))
    if ending is not None and not game.is_over(game.load(state)):
        finished, events = {
            "resign": lambda s: game.resign(s, s.to_move),
            "adjudicate": lambda s: game.adjudicate(s, 1, "a test"),
            "abort": game.abort,
        }[ending](game.load(state))
        before, state = state, game.dump(finished)
    names = ["Ann @everyone", "Bob [x]"] if named else None
    post = views.post(state, events=events, before=before, names=names, png_url="https://umpire.test/b.png", format=fmt)
    assert diagram.read(state["game"], post).state == state, post


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
    assert diagram.read("bug", post).state == state
    options = diagram.read("bug", board_alone(post)).options  # whose turn: the post's "Red to move" line, under the block
    assert options == {"size": 3, "position": state["board"], "to_move": state["to_move"]}
    assert options["to_move"] == 0 and "Red to move" in post and len(state["board"]) == 4


def test_to_move_given_wins_over_the_line_under_the_diagram() -> None:
    game = ROOMS["product"].game
    state = game.dump(game.new({"size": 3, "position": {"A1": 0, "C3": 1}, "to_move": 1}))
    text = views.text(state)
    assert "White to move" in text and diagram.read("product", text).state == state
    assert diagram.read("product", text, to_move=1).state == state  # as the [State] line says
    chosen = diagram.read("product", text, to_move=0)  # a choice the line contradicts sets it aside
    assert chosen.options["to_move"] == 0 and chosen.state["to_move"] == 0 and chosen.state["board"] == state["board"]
    bare = "\n".join(line for line in board_alone(text).splitlines() if " to move" not in line)
    assert "to_move" not in diagram.read("product", bare).options  # then the game's own rule (from the stones' counts)


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
    state = client.post("/v1/games/plur/new", json={"options": r.get_json()["options"]}).get_json()["state"]
    assert r.get_json() == {
        "format": "diagram",
        "options": {"pie": True, "size": 3, "position": {"B2": 0}, "to_move": 1},
        "moves": [],
        "state": state,
    }
    assert state["board"] == {"B2": 0} and state["to_move"] == 1
    # an impossible position is the engine's to refuse, as `new` would
    r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": PLUR_3, "to_move": 7})
    assert r.status_code == 422 and r.get_json()["error"]["details"]["field"] == "to_move"
    crystal = client.post("/v1/games/crystal/import", json={"format": "diagram", "text": "A B"})
    assert crystal.status_code == 422 and crystal.get_json()["error"]["code"] == "bad_record"
    assert crystal.get_json()["error"]["message"].startswith("Line 1: a Crystal Connector diagram reads back with its [State")


def test_the_diagram_s_side_wins_over_a_size_sent(client: FlaskClient) -> None:
    """The rows tell the side: a size sent with the other options (even one no board has) is not read,
    where it once reached the board's own check, a ValueError and a 500."""
    for size in ("x", 9, True):
        r = client.post("/v1/games/plur/import", json={"format": "diagram", "text": PLUR_3, "options": {"size": size}})
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["options"]["size"] == 3


def test_a_crystal_post_reads_back_with_its_draft_and_totals(client: FlaskClient) -> None:
    """Crystal Connector's grid (R-H5) with its [State] line: the colours, who shifts first, the totals
    and the turns (R-X1, R-X3) come back; a seat sent that the line contradicts is refused, naming it."""
    game = ROOMS["crystal"].game
    state = game.new({"seed": "pasted", "anomalies": ["chameleons", "rocks", "spikes"]})
    for move in ("first", "red", "blue yellow", "second"):
        state = game.play(state, move).state
    state = game.play(state, game.complete_moves(state, limit=1).moves[0]).state
    data = game.dump(state)
    assert data["turns"] == [1, 0] and data["scores"] != [0, 0] and data["colors"] == [["red", "green"], ["blue", "yellow"]]
    post = views.post(data, format="bbcode")
    assert "@" in "".join(data["board"]) and "\uff3bState" in post  # a chameleon, and BBCode's brackets: both undone
    r = client.post("/v1/games/crystal/import", json={"format": "diagram", "text": post})
    assert r.status_code == 200 and r.get_json()["state"] == data, r.get_json()
    r = client.post("/v1/games/crystal/import", json={"format": "diagram", "text": post, "to_move": 0})
    assert r.status_code == 422 and r.get_json()["error"]["details"]["token"] == "[State"
    assert "has seat 1 to move, not seat 0 as sent" in r.get_json()["error"]["message"]
