"""Little Golem's Catchup records (seed 001's game, engine/games/catchup/littlegolem.py):
read into the seeds' notation, written back, and checked against the seed's final diagram."""

from __future__ import annotations

import random
import re

import pytest
from flask.testing import FlaskClient

from engine.games.catchup import littlegolem as lg
from engine.hexboard import hexhex
from engine.registry import get_game

CATCHUP = get_game("catchup")


# Seed 001's Little Golem record exactly as the seed prints it (its last lines; tabs as \t).
SEED_RECORD = (
    ":\tabcdefghijklmnopq\t\tB\tJ\n"
    ":\t. . . B j\t1.\t... i5\tg3 f6\n"
    ":\tj . j j b .\t2.\tf4 l7\tk5 d4\n"
    ":\tb j j b b . .\t3.\ti3 i7\td2 n4\n"
    ":\t. j b b j b j .\t4.\tl2 c3\tj2 k7\n"
    ":\t. b j j b j . . .\t5.\tl4 c5\tg5 j4\n"
    ":\t. j j . b b . .\t6.\th4 k3 j6\tg2 e3 e5\n"
    ":\tj b b b j . .\t7.\te7 g7\td6 c7 m1\n"
    ":\tB\t8.\td8 k1\tresign\n"
    ":\t9.\t\t\n"
    ":\tabcdefghijklmnopq\t\t\t\n"
)


def seed_record() -> str:
    """The seed's Little Golem record exactly as printed (diagram and turns side by side)."""
    return SEED_RECORD


def seed_diagram() -> dict[str, int]:
    """The stones of the seed's final diagram (b: the first player, j: the second; capitals: the last turn)."""
    board = hexhex(5)
    out = {}
    for r, line in enumerate(seed_record().splitlines()[1:9]):
        for i, sym in enumerate(line.split("\t")[1].split()):
            if sym != ".":
                out[board.name(board.rows[r][i])] = 0 if sym.lower() == "b" else 1
    return out


def test_doubled_columns_on_side_5() -> None:
    board = hexhex(5)
    # R-H1: row A has 5 cells on columns e g i k m; the centre E5 is i5; I5 is the bottom right
    assert [lg.lg_cell(board, f"A{i}") for i in range(1, 6)] == ["e1", "g1", "i1", "k1", "m1"]
    assert lg.lg_cell(board, "E5") == "i5"
    assert lg.lg_cell(board, "E1") == "a5" and lg.lg_cell(board, "E9") == "q5"
    assert lg.lg_cell(board, "I5") == "m9"
    assert all(lg.cell_of(board, lg.lg_cell(board, board.name(b))) == board.name(b) for b in board.cells)
    assert lg.cell_of(board, "f1") is None  # between two cells of row 1
    assert lg.cell_of(board, "a1") is None  # off the board


def test_the_seed_record_as_printed_has_a_cell_that_is_no_cell() -> None:
    # Seed 001's record is corrupt in two places; the first, "l7" on the line of turn 2, lies between
    # two cells of row 7 (its cells are on columns c e g i k m o), so the import names it
    with pytest.raises(lg.BadRecord) as caught:
        lg.read(seed_record())
    assert caught.value.line == 3 and caught.value.token == "l7"
    assert caught.value.to_json()["code"] == "bad_record"


def test_the_seed_game_with_its_two_corrupt_cells_mended_reaches_the_seed_diagram() -> None:
    """The two corrupt cells, found from the seed's final diagram: the diagram holds a first-player
    stone on F6 (Little Golem l6) and a second-player stone on B3 (h2) that no turn places, while the
    record has the first player's "l7" (no cell) in turn 2 and the second player's "g2" (no cell:
    row 2's cells are on columns d f h j l n) in turn 6.  Each is one keystroke off: l7 for l6, g2 for h2."""
    text = seed_record()
    assert text.count("l7") == 1 and text.count("g2 e3") == 1
    mended = text.replace("l7", "l6").replace("g2 e3", "h2 e3")
    options, moves = lg.read(mended)
    assert options == {"size": 5, "variant": "standard"}
    assert moves[:3] == ["E5", "C3 F3", "D3 F6"]  # R-C1: the opening turn is one stone
    assert moves[-1] == "resign 1"  # J resigns after the first player's 8th turn
    replay = CATCHUP.replay(options, moves)
    assert replay.valid, replay.first_illegal
    state = CATCHUP.dump(replay.state)
    assert state["end"] == "resign" and state["winner"] == 0
    assert {c: int(v) for c, v in state["board"].items()} == seed_diagram()


