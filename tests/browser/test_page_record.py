"""What the page shows of a position and of a match's record (issue 35), in headless Chromium:

- a post pasted under "Paste a state" comes back as the position the post shows, whole: the
  server's reading of it (``POST import``'s ``state``: Catchup's bonus and ply, Crystal's draft,
  totals and barred files), not a new game set up from the options read (item 4);
- in a match with named players the cells say whose pieces they are in the players' names
  (``hints.named_words``: "Ann's stone", not "Red's stone") (item 8);
- the history lists the record's entries that are no move - the umpire's start, pause, time
  given and resumption, a refused attempt, a resignation - where they happened, with the ply
  the server's record gives them, on every view of the match.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_page import cells, new_game, text
from test_page_mistakes import enter, said
from test_page_slips import click
from test_page_umpire import api, create, give_time, href, refused, try_move

Shot = Callable[[WebDriver, str], Path]
People = tuple[WebDriver, WebDriver, WebDriver]


def history(d: WebDriver) -> list[str]:
    """Every line of the history list, in order: the positions' buttons and the lines between them (read at
    once: the page redraws the list as the match changes)."""
    lines: list[str] = d.execute_script("return [...document.querySelectorAll('#u-moves li')].map((li) => li.innerText)")
    return lines


def positions(d: WebDriver) -> list[str]:
    """The positions' buttons of the history list, read at once."""
    labels: list[str] = d.execute_script("return [...document.querySelectorAll('#u-moves li > button')].map((b) => b.innerText)")
    return labels


def paste_record(d: WebDriver, record: str) -> None:
    """``record`` replayed from "Paste a record" (in the page's own text record, or one move a line)."""
    d.find_element(By.ID, "u-tab-record").click()
    d.execute_script("arguments[0].value = arguments[1]", d.find_element(By.ID, "u-record-text"), record)
    d.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(d)


def page_state(d: WebDriver) -> dict[str, Any]:
    """The state of the position the page shows, as the page holds it."""
    state: dict[str, Any] = d.execute_async_script(
        "const done = arguments[0]; import('/static/store.js').then((s) => done(s.position().state))"
    )
    return state


def played(server: str, game: str, options: dict[str, Any], plies: int) -> tuple[list[str], dict[str, Any]]:
    """The first ``plies`` moves of a game that plays the first legal move each turn, and the state they reach."""
    state = api(server, "POST", f"/v1/games/{game}/new", {"options": options})["state"]
    moves = []
    for _ in range(plies):
        legal = api(server, "POST", f"/v1/games/{game}/legal-moves", {"state": state, "limit": 1, "complete": True})
        moves.append(legal["moves"][0])
        state = api(server, "POST", f"/v1/games/{game}/play", {"state": state, "move": moves[-1]})["state"]
    return moves, state


@pytest.mark.parametrize(
    ("game", "options", "plies", "turn"),
    [
        # R-C3: after Blue's B2 B3 led, Red may place 3 stones; the board alone said ply 3, not 5.
        ("catchup", {"size": 3}, 5, "(ply 5)"),
        # Crystal's draft, totals and barred files are no option: a new game from the options read was ply 0.
        ("crystal", {"seed": "page"}, 5, "(ply 5)"),
    ],
)
def test_a_post_pasted_is_the_position_it_shows(
    page: WebDriver, server: str, shot: Shot, game: str, options: dict[str, Any], plies: int, turn: str
) -> None:
    moves, state = played(server, game, options, plies)
    record = f'[Game "{game}"]\n[Options {json.dumps(options)}]\n\n' + "\n".join(f"{i}. {m}" for i, m in enumerate(moves, 1))
    paste_record(page, record)
    assert text(page, "u-verdict").startswith(f"The record replays: {plies} moves."), text(page, "u-verdict")
    before = text(page, "u-turn")
    assert turn in before
    # The post as the page copies it for Discord, pasted back whole.
    Select(page.find_element(By.ID, "u-post-format")).select_by_value("discord")
    click(page, "u-copy-post")
    post = str(page.find_element(By.ID, "u-post").get_attribute("value"))
    assert "[State {" in post, post
    page.find_element(By.ID, "u-tab-state").click()
    box = page.find_element(By.ID, "u-state-text")
    page.execute_script("arguments[0].value = arguments[1]", box, post)
    page.find_element(By.CSS_SELECTOR, "#u-state button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict") == f"The diagram is read: a {page_title(page, game)} position, ply {state['ply']}."
    assert page_state(page) == state  # the very position: every field of it
    assert text(page, "u-turn") == before  # whose turn, with what (Catchup: "1 to 3 stones"), at which ply
    shot(page, game)


