"""Pictures, posts, geometry and the step-by-step legal moves over HTTP, all
through the spec-checked client (SVG, PNG, plain text and Markdown answers
included); the umpire's announcements in every verdict, on the seeds'
worked examples (seed 002's Bug example, seed 000's tie-breaks and worked
example, seed 003's scoring example)."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from PIL import Image
from test_catchup import TIE_BREAK_1, TIE_BREAK_2
from test_views_png import dark, dark_pixels
from viewcases import (
    bug_seed_example,
    catchup_last_stone,
    catchup_worked_example,
    crystal_anomalies,
    crystal_finished,
    crystal_seed_example,
)

import views
from engine.registry import GAMES
from service.web import schemas

Json = dict[str, Any]


def post(client: FlaskClient, game: str, what: str, body: Json, status: int = 200) -> Any:
    resp = client.post(f"/v1/games/{game}/{what}", json=body)
    assert resp.status_code == status, resp.get_data(as_text=True)
    return resp


def field_of(resp: Any) -> str:
    assert resp.status_code == 422
    field: str = resp.get_json()["error"]["details"]["field"]
    return field


def test_the_palettes_are_the_views(client: FlaskClient) -> None:
    assert schemas.PALETTES == views.PALETTES


# -- render -------------------------------------------------------------------------------------


def test_svg_is_the_views_picture_with_a_cell_element_per_playing_cell(client: FlaskClient) -> None:
    _, events, after = catchup_worked_example()[1]
    resp = post(client, "catchup", "render", {"state": after, "events": events, "palette": "colorblind", "coords": True})
    assert resp.mimetype == "image/svg+xml"
    svg = resp.get_data(as_text=True)
    assert svg == views.svg(after, events=events, palette="colorblind", coords=True)
    cells = re.findall(r'data-cell="([A-Z][0-9]+)"', svg)
    assert sorted(cells) == sorted(c["name"] for c in views.geometry("catchup", after["options"])["cells"])


def test_before_and_move_mark_the_move_as_its_events_would(client: FlaskClient) -> None:
    before, events, after = catchup_worked_example()[1]
    by_move = post(client, "catchup", "render", {"state": after, "before": before, "move": "d7 f8", "names": ["Ann", "Bob"]})
    svg = by_move.get_data(as_text=True)
    assert svg == views.svg(after, events=events, names=["Ann", "Bob"])
    assert "Last move (Bob): D7 F8" in svg
    assert re.search(r'data-cell="D7"><polygon class="hex last"', svg)


def test_text_is_the_seeds_diagram(client: FlaskClient) -> None:
    _, events, after = bug_seed_example()[0]
    resp = post(client, "bug", "render", {"state": after, "events": events, "format": "text"})
    assert resp.mimetype == "text/plain"
    assert resp.get_data(as_text=True) == views.text(after, events=events)


@pytest.mark.parametrize("width", [None, 300, 900])
def test_png_decodes_at_the_width_asked_and_shows_text(client: FlaskClient, width: int | None) -> None:
    _, events, state = crystal_anomalies()
    body: Json = {"state": state, "events": events, "format": "png"}
    if width:
        body["width"] = width
    resp = post(client, "crystal", "render", body)
    assert resp.mimetype == "image/png"
    im = Image.open(io.BytesIO(resp.get_data()))
    im.load()
    natural = re.search(r'width="([\d.]+)"', views.svg(state, events=events))
    assert natural is not None
    assert im.width == (width or round(float(natural.group(1))))
    grey = im.convert("L")
    geo = views.geometry("crystal", state["options"])
    scale = im.width / float(natural.group(1))
    for label in geo["labels"] if scale >= 1 else ():  # the file labels A-F, 1-6 (too small to count below full size)
        assert dark(grey, label["x"] * scale, label["y"] * scale, round(8 * scale)) > 3, label
    title = grey.crop((0, int(geo["height"] * scale), im.width, int((geo["height"] + 30) * scale)))
    assert dark_pixels(title) > 50 * scale


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"state": {"game": "catchup"}}, "state"),
        ({"format": "gif"}, "format"),
        ({"palette": "neon"}, "palette"),
        ({"names": ["Ann"]}, "names"),
        ({"width": 5, "format": "png"}, "width"),
        ({"move": "C3"}, "before"),
        ({"events": [1]}, "events.0"),
        ({"names": ["Ann", " "]}, "names.1"),  # blank
        ({"before": None}, "before"),  # null is no state (leave it out instead)
        ({"width": 300.5, "format": "png"}, "width"),
    ],
)
def test_render_names_what_is_wrong(client: FlaskClient, body: Json, field: str) -> None:
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 3}}).get_json()["state"]
    resp = client.post("/v1/games/catchup/render", json={"state": state, **body})
    assert field_of(resp).startswith(field)


def test_render_checks_the_states_and_the_move(client: FlaskClient) -> None:
    before, _, after = catchup_worked_example()[1]
    bad = {**after, "board": {**after["board"], "Z9": 0}}
    assert field_of(client.post("/v1/games/catchup/render", json={"state": bad})) == "state.board.Z9"
    resp = client.post("/v1/games/catchup/render", json={"state": after, "before": bad, "move": "D7 F8"})
    assert field_of(resp) == "before.board.Z9"
    other = next(m for m in GAMES["catchup"].legal_moves(GAMES["catchup"].load(before)).moves if m not in ("D7", "F8"))
    resp = client.post("/v1/games/catchup/render", json={"state": after, "before": before, "move": other})
    assert field_of(resp) == "move" and "does not give the state sent" in resp.get_json()["error"]["message"]
    resp = client.post("/v1/games/catchup/render", json={"state": after, "before": before, "move": "B4"})
    assert field_of(resp) == "move" and "B4 is already occupied" in resp.get_json()["error"]["message"]
    resp = client.post("/v1/games/bug/render", json={"state": after})  # a Catchup state sent to Bug
    assert field_of(resp).startswith("state")


def test_names_no_picture_or_text_can_hold_are_drawn_as_replacement_characters(client: FlaskClient) -> None:
    """A name may hold control characters (XML has no room for them); each is drawn as
    U+FFFD, never a failure.  (A lone surrogate, sent as a JSON escape, is no text at
    all: 422 naming the field, tests/test_wrong_answers.py.)"""
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 3}}).get_json()["state"]
    names = ["Ann\x16", "Bob\x7f\x1b"]
    png = post(client, "catchup", "render", {"state": state, "names": names, "format": "png", "width": 200})
    assert Image.open(io.BytesIO(png.data)).size[0] == 200
    svg = post(client, "catchup", "render", {"state": state, "names": names}).get_data(as_text=True)
    assert "Ann\ufffd" in svg and "\x16" not in svg
    text = post(client, "catchup", "post", {"state": state, "names": names}).get_data(as_text=True)
    assert "Bob" in text
    assert post(client, "catchup", "render", {"state": state, "width": 300.0, "format": "png"}).status_code == 200  # 300.0 is 300


# -- announcements in verdicts ------------------------------------------------------------------


def test_play_announces_seed_002s_bug_example(client: FlaskClient) -> None:
    for before, events, after in bug_seed_example():
        move = next(e["cell"] for e in events if e["type"] == "grow")
        move += "".join(f" {e['bonus']}" for e in events if e["type"] == "eat")
        verdict = post(client, "bug", "play", {"state": before, "move": move}).get_json()
        assert verdict["state"] == after
        assert verdict["announcements"] == views.announcements(before, events, after)
    blue = post(client, "bug", "play", {"state": bug_seed_example()[0][0], "move": "B1 B3"}).get_json()
    assert blue["announcements"][1].startswith("Blue's bend 3-bug A2-B1-B2 eats Red's congruent bend 3-bug A3-B4-C4")


@pytest.mark.parametrize("diagram", [TIE_BREAK_1, TIE_BREAK_2])
def test_play_announces_seed_000s_tie_breaks(client: FlaskClient, diagram: str) -> None:
    before, events, after = catchup_last_stone(diagram, 1)
    cell = next(e["cells"][0] for e in events if e["type"] == "place")
    verdict = post(client, "catchup", "play", {"state": before, "move": cell}).get_json()
    said = verdict["announcements"]
    assert said == views.announcements(before, events, after)
    assert "The board is full: the game is over (R-C4)." in said
    assert any(s.startswith(("Red wins: ", "Blue wins: ")) and "group" in s for s in said)


def test_play_and_replay_announce_seed_003s_scoring(client: FlaskClient) -> None:
    state = GAMES["crystal"].dump(crystal_seed_example())
    verdict = post(client, "crystal", "play", {"state": state, "move": "B down 3, B up 1, B up 2"}).get_json()
    assert any("35" in s for s in verdict["announcements"]), verdict["announcements"]  # red 7 x green 5 (R-X3)
    assert verdict["announcements"] == views.announcements(state, verdict["events"], verdict["state"])
    before, events, after = crystal_finished()
    finished = post(client, "crystal", "play", {"state": before, "move": "B down 3, B up 1, B up 2"}).get_json()
    assert finished["announcements"] == views.announcements(before, events, after)
    options = {"grid": state["board"], "colors": state["colors"], "first": 0}
    replay = post(client, "crystal", "replay", {"options": options, "moves": ["B down 3, B up 1, B up 2"]}).get_json()
    assert replay["announcements"] == verdict["announcements"] and replay["move"] == "B down 3, B up 1, B up 2"


# -- posts --------------------------------------------------------------------------------------


def test_the_post_of_seed_002s_bug_example(client: FlaskClient) -> None:
    before, events, after = bug_seed_example()[0]
    png = "https://umpire.example/v1/matches/m1/board.png?ply=7"
    resp = post(client, "bug", "post", {"state": after, "before": before, "move": "B1 B3", "png_url": png, "ply": 7})
    assert resp.mimetype == "text/markdown"
    text = resp.get_data(as_text=True)
    assert text == views.post(after, events=events, before=before, move="B1 B3", png_url=png, ply=7)
    for sentence in views.announcements(before, events, after):
        assert f"- {views.posts.md_escape(sentence)}" in text
    assert f"(<{png}>)" in text and "```text" in text
    assert text.startswith("**Bug (genius), ply 7: Blue plays B1 B3**")


def test_the_post_of_seed_000s_worked_example_with_a_clock(client: FlaskClient) -> None:
    _, events, after = catchup_worked_example()[2]
    clock = {
        "to_move": 1,
        "now": "2026-11-22T12:00:00.000Z",
        "seats": {"0": {"bank_s": 250.0}, "1": {"bank_s": 250.0, "deadline": "2026-11-22T12:05:57.000Z"}},
    }
    text = post(client, "catchup", "post", {"state": after, "events": events, "clock": clock}).get_data(as_text=True)
    assert "Red's score rises from 4 to 6." in text
    assert "- Red: bank 4:10" in text and "- Blue: turn 1:47 left, bank 4:10" in text


def seed_examples() -> list[tuple[str, Json, list[Json], Json]]:
    """(name, before, events, after) of the seeds' worked examples: seed 002's Bug eats, seed 000's two
    tie-break boards filled by their last stone, seed 003's scoring example (red 7 x green 5 = 35)."""
    out = [(f"bug-{i}", *move) for i, move in enumerate(bug_seed_example())]
    out += [(f"tie-break-{i}", *catchup_last_stone(d, 1)) for i, d in enumerate((TIE_BREAK_1, TIE_BREAK_2))]
    crystal = GAMES["crystal"]
    start = crystal_seed_example()
    verdict = crystal.play(start, "B down 3, B up 1, B up 2")
    out.append(("crystal-scoring", crystal.dump(start), verdict.events, crystal.dump(verdict.state)))
    return out


