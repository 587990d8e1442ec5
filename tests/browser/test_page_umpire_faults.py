"""Faults a human umpire found on the match pages, in headless Chromium against a real server:

- "Skip to the board" (Tab, Enter) on the umpire's view or a seat's page moves the focus to the board and
  leaves the match alone (before: the address became ``/#u-board``, which the page took as leaving the
  match: the umpire's view lost its controls, a seat's page asked "Leave your seat...?");
- a move the server refused (the clocks wait for the umpire's start) is cleared, and the page says so: the
  first click after the start plays (before: the half-built move stayed, and that click took its step back);
- a co-umpire link the umpire withdrew: the view that opened it forgets it, turns read only and says why, as
  the withdrawal reaches it or as it opens again (before: every control stayed, even after a reload, and each press answered
  "That is not this match's umpire token.");
- "Create a match" with another game chosen in Set up than the one on the board is refused, saying both (before:
  the board's game was made, silently); the match created names its game;
- a match whose clocks run before its first move (started "at once", or by the umpire) says they run, not
  "The match has not started: the first move is awaited.";
- "Add time" takes a fraction of a second, as the server does (0.001 to 3600 s; the form refused 2.5);
- a cell clicked with the mouse is not outlined as focused (only a keyboard's focus is: :focus-visible).
"""

from __future__ import annotations

from pagekit import idle
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
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


def kept_umpire(d: WebDriver, match_id: str) -> object:
    return d.execute_script(
        "const k = JSON.parse(localStorage.getItem('umpire-desk.matches') || '[]').find((k) => k.id === arguments[0]);"
        "return k ? k.umpire : null",
        match_id,
    )


WITHDRAWN = "The co-umpire link opened here was withdrawn or replaced: it no longer opens the umpire's controls."


def test_a_withdrawn_co_umpire_link_turns_its_view_read_only(people: tuple[WebDriver, WebDriver, WebDriver], server: str) -> None:
    umpire, co1, co2 = people
    new_game(umpire, "catchup", size="3")
    match_id = create(umpire, ("Ann", "Bob"), 60, 30)
    token = umpire_token(umpire, match_id)
    view = href(umpire, "umpire", match_id)
    links = [api(server, "POST", f"/v1/matches/{match_id}/umpires", token=token) for _ in range(2)]
    for d, made in zip((co1, co2), links, strict=True):
        d.get(f"{view}&umpire={made['token']}")
        d.refresh()
        idle(d)
        assert umpire_controls_shown(d) and kept_umpire(d, match_id) == made["token"]
    co2.get("about:blank")  # co2's view is closed while its link is withdrawn

    # The view open as its link is withdrawn: the change reaches it, its read with the token is refused (401),
    # and it turns read only with the reason.
    api(server, "DELETE", f"/v1/matches/{match_id}/umpires/{links[0]['link']}", token=token)
    WebDriverWait(co1, 10).until(lambda d: not umpire_controls_shown(d))
    idle(co1)
    refused(co1, 401)
    assert WITHDRAWN in text(co1, "u-verdict") and kept_umpire(co1, match_id) is None
    assert text(co1, "u-seat").startswith("Umpire's view: read only.")
    co1.refresh()  # nothing kept: read only from the start, and the token is sent no more (no 401 in the log)
    idle(co1)
    assert not umpire_controls_shown(co1) and text(co1, "u-seat").startswith("Umpire's view: read only.")

    # A view opened again after its link was withdrawn: found out as it opens (its first read with the token).
    api(server, "DELETE", f"/v1/matches/{match_id}/umpires/{links[1]['link']}", token=token)
    co2.get(view)
    idle(co2)
    refused(co2, 401)
    assert WITHDRAWN in text(co2, "u-verdict") and not umpire_controls_shown(co2) and kept_umpire(co2, match_id) is None


def test_a_match_is_not_made_of_another_game_than_set_up_shows(page: WebDriver) -> None:
    new_game(page, "catchup", size="3")
    Select(page.find_element(By.ID, "u-game")).select_by_value("bug")  # chosen, not yet started (New game)
    page.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(page)
    said = text(page, "u-verdict")
    assert said.startswith("No match: Set up shows Bug, the board a game of Catchup.") and "New game" in said, said
    assert text(page, "u-match-said") == said and not page.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept")
    Select(page.find_element(By.ID, "u-game")).select_by_value("catchup")
    create(page, ("Ann", "Bob"), 60, 30)
    assert text(page, "u-verdict").startswith("The match of Catchup is created:")
    assert text(page, "u-match-said") == ""


def test_clocks_running_before_the_first_move_are_said_to_run(page: WebDriver, server: str) -> None:
    new_game(page, "catchup", size="3")
    by_umpire = create(page, ("Cy", "Di"), 60, 30)
    at_once = create(page, ("Ann", "Bob"), 60, 30, start="created")
    api(server, "POST", f"/v1/matches/{by_umpire}/start", token=umpire_token(page, by_umpire))
    desk = page.current_url
    for match_id, first in ((at_once, "Ann"), (by_umpire, "Cy")):
        page.get(desk)
        idle(page)
        for url in (href(page, "umpire", match_id), href(page, "1", match_id)):
            page.get("about:blank")  # each page loaded afresh (a seat's page would ask before a new # leaves it)
            page.get(url)
            idle(page)
            said = text(page, "u-verdict")
            assert said == f"The clocks run: {first} has the first move.", said


def test_add_time_takes_a_fraction_of_a_second(page: WebDriver, server: str) -> None:
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 60, 30)
    page.get(href(page, "umpire", match_id))
    page.refresh()
    idle(page)
    box = page.find_element(By.ID, "u-add-s")
    box.clear()
    box.send_keys("2.5")
    assert page.execute_script("return arguments[0].checkValidity()", box)
    page.find_element(By.CSS_SELECTOR, "#u-add-time button[type=submit]").click()
    idle(page)
    assert "The umpire gave Ann 2.5 s." in text(page, "u-verdict"), text(page, "u-verdict")
    assert api(server, "GET", f"/v1/matches/{match_id}")["clock"]["seats"]["0"]["bank_s"] == 32.5


def test_a_cell_clicked_with_the_mouse_has_no_focus_ring_but_one_reached_by_the_keyboard_has(page: WebDriver) -> None:
    new_game(page, "catchup", size="3")
    click_cell(page, "C3")  # the first turn, one stone: played; the second may have more, so a click waits
    width = "return getComputedStyle(document.querySelector(arguments[0])).strokeWidth"
    shape = '#u-board [data-cell="B2"] > :first-child'
    click_cell(page, "B2")
    click_cell(page, "B2")  # clicked again: taken back, so that no mark of a step picked is on it
    assert page.execute_script("return document.activeElement.dataset.cell") == "B2"
    assert page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="B2"]').get_attribute("class") == "cell"
    assert page.execute_script(width, shape) != "4.5px"  # focused by a click: no heavy ring
    ActionChains(page).send_keys(Keys.ARROW_RIGHT).perform()
    focused = page.execute_script("return document.activeElement.dataset.cell")
    assert focused != "B2" and page.execute_script(width, f'#u-board [data-cell="{focused}"] > :first-child') == "4.5px"
