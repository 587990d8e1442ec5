"""The umpire's desk in headless Chromium: a Catchup game to its end by clicks
(its first move by the keyboard alone), an illegal typed move with its
reason and its step marked on the board, a managed match played from two
windows on a running clock to the flag, a Bug position pasted from a record;
each also looked at on a 390x844 phone screen."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pagekit
import pytest
from pagekit import idle, start_browser
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

Shot = Callable[[WebDriver, str], Path]

BUG_RECORD = """[Game "bug"]
[Options {"size":3,"position":{"A1":0,"A2":1,"A3":0,"B2":1,"B4":0,"C1":0,"C4":0,"D1":0,"D2":1,"E1":0,"E2":1,"E3":1},"to_move":1}]

1. B1 B3 {seat 1: Blue eats the bend 3-bug (seed 002)}
2. C2 C3 {seat 0: Red eats back}
"""


def text(d: WebDriver, element_id: str) -> str:
    return str(d.find_element(By.ID, element_id).text)


def click_cell(d: WebDriver, name: str) -> None:
    shape = d.find_element(By.CSS_SELECTOR, f'#u-board [data-cell="{name}"] > :first-child')
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", shape)
    shape.click()
    idle(d)


def cells(d: WebDriver) -> dict[str, str]:
    """Each cell of the board and what the page says is on it (its aria-label)."""
    out: dict[str, str] = d.execute_script(
        "const o = {};"
        "for (const g of document.querySelectorAll('#u-board [data-cell]')) o[g.dataset.cell] = g.getAttribute('aria-label');"
        "return o;"
    )
    return out


def classes(d: WebDriver, name: str) -> str:
    return str(d.find_element(By.CSS_SELECTOR, f'#u-board [data-cell="{name}"]').get_attribute("class"))


def new_game(d: WebDriver, game: str, **options: str) -> None:
    d.find_element(By.ID, "u-tab-new").click()
    Select(d.find_element(By.ID, "u-game")).select_by_value(game)
    for name, value in options.items():
        box = d.find_element(By.ID, f"u-opt-{name}")
        box.clear()
        box.send_keys(value)
    d.find_element(By.CSS_SELECTOR, "#u-new button[type=submit]").click()
    idle(d)


def phone(d: WebDriver) -> None:
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    time.sleep(0.2)
    overflow = d.execute_script("return document.documentElement.scrollWidth")
    assert overflow <= 390, f"the page is {overflow} px wide on a 390 px screen"


def link(d: WebDriver, seat: str, match_id: str | None = None) -> WebElement:
    """A seat's link (``0``, ``1`` or ``umpire``) of the match created last, or of ``match_id``."""
    where = f'[data-match="{match_id}"]' if match_id else ".u-kept"
    return d.find_element(By.CSS_SELECTOR, f'#u-kept {where} a[data-seat="{seat}"]')


def ply(d: WebDriver) -> int:
    return int(d.execute_script("return document.querySelectorAll('#u-moves li > button').length")) - 1  # the positions


def test_the_page_links_to_the_api(page: WebDriver, server: str) -> None:
    links = {a.get_attribute("href") for a in page.find_elements(By.CSS_SELECTOR, "header nav a")}
    assert links == {f"{server}/docs", f"{server}/openapi.yaml"}
    page.get(f"{server}/docs")
    assert "API reference" in page.title and page.find_element(By.ID, "schemas")