def test_a_record_round_trips_through_the_writer() -> None:
    options, moves = lg.read(seed_record().replace("l7", "l6").replace("g2 e3", "h2 e3"))
    text = lg.write(options, moves, ("Bert", "Jo"))
    assert text.splitlines()[0] == "abcdefghijklmnopq\t\tB\tJ"
    assert text.splitlines()[1] == "1.\t... i5\tg3 f6"
    assert lg.read(text) == (options, moves)


@pytest.mark.parametrize("side", [5, 7])
def test_random_games_round_trip(side: int) -> None:
    rng = random.Random(side)
    state = CATCHUP.new({"size": side})
    moves = []
    while CATCHUP.dump(state)["status"] == "ongoing" and len(moves) < 40:
        cells = CATCHUP.legal_moves(state).moves
        verdict = CATCHUP.play(state, rng.choice(cells))
        assert verdict.legal and verdict.move is not None
        moves.append(verdict.move)
        state = verdict.state
    options, back = lg.read(lg.write({"size": side}, moves))
    assert options["size"] == side and back == moves


@pytest.mark.parametrize(
    ("text", "line", "token"),
    [
        ("abcdefghijklmnopq\n1.\ti5\tz3\n", 2, "z3"),
        ("1.\ti5\tg3 f6\n3.\tf4\tk5\n", 2, "3."),
        ("1.\ti5\tg3\tf6\n", 1, "f6"),
        ("1.\ti5\tresign g3\n", 1, "resign"),
        ("no turns here\n", 1, ""),
    ],
)
def test_a_record_that_cannot_be_read_names_its_line_and_token(text: str, line: int, token: str) -> None:
    with pytest.raises(lg.BadRecord) as caught:
        lg.read(text)
    assert (caught.value.line, caught.value.token) == (line, token)
    assert caught.value.message.startswith(f"Line {line}:")


def _mended_seed_turns() -> list[str]:
    return lg.read(seed_record().replace("l7", "l6").replace("g2 e3", "h2 e3"))[1]


@pytest.mark.parametrize(
    "spacing",
    [
        pytest.param(lambda line: line.replace(".\t", ". ", 1), id="one space after the number"),
        pytest.param(lambda line: line.replace(".\t", ".  \t ", 1), id="spaces and a tab after the number"),
        pytest.param(lambda line: line.replace("\t", "   "), id="runs of spaces for every tab"),
        pytest.param(lambda line: line.replace(".\t", ". ", 1) + "  ", id="trailing spaces"),
    ],
)
def test_a_record_pasted_with_a_space_after_the_turn_number_is_read(spacing: object) -> None:
    """Issue 35: people paste ``1. ... i5<TAB>g3 f6`` (a space, not a tab, after the number); the turns read
    are those of the record as Little Golem writes it."""
    text = seed_record().replace("l7", "l6").replace("g2 e3", "h2 e3")
    pasted = "\n".join(spacing(line) if re.search(r"\d\.\t", line) else line for line in text.splitlines())  # type: ignore[operator]
    assert lg.read(pasted)[1] == _mended_seed_turns()


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("1. ... i5 g3 f6\n", "g3"),  # one player's turn or two? i5 is the opening, but g3 f6 may be either's
        ("1.\ti5\n2. f4 l7 k5 d4\n", "l7"),
    ],
)
def test_a_line_whose_two_turns_are_not_told_apart_is_refused_as_ambiguous(text: str, token: str) -> None:
    with pytest.raises(lg.BadRecord, match="ambiguous") as caught:
        lg.read(text)
    assert caught.value.token == token