def page_title(d: WebDriver, game: str) -> str:
    return str(d.execute_script("return document.querySelector(`#u-game option[value='${arguments[0]}']`).textContent", game))


def test_the_catchup_bonus_pasted_back_is_played(page: WebDriver, server: str) -> None:
    """Issue 35 item 4 as the host met it: the post at Red's bonus turn pasted, then three stones played."""
    state = api(server, "POST", "/v1/games/catchup/new", {"options": {"size": 3}})["state"]
    for move in ("C3", "B2 B3"):  # Blue's two stones lead Red's one: Red's bonus is due (R-C3)
        state = api(server, "POST", "/v1/games/catchup/play", {"state": state, "move": move})["state"]
    post = api_text(server, "/v1/games/catchup/post", {"state": state, "format": "discord"})
    assert "up to 3 stones" in post
    new_game(page, "catchup", size="3")
    page.find_element(By.ID, "u-tab-state").click()
    box = page.find_element(By.ID, "u-state-text")
    page.execute_script("arguments[0].value = arguments[1]", box, post)
    page.find_element(By.CSS_SELECTOR, "#u-state button[type=submit]").click()
    idle(page)
    assert text(page, "u-turn") == "Red to move: 1 to 3 stones (ply 2).", text(page, "u-turn")
    empty = [c for c, label in cells(page).items() if label.endswith("empty")][:3]
    try_move(page, " ".join(empty))
    assert text(page, "u-verdict").startswith(f"Legal: {' '.join(empty)}"), text(page, "u-verdict")
    assert history(page) == ["start (ply 2)", f"3. {' '.join(empty)}"]
    assert all(cells(page)[c].endswith("Red's stone") for c in empty)


def api_text(server: str, path: str, body: object) -> str:
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(server + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as resp:
        return str(resp.read().decode())


def test_the_record_between_the_moves_on_every_view(people: People, server: str, shot: Shot) -> None:
    """Before: the history listed the moves alone, counted on the page; the umpire's controls of the clocks
    were nowhere on it, and the cells of a named match said "Red's stone"."""
    umpire, ann, bob = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 120, 60)
    enter(ann, href(umpire, "0", match_id))
    enter(bob, href(umpire, "1", match_id))
    enter(umpire, href(umpire, "umpire", match_id))
    click(umpire, "u-start-clock")
    click(umpire, "u-pause")
    give_time(umpire, 0, 30)
    click(umpire, "u-resume")
    said(ann, "Your move.", "u-seat")
    try_move(ann, "C3")
    said(bob, "Your move.", "u-seat")
    try_move(bob, "A1 A2 A3")  # three stones with no bonus due (R-C3)
    refused(bob, 422)
    try_move(bob, "A1 A2")
    said(ann, "Your move.", "u-seat")
    ann.find_element(By.ID, "u-resign").click()
    ann.switch_to.alert.accept()
    idle(ann)
    want = [
        "start",
        "ply 0 The umpire started the clocks.",
        "ply 0 The umpire paused the clocks.",
        "ply 0 The umpire gave Ann 30 s.",
        "ply 0 The umpire resumed the clocks.",
        "1. C3",
        "✗ Bob tried A1 A2 A3: You may place at most 2 stones this turn, not 3: the opponent did not lead on their"
        " last turn, so no third stone is due. (R-C3)",
        "2. A1 A2",
        "Ann resigns",
    ]
    for d in (umpire, ann, bob):
        WebDriverWait(d, 10).until(lambda d: len(history(d)) == len(want))
        assert history(d) == want, history(d)
        assert text(d, "u-turn").startswith("The game is over.")
        # the players' names on the cells, as everywhere else (hints.named_words)
        board = cells(d)
        assert board["C3"] == "C3, Ann's stone" and board["A1"] == "A1, Bob's stone", board
    assert "Ann resigns" in text(umpire, "u-verdict")
    record = api(server, "GET", f"/v1/matches/{match_id}/moves")["moves"]
    assert [e["kind"] for e in record] == ["start", "pause", "add_time", "resume", "move", "illegal", "move", "resign"]
    umpire.execute_script("document.getElementById('u-moves').scrollIntoView()")
    shot(umpire, "umpire")
    umpire.execute_script("document.getElementById('u-moves').scrollTop = 0")
    shot(umpire, "umpire-first-lines")
    # The position of a move, stepped to: said with the same label as the list's.
    umpire.find_element(By.XPATH, "//ol[@id='u-moves']//button[text()='1. C3']").click()
    idle(umpire)
    assert text(umpire, "u-verdict").startswith("1. C3"), text(umpire, "u-verdict")