def test_catchup_to_its_end_by_clicks(page: WebDriver, shot: Shot) -> None:
    new_game(page, "catchup", size="3")
    # The first move by the keyboard alone: Tab to the board, an arrow key, Enter.
    body = page.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(40):
        page.switch_to.active_element.send_keys(Keys.TAB)
        if page.switch_to.active_element.get_attribute("data-cell"):
            break
    focused = page.switch_to.active_element
    assert focused.get_attribute("data-cell") == "A1" and focused.get_attribute("role") == "button"
    focused.send_keys(Keys.ARROW_RIGHT)
    assert page.switch_to.active_element.get_attribute("data-cell") == "A2"
    page.switch_to.active_element.send_keys(Keys.ENTER)  # the first turn is one stone (R-C1): played at once
    idle(page)
    assert ply(page) == 1 and cells(page)["A2"] == "A2, Red's stone"
    assert "Red places A2." in text(page, "u-verdict")
    # Then by clicks, an empty cell a turn (Play ends a move that could take a second stone), to the full board.
    shot(page, "first-move")
    for turn in range(2, 40):
        empty = [c for c, label in cells(page).items() if label.endswith("empty")]
        if not empty:
            break
        click_cell(page, empty[0])
        if ply(page) < turn:
            assert f"{empty[0]} may be played now" in text(page, "u-verdict")
            page.find_element(By.ID, "u-play-button").click()
            idle(page)
        assert ply(page) == turn, text(page, "u-verdict")
    verdict = text(page, "u-verdict")
    assert "The board is full: the game is over (R-C4)." in verdict
    assert text(page, "u-turn").startswith("The game is over. The board is full: ")
    assert page.find_element(By.ID, "u-move").get_attribute("disabled") is not None
    shot(page, "end")
    # Back through the history: the position after move 1 is Red's lone stone.
    page.find_element(By.ID, "u-first").click()
    idle(page)
    page.find_element(By.ID, "u-forward").click()
    idle(page)
    assert [c for c, label in cells(page).items() if not label.endswith("empty")] == ["A2"]
    phone(page)
    shot(page, "phone-history")


def test_an_illegal_typed_move_shows_its_reason_and_its_step(page: WebDriver, shot: Shot) -> None:
    new_game(page, "catchup", size="3")
    click_cell(page, "C3")
    move = page.find_element(By.ID, "u-move")
    move.send_keys("A1 C3", Keys.ENTER)
    idle(page)
    verdict = text(page, "u-verdict")
    assert verdict == "A1 C3 is illegal: C3 is already occupied. (R-C1)"
    assert "u-wrong" in classes(page, "C3") and "u-wrong" not in classes(page, "A1")  # the second step, C3, is marked
    assert ply(page) == 1
    shot(page, "desktop")
    # the legal moves, shown on the board and as buttons
    page.find_element(By.ID, "u-show-legal").click()
    idle(page)
    assert "u-open" in classes(page, "A1") and "u-open" not in classes(page, "C3")
    assert "18 legal first steps." in text(page, "u-legal")
    phone(page)
    page.execute_script("document.getElementById('u-board').scrollIntoView()")
    shot(page, "phone")


