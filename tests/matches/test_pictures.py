"""A managed match's pictures and posts, now and at any earlier ply, on real
Redis through the spec-checked client: rebuilt from the record by
service/matches/history.py, cached when the position can no longer change (ETag,
Cache-Control, 304), the post's link to its PNG and its clock in words."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch
from PIL import Image
from test_records import play_some

import views
from engine.registry import GAMES
from service.matches.history import history
from service.matches.store import Store


def get(client: FlaskClient, m: Match, what: str, status: int = 200, **query: Any) -> Any:
    resp = client.get(f"/v1/matches/{m.id}/{what}", query_string=query)
    assert resp.status_code == status, resp.get_data(as_text=True)
    return resp


def test_history_rebuilds_every_ply_from_the_record(store: Store, new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock="catchup")
    final = play_some(m, "catchup", 4, fake_clock)
    latest = history(store, m.id, None)
    assert (latest.ply, latest.last_ply, latest.state, latest.finished) == (4, 4, final, False)
    assert latest.clock is not None and latest.clock["to_move"] == final["to_move"]
    start = history(store, m.id, 0)
    assert start.state == GAMES["catchup"].dump(GAMES["catchup"].new({"size": 3}))
    assert (start.before, start.move, start.events, start.clock) == (None, None, [], None)
    record = m.record()["moves"]
    for ply in range(1, 5):
        h = history(store, m.id, ply)
        assert h.move == record[ply - 1]["move"] and h.events == record[ply - 1]["events"]
        assert h.before == history(store, m.id, ply - 1).state and h.state["ply"] == ply
        assert h.settled == (ply < 4) and (h.clock is None) == (ply < 4)
    assert not latest.settled


def test_pictures_of_every_ply(client: FlaskClient, new_match: NewMatch, store: Store) -> None:
    m = new_match("bug", {})
    play_some(m, "bug", 3)
    for ply in range(4):
        h = history(store, m.id, ply)
        svg = get(client, m, "board.svg", ply=ply).get_data(as_text=True)
        assert svg == views.svg(h.state, events=h.events, clock=h.clock)  # the latest shows the running clock
    latest = get(client, m, "board.svg", names="Ann,Bob", coords="true", palette="print").get_data(as_text=True)
    h = history(store, m.id, None)
    assert latest == views.svg(h.state, events=h.events, names=["Ann", "Bob"], coords=True, palette="print", clock=h.clock)
    assert "Clock: Ann: " in latest


def test_a_png_of_the_match(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 2)
    resp = get(client, m, "board.png", ply=1, width=320)
    im = Image.open(io.BytesIO(resp.get_data()))
    assert resp.mimetype == "image/png" and im.width == 320


def test_earlier_plies_are_cached_and_the_running_position_is_not(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 3)
    for what, query in (("board.svg", {}), ("board.png", {"width": 200}), ("post", {})):
        old = get(client, m, what, ply=1, **query)
        etag = old.headers["ETag"]
        assert old.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        again = client.get(f"/v1/matches/{m.id}/{what}", query_string={"ply": 1, **query}, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.headers["ETag"] == etag and not again.get_data()
        assert get(client, m, what, ply=2, **query).headers["ETag"] != etag
        now = get(client, m, what, **query)
        assert now.headers["Cache-Control"] == "no-store" and "ETag" not in now.headers
    # another width is another picture
    assert get(client, m, "board.png", ply=1, width=200).headers["ETag"] != get(client, m, "board.png", ply=1).headers["ETag"]


def test_a_finished_match_is_cached_at_its_end(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 2)
    assert m.resign(0).status_code == 200
    end = get(client, m, "board.svg")
    assert "ETag" in end.headers and "Blue wins: Red resigned." in end.get_data(as_text=True)
    post = get(client, m, "post").get_data(as_text=True)
    # A resignation is no move: the position keeps the ply of the last move (issue 22: one numbering),
    # and the post's picture is the finished match's latest, named without a ply.
    assert post.startswith("**Catchup (standard), ply 2**") and "- Red resigns." in post
    assert "**Blue wins: Red resigned.**" in post
    assert f"(<http://localhost/v1/matches/{m.id}/board.png>)" in post
    before = get(client, m, "post", ply=2).get_data(as_text=True)  # ply 2: the position before the resignation
    assert before.startswith("**Catchup (standard), ply 2: Blue plays") and "Red to move" in before and "resign" not in before


def test_after_an_illegal_attempt_the_post_links_the_position_by_its_ply(client: FlaskClient, new_match: NewMatch) -> None:
    """An illegal attempt (the reject policy) leaves the position and its ply as they were, and the match
    goes on: the post's picture must name that ply, not "the latest", which the next move changes."""
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 2)
    occupied = next(iter(m.state()["board"]))
    assert m.move(0, occupied, 2).status_code == 422  # R-C1: a stone goes on an empty cell
    post = get(client, m, "post").get_data(as_text=True)
    assert f"(<http://localhost/v1/matches/{m.id}/board.png?ply=2>)" in post


