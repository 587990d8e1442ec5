"""Faults a human umpire found on the match pages, in headless Chromium against a real server:

- "Skip to the board" (Tab, Enter) on the umpire's view or a seat's page moves the focus to the board and
  leaves the match alone (before: the address became ``/#u-board``, which the page took as leaving the
  match: the umpire's view lost its controls, a seat's page asked "Leave your seat...?");
- a move the server refused (the clocks wait for the umpire's start) is cleared, and the page says so: the
  first click after the start plays (before: the half-built move stayed, and that click took its step back).
"""

from __future__ import annotations

from pagekit import idle
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from test_page import click_cell, new_game, text
from test_page_slips import moves, value
from test_page_umpire import api, create, href, offered, open_window, refused, umpire_controls_shown


def skip_to_the_board(d: WebDriver) -> None:
    """The keyboard user's way, on a page just opened: the first Tab reaches the skip link, Enter follows it."""
    ActionChains(d).send_keys(Keys.TAB).perform()
    assert d.switch_to.active_element.get_attribute("class") == "u-skip", d.switch_to.active_element.get_attribute("outerHTML")
    d.switch_to.active_element.send_keys(Keys.ENTER)
    idle(d)


def test_skip_to_the_board_keeps_the_match_on_the_umpire_s_view_and_a_seat_s_page(page: WebDriver) -> None:
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 60, 30)
    umpire, seat0 = href(page, "umpire", match_id), href(page, "0", match_id)
    page.get(umpire)
    page.refresh()  # loaded afresh (a get of the desk's own address with a new # only follows an anchor)
    idle(page)
    assert umpire_controls_shown(page) and offered(page) == ["u-start-clock"]
    skip_to_the_board(page)
    assert page.execute_script("return document.getElementById('u-board').contains(document.activeElement)")
    assert page.current_url == umpire  # no #u-board: the address still names the match
    assert umpire_controls_shown(page) and offered(page) == ["u-start-clock"]
    assert not page.find_element(By.ID, "u-setup-card").is_displayed()
    # An in-page address typed or followed some other way (#u-board itself) does not leave the match either.
    page.execute_script("location.hash = 'u-board'")
    idle(page)
    assert umpire_controls_shown(page) and not page.find_element(By.ID, "u-setup-card").is_displayed()

    open_window(page, seat0)
    assert text(page, "u-seat").startswith("You are seat 0 (Ann).")
    skip_to_the_board(page)  # a "Leave your seat?" question would be an open alert here: the next call would fail
    assert page.current_url == seat0
    assert page.execute_script("return document.getElementById('u-board').contains(document.activeElement)")
    assert text(page, "u-seat").startswith("You are seat 0 (Ann).") and page.find_element(By.ID, "u-leave").is_displayed()


def umpire_token(d: WebDriver, match_id: str) -> str:
    """The umpire's token this browser keeps for the match (links.js)."""
    return str(
        d.execute_script(
            "return JSON.parse(localStorage.getItem('umpire-desk.matches')).find((k) => k.id === arguments[0]).umpire", match_id
        )
    )


def test_the_first_click_after_a_refused_move_plays(page: WebDriver, server: str) -> None:
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 60, 30)
    token = umpire_token(page, match_id)
    page.get(href(page, "0", match_id))
    idle(page)
    click_cell(page, "C3")  # a whole first move (R: Catchup's first turn is one stone), sent at once, refused
    said = text(page, "u-verdict")
    assert "The match waits for the umpire's start: no moves before it." in said
    assert "C3 is not played" in said and value(page, "u-move") == ""
    refused(page, 409)
    api(server, "POST", f"/v1/matches/{match_id}/start", token=token)
    WebDriverWait(page, 10).until(lambda d: "waiting" not in text(d, "u-clock-0"))
    click_cell(page, "C3")
    WebDriverWait(page, 10).until(lambda d: moves(d) == ["start", "1. C3"])
    assert "Ann places C3." in text(page, "u-verdict")