def test_a_managed_match_from_two_windows_on_a_running_clock(page: WebDriver, shot: Shot, server: str) -> None:
    new_game(page, "catchup", size="3")
    Select(page.find_element(By.ID, "u-clock-preset")).select_by_value("custom")
    for field, value in (("u-turn-s", "8"), ("u-bank-s", "2")):
        box = page.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    Select(page.find_element(By.ID, "u-clock-start")).select_by_value("created")  # running from creation, as before
    page.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(page)
    seat0 = link(page, "0").get_attribute("href")
    seat1 = link(page, "1").get_attribute("href")
    umpire = link(page, "umpire").get_attribute("href")
    assert seat0 and seat1 and umpire and "#match=" in umpire and "token=" in seat0 and "token=" not in umpire
    shot(page, "links")
    link(page, "0").click()  # this window takes seat 0 (Red)
    idle(page)
    red = page.current_window_handle
    page.execute_script("window.sameDocument = true")  # gone if the page ever reloads
    page.switch_to.new_window("window")
    # This window is a browser without Server-Sent Events: the page must fall back to long-polling.
    page.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"})
    page.get(seat1)
    idle(page)
    blue = page.current_window_handle
    page.execute_script("window.sameDocument = true")
    assert text(page, "u-seat") == "You are seat 1 (Blue). Waiting for Red…"

    page.switch_to.window(red)
    assert text(page, "u-seat") == "You are seat 0 (Red). Your move."
    running = text(page, "u-clock-0")
    time.sleep(1.1)
    assert text(page, "u-clock-0") != running and "turn 0:0" in text(page, "u-clock-0")  # it counts down
    click_cell(page, "C3")

    page.switch_to.window(blue)
    WebDriverWait(page, 10).until(lambda d: "Your move" in text(d, "u-seat"))  # no reload: the page waited for it
    assert page.execute_script("return window.sameDocument") is True
    polls = "return performance.getEntriesByType('resource').filter(e => e.name.includes('wait_ply=')).length"
    assert page.execute_script(polls) >= 1  # no EventSource here: a long poll brought Red's move
    assert cells(page)["C3"] == "C3, Red's stone" and "Red places C3." in text(page, "u-verdict")
    assert "u-running" in str(page.find_element(By.ID, "u-clock-1").get_attribute("class"))
    click_cell(page, "B2")
    click_cell(page, "B3")  # two stones: the move cannot go on, so it is played
    shot(page, "blue")

    page.switch_to.window(red)
    WebDriverWait(page, 10).until(lambda d: "Your move" in text(d, "u-seat"))
    assert page.execute_script("return window.sameDocument") is True
    assert "Blue places B2 and B3." in text(page, "u-verdict")
    # Red's window never long-polled: the events stream (GET .../events) brought Blue's move.
    assert page.execute_script(polls) == 0
    shot(page, "red")
    # Red does not move: turn (8 s) and bank (2 s) run out, and the flag falls in both windows (R-T1).
    WebDriverWait(page, 20, poll_frequency=0.2).until(lambda d: "flag fell" in text(d, "u-clock-0"))
    WebDriverWait(page, 10).until(lambda d: "Blue wins" in text(d, "u-turn"))
    shot(page, "red-flag")
    page.switch_to.window(blue)
    WebDriverWait(page, 10).until(lambda d: "Blue wins" in text(d, "u-turn"))
    assert "flag fell" in text(page, "u-clock-0") and "flag fell" not in text(page, "u-clock-1")
    # The umpire's view: the same match, read only.
    page.get(umpire)
    idle(page)
    assert text(page, "u-seat").startswith("Umpire's view: read only.")
    assert not page.find_element(By.ID, "u-move-form").is_displayed()
    moves = [m.text for m in page.find_elements(By.CSS_SELECTOR, "#u-moves button")]
    assert moves == ["start", "1. C3", "2. B2 B3", "Red's flag fell"]  # a flag is no move: it reaches no ply of its own
    page.find_element(By.ID, "u-copy-post").click()
    idle(page)
    post = page.find_element(By.ID, "u-post").get_attribute("value") or ""
    # the finished match's end, which no later move can change: its picture named without a ply
    assert "/board.png>)" in post and f"{server}/v1/matches/" in post and "Blue wins on time" in post
    assert post.startswith("**Catchup (standard), ply 2**")
    phone(page)
    shot(page, "umpire-phone")