def test_a_header_gives_the_board_size() -> None:
    assert lg.read("abcdefghijklm\t\tX\tO\n1.\tg4\t\n")[0]["size"] == 4  # 13 columns: side 4
    with pytest.raises(lg.BadRecord):
        lg.read("abcdefghijkl\n1.\tg4\n")  # 12 columns fit no hexhex board


# -- over HTTP: POST /v1/games/catchup/import ---------------------------------------------------


def test_the_seed_pasted_as_it_is_answers_422_naming_the_line_and_token(client: FlaskClient) -> None:
    r = client.post("/v1/games/catchup/import", json={"format": "littlegolem", "text": seed_record()})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["code"] == "bad_record" and error["details"] == {"field": "text", "line": 3, "token": "l7"}
    assert "l7" in error["message"]


def test_the_mended_seed_imports_and_replays_to_the_seed_diagram(client: FlaskClient) -> None:
    text = seed_record().replace("l7", "l6").replace("g2 e3", "h2 e3")
    r = client.post("/v1/games/catchup/import", json={"format": "LittleGolem", "text": text})
    assert r.status_code == 200
    body = r.get_json()
    assert body["format"] == "littlegolem" and body["options"] == {"size": 5, "variant": "standard"}
    replay = client.post("/v1/games/catchup/replay", json={"options": body["options"], "moves": body["moves"]}).get_json()
    assert replay["valid"] and replay["state"]["winner"] == 0 and replay["state"]["end"] == "resign"
    assert {c: int(v) for c, v in replay["state"]["board"].items()} == seed_diagram()


def test_formats_a_game_does_not_know(client: FlaskClient) -> None:
    r = client.post("/v1/games/catchup/import", json={"format": "sgf", "text": "(;GM[1])"})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "unknown_format"
    assert r.get_json()["error"]["details"] == {"formats": ["littlegolem", "diagram"]}  # diagram: views/diagram.py
    games = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    assert [f["name"] for f in games["catchup"]["records"]] == ["littlegolem", "diagram"]
    assert all("diagram" in [f["name"] for f in g["records"]] for g in games.values())  # every game's diagram reads back
    diagram_only = next(name for name, g in games.items() if [f["name"] for f in g["records"]] == ["diagram"])
    r = client.post(f"/v1/games/{diagram_only}/import", json={"format": "littlegolem", "text": "1. a1"})
    assert r.status_code == 422 and r.get_json()["error"]["details"] == {"formats": ["diagram"]}


def test_a_game_a_client_holds_is_exported_and_reads_back(client: FlaskClient) -> None:
    """POST /v1/games/catchup/export (issue 22: the page exports its game as Little Golem writes it)."""
    moves = ["E5", "C3 F3", "D3", "resign 1"]
    body = {"format": "littlegolem", "options": {"size": 5}, "moves": moves, "players": ["Ann", "Bob"]}
    r = client.post("/v1/games/catchup/export", json=body)
    assert r.status_code == 200 and r.mimetype == "text/plain"
    assert r.get_data(as_text=True) == lg.write({"size": 5}, moves, ["Ann", "Bob"])
    back = client.post("/v1/games/catchup/import", json={"format": "littlegolem", "text": r.get_data(as_text=True)})
    assert back.status_code == 200 and back.get_json()["moves"] == moves
    steps = client.post("/v1/games/catchup/export", json={**body, "moves": [["E5"], ["C3", "F3"], "D3", "resign 1"]})
    assert steps.status_code == 200 and steps.get_data() == r.get_data()  # a move sent as its steps (schemathesis: a 500)
    wrong = client.post("/v1/games/catchup/export", json={**body, "moves": ["E5", "E5"]})
    error = wrong.get_json()["error"]
    assert wrong.status_code == 422 and error["code"] == "bad_record" and error["details"] == {"line": 2, "token": "E5"}
    assert error["message"].startswith("Move 2, E5, does not replay: ")
    games = {g["name"]: g for g in client.get("/v1/games").get_json()["games"]}
    bare = next(name for name, g in games.items() if [f["name"] for f in g["records"]] in ([], ["diagram"]))
    assert client.post(f"/v1/games/{bare}/export", json={"format": "littlegolem", "moves": []}).status_code == 404