@pytest.mark.parametrize(("name", "before", "events", "after"), seed_examples(), ids=[e[0] for e in seed_examples()])
def test_the_post_of_each_seed_example_carries_its_announcements(
    client: FlaskClient, name: str, before: Json, events: list[Json], after: Json
) -> None:
    said = views.announcements(before, events, after)
    assert said
    if name.startswith("tie-break"):
        assert any(" beat " in s and "(R-C4)" not in s for s in said)  # the sentence gives the groups that decided
    if name == "crystal-scoring":
        assert any("35" in s for s in said)
    text = post(client, after["game"], "post", {"state": after, "before": before, "events": events}).get_data(as_text=True)
    for sentence in said:
        assert f"- {views.posts.md_escape(sentence)}" in text


# -- geometry -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "query", "options"),
    [
        ("catchup", "size=4", {"size": 4}),
        ("catchup", "size=3&blocked=A1,E3", {"size": 3, "blocked": ["A1", "E3"]}),
        ("bug", "variant=green-meadow", {"variant": "green-meadow"}),
        ("bug", "", {}),
        ("crystal", "", {}),
        ("too", "size=2", {"size": 2}),
    ],
)
def test_board_geometry(client: FlaskClient, game: str, query: str, options: Json) -> None:
    resp = client.get(f"/v1/games/{game}/board?{query}")
    assert resp.status_code == 200
    assert resp.get_json() == views.geometry(game, options)


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("size=x", "size"),
        ("colour=red", "colour"),
        ("bonus=maybe", "bonus"),
        ("size=%C2%B2", "size"),  # '²': a digit to str.isdigit that int() refuses (a 500 once)
        ("size=-%C2%B2", "size"),
        ("size=%D9%A4", "size"),  # Arabic-Indic four, which int() reads as 4: not a number a client writes
    ],
)
def test_board_geometry_names_the_unreadable_parameter(client: FlaskClient, query: str, parameter: str) -> None:
    resp = client.get(f"/v1/games/catchup/board?{query}")
    assert resp.status_code == 422
    err = resp.get_json()["error"]
    assert err["code"] == "invalid_query" and err["details"] == {"parameter": parameter}