def test_a_bug_position_pasted_from_a_record(page: WebDriver, shot: Shot) -> None:
    page.find_element(By.ID, "u-tab-record").click()
    page.find_element(By.ID, "u-record-text").send_keys(BUG_RECORD)
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    verdict = text(page, "u-verdict")
    assert verdict.startswith("The record replays: 2 moves.")
    assert "Red's 4-bug C1-C2-D1-E1 eats Blue's congruent 4-bug A2-B1-B2-B3 and grows on the bonus cell C3" in verdict
    board = cells(page)
    assert board["C3"] == "C3, Red's piece" and board["A2"] == "A2, empty" and board["B4"] == "B4, empty"
    assert Select(page.find_element(By.ID, "u-game")).first_selected_option.get_attribute("value") == "bug"
    shot(page, "end")
    page.find_element(By.ID, "u-back").click()
    idle(page)
    assert "Blue's bend 3-bug A2-B1-B2 eats Red's congruent bend 3-bug A3-B4-C4" in text(page, "u-verdict")
    assert "You are looking at an earlier position." in text(page, "u-turn")
    page.find_element(By.ID, "u-copy-post").click()
    idle(page)
    post = page.find_element(By.ID, "u-post").get_attribute("value") or ""
    # One numbering (issue 22): the set-up position is ply 13, so its first move reaches ply 14, as the
    # picture in the post says; the page once headed it "ply 1".
    assert post.startswith("**Bug (genius), ply 14: Blue plays B1 B3**") and "```text" in post
    page.find_element(By.ID, "u-save-png").click()
    idle(page)
    link = page.find_element(By.ID, "u-png-link")
    assert link.get_attribute("download") == "bug-ply-14.png" and (link.get_attribute("href") or "").startswith("blob:")
    size = page.execute_async_script(
        "const done = arguments[0];"
        "fetch(document.getElementById('u-png-link').href).then(r => r.blob()).then(b => done(b.type + ' ' + b.size))"
    )
    kind, length = size.split()
    assert kind == "image/png" and int(length) > 5000
    # A wrong move in a record stops the replay there, with its reason.
    page.find_element(By.ID, "u-record-text").clear()
    page.find_element(By.ID, "u-record-text").send_keys(BUG_RECORD.replace("C2 C3", "C2"))
    page.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(page)
    assert text(page, "u-verdict").startswith("Move 2 of the record, C2, is illegal: After C2 the move stops, but your bug")
    assert ply(page) == 1
    # The step the move stopped at is marked (issue 22: the error names the missing step after it, and nothing was marked).
    assert "u-wrong" in classes(page, "C2") and page.find_elements(By.CSS_SELECTOR, "#u-board .u-wrong") == [
        page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="C2"]')
    ]
    phone(page)
    shot(page, "phone")


def test_no_browser_is_a_failure_not_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pagekit, "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        start_browser()


FAKE_EVENT_SOURCE = """
window.fakeStreams = [];
window.EventSource = class {
  constructor(url) { this.url = url; this.readyState = 0; this.listeners = {}; window.fakeStreams.push(this);
    setTimeout(() => { this.readyState = 1; if (this.onopen) this.onopen(); }, 10); }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  emit(type, data) { for (const fn of this.listeners[type] || []) fn({ type, data }); }
  close() { this.readyState = 2; }
};
"""


def api(server: str, method: str, path: str, body: object = None, token: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(server + path, data, headers, method=method), timeout=10) as resp:
        answer: dict[str, object] = json.loads(resp.read())
        return answer


def test_a_match_is_followed_by_server_sent_events_when_the_server_has_them(page: WebDriver, server: str) -> None:
    """With an events stream that answers (here a stand-in for EventSource), the page
    follows the match by its events and does not long-poll."""
    created = api(server, "POST", "/v1/matches", {"game": "catchup", "options": {"size": 3}})
    match_id = str(created["match_id"])
    seats = created["seats"]
    assert isinstance(seats, dict)
    page.execute_script(FAKE_EVENT_SOURCE)
    page.execute_script(f"location.hash = 'match={match_id}'")
    idle(page)
    WebDriverWait(page, 10).until(
        lambda d: d.execute_script("return window.fakeStreams.length === 1 && window.fakeStreams[0].readyState === 1")
    )
    assert page.execute_script("return window.fakeStreams[0].url") == f"/v1/matches/{match_id}/events"
    moved = api(server, "POST", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, str(seats["0"]))
    match = {k: v for k, v in moved.items() if k not in ("legal", "move", "events", "error")}
    page.execute_script("window.fakeStreams[0].emit('move', arguments[0])", json.dumps(match))
    idle(page)
    assert cells(page)["C3"] == "C3, Red's stone" and "Red places C3." in text(page, "u-verdict")
    polls = page.execute_script("return performance.getEntriesByType('resource').filter(e => e.name.includes('wait_ply')).length")
    assert polls == 0
