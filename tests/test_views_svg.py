"""The SVG pictures of views/: golden files for fixed positions of every game,
variant and palette (``make golden`` rewrites them; look at them before
committing), well-formed XML, one ``data-cell`` element per playing cell,
colours only in the one ``<style>`` block, and the lines an umpire reads."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from viewcases import GOLDEN, bug_seed_example, catchup_worked_example, crystal_anomalies, golden_cases, plur_midgame

import views
from views.svgkit import colours

NS = "{http://www.w3.org/2000/svg}"
CASES = golden_cases()


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def cells_of(root: ET.Element) -> dict[str, ET.Element]:
    found: dict[str, ET.Element] = {}
    for el in root.iter():
        name = el.get("data-cell")
        if name is not None:
            assert name not in found, f"{name} has two data-cell elements"
            found[name] = el
    return found


def texts(root: ET.Element) -> list[str]:
    return [el.text or "" for el in root.iter(f"{NS}text")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_pictures(name: str) -> None:
    state, kw = CASES[name]()
    got = views.svg(state, **kw)
    path = GOLDEN / f"{name}.svg"
    assert path.exists(), f"{path} is missing: run make golden"
    assert got == path.read_text(encoding="utf-8"), f"{name} differs from its golden file: run make golden and look"


def test_every_golden_file_has_a_case() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.svg")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_well_formed_deterministic_and_one_element_per_playing_cell(name: str) -> None:
    state, kw = CASES[name]()
    svg = views.svg(state, **kw)
    assert svg == views.svg(state, **kw)  # same input, same bytes
    root = parse(svg)
    assert root.tag == f"{NS}svg"
    options = dict(state["options"])
    if state["game"] != "crystal":
        options["blocked"] = state.get("blocked", [])
    expected = {c["name"] for c in views.geometry(state["game"], options)["cells"]}
    assert set(cells_of(root)) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_colours_come_only_from_the_style_block(name: str) -> None:
    state, kw = CASES[name]()
    svg = views.svg(state, **kw)
    style = re.search(r"<style>.*?</style>", svg, re.S)
    assert style is not None and svg.count("<style>") == 1
    rest = svg.replace(style.group(0), "")
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|\b(fill|stroke)=", rest), "a colour outside the stylesheet"


def test_palettes_change_only_the_stylesheet() -> None:
    state, kw = CASES["catchup-midgame"]()
    kw.pop("palette", None)
    pictures = {p: views.svg(state, palette=p, **kw) for p in views.PALETTES}
    bodies = {re.sub(r"<style>.*?</style>", "", svg, flags=re.S) for svg in pictures.values()}
    assert len(bodies) == 1
    assert len(set(pictures.values())) == 3
    assert views.PALETTES == ("default", "colorblind", "print")


def test_print_is_black_and_white_and_grey() -> None:
    for role, colour in colours("print").items():
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert r == g == b, f"print palette: {role} is {colour}"


def test_stones_differ_by_a_mark_not_only_by_hue() -> None:
    # R-C2 pictures: player 0's stones carry a dot, player 1's a ring (fill none).
    state, kw = CASES["catchup-midgame"]()
    root = parse(views.svg(state, **kw))
    cells = cells_of(root)
    red, blue = cells["A1"], cells["D7"]
    assert [el.get("class") for el in red] == ["hex", "stone p0", "p0-mark"]
    assert [el.get("class") for el in blue] == ["hex last", "stone p1", "p1-mark"]
    assert float(red[2].get("r", 0)) < float(blue[2].get("r", 0))  # a dot against a ring
    css = re.search(r"<style>(.*?)</style>", views.svg(state, **kw), re.S)
    assert css is not None and ".p1-mark{fill:none" in css.group(1)


def test_the_last_move_is_marked_on_every_cell_it_placed() -> None:
    moves = catchup_worked_example()
    _, events, after = moves[2]  # Red B3 C1 D2
    root = parse(views.svg(after, events=events))
    cells = cells_of(root)
    marked = {name for name, el in cells.items() if "last" in (el[0].get("class") or "")}
    assert marked == {"B3", "C1", "D2"}
    assert "Last move (Red): B3 C1 D2" in texts(root)


def test_bug_marks_bonus_cells_and_eaten_bugs() -> None:
    # Seed 002: Blue B1 eats Red's A3-B4-C4 and grows to B3.
    _, events, after = bug_seed_example()[0]
    root = parse(views.svg(after, events=events))
    cells = cells_of(root)
    classes = {name: [el.get("class") for el in cell] for name, cell in cells.items()}
    assert classes["B1"][0] == "hex last"
    assert classes["B3"][0] == "hex bonus" and "badge" in classes["B3"]
    for cell in ("A3", "B4", "C4"):  # eaten: a dashed outline where the bug stood
        assert "eaten" in classes[cell]
    assert sum("eaten" in c for c in classes.values()) == 3
    assert any("bonus growth (B3)" in t and "eaten (A3, B4, C4)" in t for t in texts(root))


def test_labels_are_the_seeds() -> None:
    hexhex = parse(views.svg(CASES["catchup-midgame"]()[0]))
    labels = [el.text for el in hexhex.iter(f"{NS}text") if el.get("class") == "lbl"]
    assert labels == list("ABCDEFGHI")  # only the row letters on the left (seeds 000, 002)
    gm_state, kw = CASES["bug-green-meadow"]()
    gm = parse(views.svg(gm_state, **kw))
    labels = [el.text for el in gm.iter(f"{NS}text") if el.get("class") == "lbl"]
    assert labels == [*"123456", *"ABCDEFG"]  # R-H4 rows and diagonals
    black = [el for el in gm.iter(f"{NS}polygon") if el.get("class") == "off"]
    assert len(black) == 6 + 2  # the board's own six black cells and the two blackened
    crystal = parse(views.svg(crystal_anomalies()[2]))
    labels = [el.text for el in crystal.iter(f"{NS}text") if el.get("class") in ("lbl", "barred")]
    assert labels == [*"ABCDEF", *"123456"]


def test_coordinates_on_request() -> None:
    state, _ = CASES["catchup-midgame"]()
    plain = parse(views.svg(state))
    named = parse(views.svg(state, coords=True))
    assert not any(el.get("class", "").endswith("coord") for el in plain.iter())
    shown = {el.text for el in named.iter() if el.get("class", "").endswith("coord")}
    assert shown == set(cells_of(named))


def test_crystal_draws_every_piece_and_a_legend() -> None:
    _, events, after = crystal_anomalies()
    root = parse(views.svg(after, events=events))
    kinds: dict[str, int] = {}
    for el in (x for cell in cells_of(root).values() for x in cell.iter()):
        cls = (el.get("class") or "").split()
        if "piece" in cls:
            kinds[cls[1]] = kinds.get(cls[1], 0) + 1
        if "spiked" in cls:
            kinds["spiked"] = kinds.get("spiked", 0) + 1
    assert kinds == {"bomb": 2, "chameleon": 2, "pylon": 4, "rock": 4, "spiked": 8}
    on_board = {id(x) for cell in cells_of(root).values() for x in cell.iter()}
    legend = [el.get("class") for el in root.iter() if "piece" in (el.get("class") or "").split() and id(el) not in on_board]
    assert legend == ["piece bomb", "piece chameleon", "piece pylon", "piece rock"]  # the legend draws each once, small
    said = " ".join(texts(root))
    for word in ("* bomb", "@ chameleon", "+ pylon", "# rock", "r b g y spiked crystal"):
        assert word in said
    shifted = [el for el in root.iter(f"{NS}rect") if el.get("class") == "shifted"]
    assert len(shifted) == 2  # C down 1, 3 right 2
    assert "↓1" in texts(root) and "→2" in texts(root)


def test_scores_turn_and_result_lines() -> None:
    _, _, mid = catchup_worked_example()[1]
    said = texts(parse(views.svg(mid)))
    assert "Red: score 4, groups 4-3-2" in said and "Blue: score 4, groups 4-3-1-1" in said
    assert any(t.startswith("Red to move: up to 3 stones") for t in said)
    state, kw = CASES["crystal-finished"]()
    said = " ".join(texts(parse(views.svg(state, **kw))))
    assert "Player 1 (red, green): total 265" in said and "Player 1 wins 265 to 208" in said
    assert "Round 7" in said and "threshold 250" in said
    _, _, plur = plur_midgame()
    said = " ".join(texts(parse(views.svg(plur, names=["Ann", "Bob"]))))
    assert "Ann (black): groups 5" in said and "Bob (white): groups 5" in said


@pytest.mark.parametrize(
    ("end", "extra", "expect"),
    [
        ("resign", [{"type": "resign", "player": 0}], "Blue wins: Red resigned."),
        ("flag", [{"type": "flag", "player": 0}], "Blue wins on time: Red ran out of time (R-T1)."),
        (
            "illegal",
            [{"type": "illegal", "player": 0, "code": "occupied", "message": "C3 is already occupied."}],
            "Blue wins: Red forfeited with an illegal move: C3 is already occupied.",
        ),
        ("aborted", [], "The game was aborted: no result."),
    ],
)
def test_ends_that_are_not_moves(end: str, extra: list[dict[str, Any]], expect: str) -> None:
    _, _, state = catchup_worked_example()[0]
    state = {**state, "status": "finished", "to_move": None, "end": end, "winner": None if end == "aborted" else 1}
    events = [*extra, {"type": "end", "winner": state["winner"], "end": end}]
    root = parse(views.svg(state, events=events))
    assert expect in " ".join(texts(root)).replace("  ", " ")


def test_names_and_xml_are_escaped() -> None:
    _, _, state = catchup_worked_example()[0]
    svg = views.svg(state, names=['<Ann & "Co">', "Bob"])
    root = parse(svg)
    assert any(t.startswith('<Ann & "Co">: score') for t in texts(root))


def test_clock_in_the_picture() -> None:
    _, _, state = catchup_worked_example()[0]
    clock = {
        "seats": {"0": {"bank_s": 250.0}, "1": {"bank_s": 300.0, "deadline": "2026-11-22T12:06:00.000Z"}},
        "to_move": 1,
        "proxy": False,
        "now": "2026-11-22T12:00:13.000Z",
    }
    said = " ".join(texts(parse(views.svg(state, clock=clock))))
    assert "Clock: Red: bank 4:10; Blue: turn 0:47 left, bank 5:00" in said


def test_unknown_palette_and_game_are_value_errors() -> None:
    _, _, state = catchup_worked_example()[0]
    with pytest.raises(ValueError, match="no palette 'neon'"):
        views.svg(state, palette="neon")
    with pytest.raises(ValueError, match="no view for the game 'chess'"):
        views.svg({**state, "game": "chess"})
    with pytest.raises(ValueError, match="names must be two"):
        views.svg(state, names=["Solo"])