@pytest.mark.parametrize("entry", ["abort", "adjudicate 1", "adjudicate draw", "timeout"])
def test_an_end_that_is_no_turn_ends_the_table_as_a_comment(entry: str) -> None:
    """A managed match's record may end with the umpire's adjudication (issue 22): Little Golem has no word for it."""
    text = lg.write({"size": 5}, ["E5", "D4 D6", entry])
    assert text.splitlines()[-1] == f"# {entry}"


# -- what a Little Golem record cannot carry ---------------------------------------------------------

SET_UP = [
    ({"size": 5, "position": {"E5": 0, "D4": 1}}, "options.position", "set-up position"),
    ({"size": 5, "blocked": ["A1"]}, "options.blocked", "blocked cells"),
    ({"size": 5, "bonus": True}, "options.bonus", "opening bonus"),
    ({"size": 5, "to_move": 1}, "options.to_move", "player 0 to move"),
    ({"size": 5, "variant": "mindsports"}, "options.variant", "standard rules (R-C3)"),
    ({"size": 5, "variant": "ludii"}, "options.variant", "standard rules (R-C3)"),
]


@pytest.mark.parametrize(("options", "field", "words"), SET_UP)
def test_a_game_the_record_cannot_carry_is_refused_not_written_wrong(options: dict[str, object], field: str, words: str) -> None:
    """A record starts from the empty board under the standard rules: without the check the writer
    dropped the set-up position and wrote a record that replays to another game."""
    with pytest.raises(lg.BadOptions) as caught:
        lg.write(options, ["C3"])
    assert caught.value.field == field and words in caught.value.message


@pytest.mark.parametrize(
    "options",
    [{"size": 5}, {"size": 5, "variant": "littlegolem", "position": {}, "blocked": [], "bonus": False, "to_move": 0}],
)
def test_options_that_say_the_empty_board_are_written(options: dict[str, object]) -> None:
    assert lg.write(options, ["E5"]).splitlines()[1] == "1.\t... i5\t"


def test_exporting_a_set_up_game_answers_422_naming_the_option(client: FlaskClient) -> None:
    """POST /v1/games/catchup/export of a game begun from a position (it replays: the engine takes it)."""
    options = {"size": 3, "position": {"A1": 0, "C3": 1}}
    body = {"format": "littlegolem", "options": options, "moves": ["B2"], "players": ["Ann", "Bob"]}
    assert client.post("/v1/games/catchup/replay", json={"options": options, "moves": ["B2"]}).status_code == 200
    r = client.post("/v1/games/catchup/export", json=body)
    error = r.get_json()["error"]
    assert r.status_code == 422 and error["code"] == "bad_options", error
    assert "options.position" in str(error["details"]) and "start from the empty board" in error["message"]


def test_a_record_with_a_space_after_the_turn_number_imports_over_http(client: FlaskClient) -> None:
    """Issue 35, "Contract details": ``POST /v1/games/catchup/import`` reads ``1. ... i5<TAB>g3 f6``."""
    text = "1. ... i5\tg3 f6\n2. f4 l6\tk5 d4\n"
    r = client.post("/v1/games/catchup/import", json={"format": "littlegolem", "text": text})
    assert r.status_code == 200, r.get_json()
    assert (
        r.get_json()["moves"] == lg.read("1.\t... i5\tg3 f6\n2.\tf4 l6\tk5 d4\n")[1] == ["E5", "C3 F3", "D3 F6", "E6 D2"]
    )  # g3 is C3, i5 the centre E5