@pytest.mark.parametrize(
    ("query", "options", "field"),
    [
        ("size=99", {"size": 99}, "options.size"),
        ("blocked=Z9", {"blocked": ["Z9"]}, "options.blocked.0"),
        ("variant=hex", {"variant": "hex"}, "options.variant"),
    ],
)
def test_board_geometry_refuses_options_as_new_does(client: FlaskClient, query: str, options: Json, field: str) -> None:
    """Readable options that set up no board are refused by the engine, as `new` refuses them (R-C5, R-H3)."""
    resp = client.get(f"/v1/games/catchup/board?{query}")
    assert resp.status_code == 422
    err = resp.get_json()["error"]
    assert err["code"] == "bad_options" and list(err["details"]["fields"]) == [field]
    assert err == client.post("/v1/games/catchup/new", json={"options": options}).get_json()["error"]


# -- legal moves step by step ---------------------------------------------------------------------


def steps(client: FlaskClient, game: str, state: Json, prefix: list[str]) -> Json:
    out: Json = post(client, game, "legal-moves", {"state": state, "prefix": prefix}).get_json()
    return out


def test_a_catchup_move_built_by_clicks(client: FlaskClient) -> None:
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 3}}).get_json()["state"]
    first = steps(client, "catchup", state, [])
    assert first["prefix"] == [] and first["count"] == 19 and first["complete"] is False and first["move"] is None
    one = steps(client, "catchup", state, ["c3"])
    assert one == {"prefix": ["C3"], "steps": [], "count": 0, "complete": True, "move": "C3"}
    wrong = steps(client, "catchup", state, ["C3", "B2"])  # the first turn places exactly one stone (R-C1)
    assert wrong["prefix"] == ["C3"] and wrong["error"]["code"] == "too_many_stones" and wrong["error"]["rule"] == "R-C1"
    plain = post(client, "catchup", "legal-moves", {"state": state}).get_json()
    assert set(plain) == {"moves", "count", "truncated", "complete", "max_stones", "bonus"}