BUG_POSITION = {"A1": 0, "A2": 1, "A3": 0, "B2": 1, "B4": 0, "C1": 0, "C4": 0, "D1": 0, "D2": 1, "E1": 0, "E2": 1, "E3": 1}


def test_ply_is_the_position_s_own_ply_in_a_match_set_up_from_a_position(client: FlaskClient, new_match: NewMatch) -> None:
    """Issue 22: ``?ply=N``, the post's heading, the picture's title and the post's link to its
    PNG all give the state's ply.  A Bug position set up with 13 stones starts at ply 13; the
    page once asked for ``?ply=1`` and got a post headed "ply 1" over a picture saying "ply 14"."""
    m = new_match("bug", {"size": 3, "position": BUG_POSITION, "to_move": 1})
    assert m.state()["ply"] == 13
    assert m.move(1, "B1 B3", 13).status_code == 200
    post = get(client, m, "post", ply=14).get_data(as_text=True)
    assert post.startswith("**Bug (genius), ply 14: Blue plays B1 B3**")
    assert "![The board of Bug (genius), side 3, ply 14, after Blue plays B1 B3. " in post
    assert f"(R-B3, R-B4)](<http://localhost/v1/matches/{m.id}/board.png?ply=14>)" in post
    svg = get(client, m, "board.svg", ply=13).get_data(as_text=True)
    assert "side 3, ply 13" in svg and "B1" not in re.findall(r'class="last"[^>]*data-cell="(\w+)"', svg)
    assert "ply 14" in get(client, m, "board.svg", ply=14).get_data(as_text=True)
    for wrong in (0, 12, 15):
        error = get(client, m, "board.svg", 422, ply=wrong).get_json()["error"]
        assert error["code"] == "ply_not_reached" and error["details"] == {"parameter": "ply", "last": 14}
        assert "from 13 to 14" in error["message"]


def test_the_post_links_its_png_and_says_the_clocks(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 60, "bank_s": 250})
    play_some(m, "catchup", 2, fake_clock)
    fake_clock.advance(13.2)  # Red's turn has run 13.2 s of its 60
    resp = get(client, m, "post", names="Ann,Bob")
    assert resp.mimetype == "text/markdown"
    text = resp.get_data(as_text=True)
    assert f"(<http://localhost/v1/matches/{m.id}/board.png?ply=2&names=Ann,Bob>)" in text
    assert "- Ann: turn 0:46 left, bank 4:10" in text and "- Bob: bank 4:10" in text
    assert "**Ann to move: " in text
    record = m.record()["moves"]
    assert f"Bob places {' and '.join(record[1]['move'].split())}." in text
    old = get(client, m, "post", ply=1).get_data(as_text=True)
    assert "board.png?ply=1>)" in old and "Clock:" not in old
    assert re.search(r"```text\n.*\n```", get(client, m, "post", ply=0).get_data(as_text=True), re.S)


