"""The umpire puts people's mistakes right from the page (issue 35 items 1 and 14), in headless Chromium,
the umpire and each seat (or a co-umpire) in a browser of their own, on a real match:

- "Take back" in the umpire's controls undoes a seat's misclick: asked first, every view goes back
  one move and lists the take-back where it happened, the same seat moves again; it is offered only
  where the server takes it (a move, not right after a take-back);
- a pause with a reason: the players are shown why, on their seat line and in the history;
- a co-umpire link: made from the umpire's controls, it opens the controls in another browser (its
  token taken out of the address), which may pause but not make links; withdrawn, it stops working.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest
from pagekit import idle, without_event_source
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from test_page import cells, click_cell, new_game, phone, text
from test_page_matches import to_play
from test_page_mistakes import enter, said
from test_page_record import history, paste_record, positions
from test_page_slips import click
from test_page_umpire import api, create, href, refused

Shot = Callable[[WebDriver, str], Path]
People = tuple[WebDriver, WebDriver, WebDriver]


def offered(d: WebDriver, element_id: str) -> bool:
    return bool(d.find_element(By.ID, element_id).is_displayed())


def seated(umpire: WebDriver, ann: WebDriver, bob: WebDriver | None, bob_polls: bool = False) -> str:
    """A Catchup match of Ann and Bob created on the umpire's page, its clocks running, each seat's link opened
    in its own browser (Bob's where given, following by long polls if ``bob_polls``), then the umpire's view in
    the umpire's; its id."""
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    enter(ann, href(umpire, "0", match_id))
    if bob is not None:
        with without_event_source(bob) if bob_polls else nullcontext():
            enter(bob, href(umpire, "1", match_id))
    enter(umpire, href(umpire, "umpire", match_id))
    return match_id


def test_the_umpire_takes_back_a_misclick(people: People, server: str, shot: Shot) -> None:
    umpire, ann, bob = people
    match_id = seated(umpire, ann, bob)
    assert not offered(umpire, "u-takeback")  # no move yet: nothing to take back
    click_cell(ann, "C3")
    said(bob, "Your move.", "u-seat")
    click_cell(bob, "B2")
    click(bob, "u-play-button")  # one stone, where Bob meant two: the slip the umpire undoes
    WebDriverWait(umpire, 10).until(lambda d: positions(d) == ["start", "1. C3", "2. B2"])
    button = umpire.find_element(By.ID, "u-takeback")
    assert button.is_displayed() and button.text == "Take back Bob's move B2"
    umpire.execute_script("document.getElementById('u-umpire').scrollIntoView()")
    shot(umpire, "offered")
    phone(umpire)  # on a 390x844 phone too: no part of the controls wider than the screen
    umpire.execute_script("document.getElementById('u-umpire').scrollIntoView()")
    shot(umpire, "offered-phone")
    umpire.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    button.click()
    question = umpire.switch_to.alert.text
    assert question.startswith("Take back Bob's move B2 (ply 2)? Bob moves again"), question
    umpire.switch_to.alert.dismiss()  # not confirmed: nothing happens
    idle(umpire)
    assert api(server, "GET", f"/v1/matches/{match_id}")["ply"] == 2
    button.click()
    umpire.switch_to.alert.accept()
    idle(umpire)
    assert "The umpire took back Bob's move B2" in text(umpire, "u-verdict"), text(umpire, "u-verdict")
    aside = "ply 1 The umpire took back Bob's move B2: Bob is to move again."
    for d in (umpire, ann, bob):
        WebDriverWait(d, 10).until(lambda d: positions(d) == ["start", "1. C3"])
        assert history(d) == ["start", "1. C3", aside], history(d)
        assert cells(d)["B2"] == "B2, empty" and text(d, "u-turn").startswith("Bob to move")
    assert text(bob, "u-seat") == "You are seat 1 (Bob). Your move."
    assert "The umpire took back Bob's move B2" in text(ann, "u-verdict")
    assert not offered(umpire, "u-takeback")  # right after a take-back: the server would refuse a second
    shot(bob, "taken-back")
    # Bob makes the move he meant; the record keeps the move, the take-back and the move made again.
    click_cell(bob, "B2")
    click_cell(bob, "B3")
    WebDriverWait(umpire, 10).until(lambda d: positions(d) == ["start", "1. C3", "2. B2 B3"])
    assert history(umpire)[2] == aside
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    assert [e["kind"] for e in record] == ["move", "move", "takeback", "move"]
    assert offered(umpire, "u-takeback") and umpire.find_element(By.ID, "u-takeback").text == "Take back Bob's move B2 B3"
    umpire.execute_script("document.getElementById('u-moves').scrollIntoView()")
    shot(umpire, "history")
    # The match's text record, take-back and all, pasted on the desk: it replays to the match's position.
    text_record = api(server, "GET", f"/v1/matches/{match_id}/moves")["text"]
    assert "takeback" in text_record, text_record
    enter(umpire, f"{server}/")
    paste_record(umpire, text_record)
    assert text(umpire, "u-verdict").startswith("The record replays: 2 moves."), text(umpire, "u-verdict")
    assert positions(umpire) == ["start", "1. C3", "2. B2 B3"]


@pytest.mark.parametrize("follows", ["stream", "long polls"])
def test_a_pause_with_its_reason_shown_to_the_players(people: People, shot: Shot, follows: str) -> None:
    """Ann's page follows the match's event stream, Bob's its stream too or long polls (a browser without
    Server-Sent Events): the reason reaches both in the same words (before, a long poll said no reason)."""
    umpire, ann, bob = people
    seated(umpire, ann, bob, bob_polls=follows == "long polls")
    assert offered(umpire, "u-pause-reason")
    umpire.find_element(By.ID, "u-pause-reason").send_keys("Ann's connection dropped <b>")
    click(umpire, "u-pause")
    assert not offered(umpire, "u-pause-reason") and offered(umpire, "u-resume")  # paused: no reason to give
    line = "The umpire has paused the clocks: Ann's connection dropped <b>."
    for d, who in ((ann, "You are seat 0 (Ann)."), (bob, "You are seat 1 (Bob).")):
        assert said(d, line, "u-seat") == f"{who} {line}"
        # the server's announcement of the pause (the stream), or the page's words from the clock (a long poll)
        WebDriverWait(d, 10).until(lambda d: "paused the clocks: Ann's connection dropped" in text(d, "u-verdict"))
        WebDriverWait(d, 10).until(lambda d: len(history(d)) == 2)
        assert history(d)[1] == "ply 0 The umpire paused the clocks: Ann's connection dropped <b>."
    assert not ann.find_elements(By.CSS_SELECTOR, "#u-seat b")  # a client's text, shown as text
    ann.execute_script("document.getElementById('u-match-bar').scrollIntoView()")
    shot(ann, "paused")
    click(umpire, "u-resume")
    said(ann, "You are seat 0 (Ann). Your move.", "u-seat")
    assert "paused" not in text(ann, "u-seat")


def said_of_link(d: WebDriver, done: str) -> None:
    """The verdict says co-umpire link 1 was ``done``: in the page's words or the stream's announcement."""
    WebDriverWait(d, 10).until(lambda d: "co-umpire link 1" in text(d, "u-verdict").lower() and done in text(d, "u-verdict"))


def test_a_co_umpire_link(people: People, server: str, shot: Shot) -> None:
    umpire, ann, co = people
    match_id = seated(umpire, ann, None)
    click(umpire, "u-co-make")
    said_of_link(umpire, "made")  # the page's sentence, or the stream's announcement of it after
    link = umpire.find_element(By.CSS_SELECTOR, '#u-co-links a[data-co-link="1"]')
    url = str(link.get_attribute("href"))
    assert f"#match={match_id}&umpire=" in url and link.text == "Co-umpire link 1"
    umpire.execute_script("document.getElementById('u-umpire').scrollIntoView()")
    shot(umpire, "made")
    # Opened in another browser: the umpire's controls, the token out of the address, no links to make.
    enter(co, url)
    assert offered(co, "u-umpire") and text(co, "u-seat").startswith("Umpire's view, with the umpire's controls.")
    assert "umpire=" not in str(co.execute_script("return location.href")) and not offered(co, "u-co")
    co.find_element(By.ID, "u-pause-reason").send_keys("a word with the arbiter")
    click(co, "u-pause")
    said(ann, "The umpire has paused the clocks: a word with the arbiter.", "u-seat")
    co.execute_script("document.getElementById('u-umpire').scrollIntoView()")
    shot(co, "co-umpire")
    phone(umpire)
    umpire.execute_script("document.getElementById('u-co').scrollIntoView()")
    shot(umpire, "links-phone")
    umpire.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    # Reloaded, the co-umpire's browser keeps the token (its kept links), not the address.
    enter(co, href(co, "umpire", match_id))
    assert offered(co, "u-resume")
    # Withdrawn: it stops working at once, and the umpire's list no longer has it.
    umpire.find_element(By.CSS_SELECTOR, '#u-co-links button[data-co-withdraw="1"]').click()
    umpire.switch_to.alert.accept()
    idle(umpire)
    said_of_link(umpire, "withdr")
    assert not umpire.find_elements(By.CSS_SELECTOR, "#u-co-links li")
    # The co-umpire's view hears of it at once: its next read with the token is refused, and it turns read only
    # (before, it kept its controls and each press was refused: tests/browser/test_page_umpire_faults.py).
    WebDriverWait(co, 10).until(lambda d: not offered(d, "u-resume"))
    refused(co, 401)
    assert text(co, "u-seat").startswith("Umpire's view: read only.")
    assert api(server, "GET", f"/v1/matches/{match_id}")["clock"]["paused"] is True


def play_to_the_end(server: str, match_id: str, seats: list[str], pages: People) -> tuple[str, int]:
    """Each seat's first complete legal move through the API until the game is over (Catchup: a full board,
    R-C4), each page caught up before the next, as people play; the last move and the ply it was played at."""
    while (now := to_play(server, match_id)) is not None:
        move, ply = now["legal_moves"]["moves"][0], now["ply"]
        api(server, "POST", f"/v1/matches/{match_id}/moves", {"move": move, "ply": ply}, seats[now["clock"]["to_move"]])
        shown = f"{ply + 1}. {move}"
        for d in pages:
            WebDriverWait(d, 10).until(lambda d, shown=shown: positions(d)[-1] == shown)
        assert ply < 40
    return move, ply


@pytest.mark.parametrize("follows", ["stream", "long polls"])
def test_the_ending_move_taken_back_reopens_every_page_and_the_offer_ends_with_its_time(
    people: People, server: str, shot: Shot, follows: str
) -> None:
    """The move that ended the game, taken back within its ten minutes, reopens the match on every page: Bob's
    follows the stream, or long polls (before, a page following by long polls stopped at the end and never saw
    it).  Played again, it ends the game again; once its time is up the umpire's page withdraws the Take back
    button by itself (before, it stayed, and the server refused it)."""
    umpire, ann, bob = people
    match_id = seated(umpire, ann, bob, bob_polls=follows == "long polls")
    kept = umpire.execute_script("return JSON.parse(localStorage.getItem('umpire-desk.matches'))")
    tokens = next(k for k in kept if k["id"] == match_id)
    last, ply = play_to_the_end(server, match_id, tokens["seats"], people)
    previous = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"][-2]["move"]  # the move before the last
    for d in (umpire, ann, bob):
        said(d, "The game is over.", "u-turn")
    WebDriverWait(umpire, 10).until(lambda d: offered(d, "u-takeback"))
    api(server, "POST", f"/v1/matches/{match_id}/takeback", {"ply": ply + 1}, tokens["umpire"])
    assert api(server, "GET", f"/v1/matches/{match_id}")["state"]["status"] == "ongoing"
    seat = api(server, "GET", f"/v1/matches/{match_id}")["clock"]["to_move"]
    for d in (umpire, ann, bob):  # the long-polling page asks again every 5 s while the game may reopen
        WebDriverWait(d, 15).until(lambda d: "The game is over." not in text(d, "u-turn"))
        assert text(d, "u-turn").startswith(f"{('Ann', 'Bob')[seat]} to move"), text(d, "u-turn")
        assert positions(d)[-1] == f"{ply}. {previous}", positions(d)
    said((ann, bob)[seat], "Your move.", "u-seat")
    shot(bob, "reopened")
    # The same move again ends the game again, and may be taken back again, for ten minutes of the server's time.
    api(server, "POST", f"/v1/matches/{match_id}/moves", {"move": last, "ply": ply}, tokens["seats"][seat])
    said(umpire, "The game is over.", "u-turn")
    WebDriverWait(umpire, 10).until(lambda d: offered(d, "u-takeback"))
    assert text(umpire, "u-takeback").endswith(f"move {last}")
    umpire.execute_script("const real = Date.now.bind(Date); Date.now = () => real() + 601000;")  # ten minutes on
    WebDriverWait(umpire, 10).until(lambda d: not offered(d, "u-umpire"))  # looked at again within 5 s
    assert not offered(umpire, "u-takeback") and text(umpire, "u-seat") == "Umpire's view: read only. The match is over."
    shot(umpire, "offer-ended")