def test_a_bug_move_built_by_clicks_grow_then_bonus(client: FlaskClient) -> None:
    before = bug_seed_example()[0][0]
    grow = steps(client, "bug", before, ["B1"])
    assert grow["complete"] is False and "B3" in grow["steps"]  # the eat is mandatory (R-B4): a bonus cell must follow
    done = steps(client, "bug", before, ["B1", "B3"])
    assert done["complete"] is True and done["move"] == "B1 B3"
    wrong = steps(client, "bug", before, ["B1", "E3"])
    assert wrong["error"]["step"] == 1 and wrong["error"]["rule"] == "R-B4" and wrong["prefix"] == ["B1"]


def test_a_crystal_turn_built_shift_by_shift(client: FlaskClient) -> None:
    state = GAMES["crystal"].dump(crystal_seed_example())
    first = steps(client, "crystal", state, [])
    assert "C up 2" in first["steps"] and first["complete"] is False
    done = steps(client, "crystal", state, ["C up 2", "2 right 3", "A down 1"])
    assert done["complete"] is True and done["move"] == "C up 2, 2 right 3, A down 1"


ODD_EVENTS: list[list[Json]] = [
    [{}],
    [{"type": "place", "player": 5, "cells": [1, 2]}],
    [{"type": "place", "cells": "A1"}],
    [{"type": "eat", "eaten": "x", "bonus": 3, "bug": 7}],
    [{"type": "grow", "cell": None}],
    [{"type": "shifts", "shifts": 5}],
    [{"type": "end", "winner": 9, "groups": "x"}],
    [{"type": "score", "player": 0, "from": "a", "to": None}],
    [{"type": "pick", "colors": 3}],
    [{"type": "spikes", "points": "x"}],
    [{"type": "swap", "cell": []}],
]
ODD_CLOCKS: list[Json] = [
    {"seats": 5},
    {"seats": {"0": {"bank_s": "x"}}, "to_move": 0, "now": 5},
    {"proxy": True, "to_move": 0, "seats": {"0": {"deadline": "2020-01-01T00:00:00Z", "bank_s": 1}}, "now": "2020-01-01"},
]


@pytest.mark.parametrize("game", list(GAMES))
def test_events_and_clocks_a_client_makes_up_are_answered_never_a_failure(client: FlaskClient, game: str) -> None:
    """The views read events as the engine writes them; made-up ones are a 422 naming them (or a picture)."""
    state = client.post(f"/v1/games/{game}/new", json={"options": {"seed": 1} if game == "crystal" else {}}).get_json()["state"]
    for events in ODD_EVENTS:
        for what, extra in (("render", {"format": "svg"}), ("render", {"format": "text"}), ("post", {})):
            resp = client.post(f"/v1/games/{game}/{what}", json={"state": state, "events": events, **extra})
            assert resp.status_code in (200, 422), (what, events, resp.get_data(as_text=True))
            if resp.status_code == 422:
                assert field_of(resp) == "events"
    for clock in ODD_CLOCKS:
        for what in ("render", "post"):
            resp = client.post(f"/v1/games/{game}/{what}", json={"state": state, "clock": clock})
            assert resp.status_code in (200, 422), (what, clock, resp.get_data(as_text=True))