@pytest.mark.parametrize("fmt", ["markdown", "discord", "bbcode", "text"])
def test_names_in_the_picture_link_are_percent_encoded(client: FlaskClient, new_match: NewMatch, fmt: str) -> None:
    """Issue 35: the link echoed ``names=@everyone,Bob`` as sent; a mention cannot sit in a link line."""
    m = new_match("catchup", {"size": 3})
    text = get(client, m, "post", names="@everyone,[Bob](x)", format=fmt).get_data(as_text=True)
    link = re.findall(r"http://localhost/v1/matches/\S*?board\.png[^\s>\[]*", text)[0]
    assert link.endswith("board.png?ply=0&names=%40everyone,%5BBob%5D%28x%29"), link
    assert "@everyone" not in text  # the names said elsewhere are defused too (a zero-width space after @)


def test_the_post_in_each_format_for_where_the_umpire_posts(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock
) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 60, "bank_s": 250})
    play_some(m, "catchup", 2, fake_clock)
    png = f"http://localhost/v1/matches/{m.id}/board.png?ply=2"
    discord = get(client, m, "post", format="discord")
    assert discord.mimetype == "text/markdown" and png in discord.get_data(as_text=True).splitlines()
    bb = get(client, m, "post", format="bbcode")
    assert bb.mimetype == "text/plain" and f"[img]{png}[/img]" in bb.get_data(as_text=True)
    plain = get(client, m, "post", format="text").get_data(as_text=True)
    assert png in plain.splitlines() and "**" not in plain
    refused = get(client, m, "post", 422, format="html")
    assert refused.status_code == 422 and refused.get_json()["error"]["details"]["parameter"] == "format"


def test_the_records_own_entries_a_flag_and_a_pass(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    options = {"seed": "pictures", "colors": [["red", "green"], ["blue", "yellow"]], "first": 0}
    m = new_match("crystal", options, clock={"turn_s": 1, "bank_s": 0})
    fake_clock.advance(2.5)  # seat 0 flags; its proxy window lapses: the turn passes (R-X6), a `timeout` entry
    post = get(client, m, "post", ply=1).get_data(as_text=True)
    assert post.startswith("**Crystal Connector (no anomalies), ply 1: Player 1's turn passes with no shifts (R-X6)**")
    assert "- Player 1 ran out of time" in post


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ({"ply": 3}, "ply"),
        ({"ply": "x"}, "ply"),
        ({"palette": "neon"}, "palette"),
        ({"names": "Ann"}, "names"),
        ({"width": 9}, "width"),
        ({"ply": "²"}, "ply"),  # a digit to str.isdigit that int() refuses: a 500 once
        ({"ply": "٣"}, "ply"),  # Arabic-Indic three, which int() reads as 3: ASCII digits only
        ({"width": "①"}, "width"),
    ],
)
def test_bad_queries_are_named(client: FlaskClient, new_match: NewMatch, query: dict[str, Any], parameter: str) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 2)
    for what in ("board.svg", "board.png", "post"):
        if what != "board.png" and parameter == "width":
            continue  # only the PNG has a width
        resp = get(client, m, what, 422, **query)
        error = resp.get_json()["error"]
        if query.get("ply") == 3:  # past the record's 2 plies: not a malformed query, a ply the match has not reached
            assert error["code"] == "ply_not_reached" and error["details"] == {"parameter": "ply", "last": 2}
        else:
            assert error["code"] == "invalid_query" and error["details"] == {"parameter": parameter}


@pytest.mark.parametrize("what", ["board.svg", "board.png", "post"])
def test_an_unknown_match_is_404(client: FlaskClient, what: str) -> None:
    resp = client.get(f"/v1/matches/nothing-here/{what}")
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "match_not_found"


@pytest.mark.parametrize("ply", ["2779153578883926033317232640", "9" * 5000])
def test_a_ply_too_large_for_any_match_is_one_not_reached(client: FlaskClient, new_match: NewMatch, ply: str) -> None:
    """A whole number however long is a ply the match has not reached (the spec's ply has no maximum), not a
    malformed query; one past int()'s 4,300 digits included, which would have been a 500."""
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 2)
    error = get(client, m, "board.svg", 422, ply=ply).get_json()["error"]
    assert error["code"] == "ply_not_reached" and error["details"] == {"parameter": "ply", "last": 2}
