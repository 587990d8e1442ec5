"""What a host notices at the umpire's desk (issue 35), in headless Chromium on real matches, the
umpire and the seats each in a browser of their own:

- on a 390x844 phone the seat's clocks and its Play (or Send) sit by the board, within the
  screen that shows the board (item 12: 1.5 screens below it);
- a variant with its own clock preset gets it, and the custom clock has every field the
  server's clock takes (item 6);
- "The game set up above" becomes a match of exactly the position shown: a Crystal match's
  seats see the crystals the umpire saw (item 7);
- "Copied" by the button pressed, the kept links that are over, Take back's reach, a branch
  kept when the main line is shown again (item 13);
- the webhook's deliveries on the umpire's view, and the clocks said to a screen reader as a
  turn runs low (item 14).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_page import cells, click_cell, new_game, phone, ply, text
from test_page_mistakes import enter
from test_page_slips import click, moves
from test_page_umpire import api, create, href

Shot = Callable[[WebDriver, str], Path]
People = tuple[WebDriver, WebDriver, WebDriver]


def set_up(d: WebDriver, game: str, **options: str) -> None:
    """A new game from the "Set up" form: a select's option chosen, a field's typed."""
    d.find_element(By.ID, "u-tab-new").click()
    Select(d.find_element(By.ID, "u-game")).select_by_value(game)
    for name, value in options.items():
        field = d.find_element(By.ID, f"u-opt-{name}")
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    d.find_element(By.CSS_SELECTOR, "#u-new button[type=submit]").click()
    idle(d)


def below_the_board(d: WebDriver, *element_ids: str) -> dict[str, float]:
    """How far each element's bottom is below the board's top, in CSS pixels (the page scrolled so that
    the board's top is at the top of the screen, where a player keeps it)."""
    return dict(
        d.execute_script(
            "const top = document.getElementById('u-board').getBoundingClientRect().top + scrollY;"
            "scrollTo(0, top);"
            "const out = {};"
            "for (const id of arguments[0]) {"
            "  const r = document.getElementById(id).getBoundingClientRect();"
            "  out[id] = r.height ? r.bottom + scrollY - top : -1; }"
            "return out;",
            list(element_ids),
        )
    )


@pytest.mark.parametrize(
    ("game", "options"), [("bug", {"variant": "green-meadow"}), ("catchup", {"size": "10"}), ("crystal", {"seed": "7"})]
)
def test_on_a_phone_the_seat_s_clocks_and_its_move_sit_by_the_board(
    people: People, shot: Shot, game: str, options: dict[str, str]
) -> None:
    """Before: on a 390x844 phone the clocks and Play sat some 1.5 screens below the board's top."""
    umpire, ann, _ = people
    set_up(umpire, game, **options)
    match_id = create(umpire, ("Ann", "Bob"), 60, 120, start="created")
    phone(ann)
    enter(ann, href(umpire, "0", match_id))
    phone(ann)  # no part of the seat's page wider than the screen
    # The steps no click makes (Crystal's draft: "first", "second") are the move's buttons too, when the game has them.
    seen = below_the_board(ann, "u-clock-0", "u-clock-1", "u-play-button", "u-seat", "u-legal")
    if game != "crystal":
        assert seen.pop("u-legal") == -1  # none: every step is a click on the board
    shot(ann, "phone")  # the board at the top of the screen, as the player keeps it
    assert all(0 < bottom <= 844 for bottom in seen.values()), seen


def chosen(d: WebDriver, element_id: str) -> str:
    return str(Select(d.find_element(By.ID, element_id)).first_selected_option.get_attribute("value"))


def test_a_variant_s_own_clock_and_every_field_of_a_custom_one(page: WebDriver, server: str, shot: Shot) -> None:
    """Before: Bug → green-meadow kept "bug: turn 1:30, bank 10:00" (R-T2 gives Green Meadow its own), and the custom
    clock had no field for the bank's step nor an increment, which the server's clock takes."""
    set_up(page, "bug", variant="green-meadow")
    assert chosen(page, "u-clock-preset") == "bug-green-meadow"
    set_up(page, "bug", variant="genius")
    assert chosen(page, "u-clock-preset") == "bug"
    set_up(page, "bug", variant="green-meadow")
    match_id = create_with(page)
    assert clock_of(server, match_id) == {"turn_s": 60, "bank_s": 300, "step_s": 5, "increment_s": 0, "on_flag": "loses"}
    # Custom: it starts from the variant's preset, and has the step and the increment.
    Select(page.find_element(By.ID, "u-clock-preset")).select_by_value("custom")
    fields = {f: page.find_element(By.ID, f"u-{f}-s") for f in ("turn", "bank", "step", "increment")}
    assert {f: box.get_attribute("value") for f, box in fields.items()} == {
        "turn": "60",
        "bank": "300",
        "step": "5",
        "increment": "0",
    }
    assert all(box.is_displayed() for box in fields.values())
    for f, value in (("step", "2"), ("increment", "3")):
        fields[f].clear()
        fields[f].send_keys(value)
    page.execute_script("document.getElementById('u-match-form').scrollIntoView()")
    shot(page, "custom")
    match_id = create_with(page)
    assert clock_of(server, match_id) == {"turn_s": 60, "bank_s": 300, "step_s": 2, "increment_s": 3, "on_flag": "loses"}


def create_with(d: WebDriver) -> str:
    """A match of the game on the board with the form as it is; its id."""
    d.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(d)
    assert text(d, "u-verdict").startswith("The match of ") and " is created: " in text(d, "u-verdict"), text(d, "u-verdict")
    return str(d.find_element(By.CSS_SELECTOR, "#u-kept .u-kept").get_attribute("data-match"))


def clock_of(server: str, match_id: str) -> dict[str, object]:
    clock = api(server, "GET", f"/v1/matches/{match_id}")["clock"]
    return {k: clock[k] for k in ("turn_s", "bank_s", "step_s", "increment_s", "on_flag")}


def test_a_crystal_match_deals_the_crystals_shown(people: People, server: str, shot: Shot) -> None:
    """Before: "The game set up above" sent the options without the seed the server had drawn for the grid shown,
    so the match dealt another grid: its seats saw other crystals than the umpire had set up."""
    umpire, ann, bob = people
    set_up(umpire, "crystal")  # no seed given: the server draws one, and the page shows its grid
    shown = cells(umpire)
    first = umpire.execute_script("return document.querySelector('#u-board svg').getAttribute('aria-label')")
    assert "ply 0" in str(first)
    click_step(umpire, "first")  # a move on the board: the match still starts from the game set up, at ply 0
    match_id = create(umpire, ("Ann", "Bob"), 120, 60, start="created")
    enter(ann, href(umpire, "0", match_id))
    enter(bob, href(umpire, "1", match_id))
    assert cells(ann) == shown and cells(bob) == shown
    assert "It starts from the first position of the line on the board (ply 0)" in text(umpire, "u-verdict")
    umpire_state = umpire.execute_async_script(
        "const done = arguments[0]; import('/static/store.js').then((s) => done(s.position(0).state))"
    )
    assert api(server, "GET", f"/v1/matches/{match_id}")["state"] == umpire_state
    shot(ann, "seat-0")
    # A state pasted from the middle of a game is no game's start: said, and no match made.
    umpire.find_element(By.ID, "u-tab-state").click()
    moved = api(
        server,
        "POST",
        "/v1/games/catchup/play",
        {"state": api(server, "POST", "/v1/games/catchup/new", {})["state"], "move": "E5"},
    )
    box = umpire.find_element(By.ID, "u-state-text")
    umpire.execute_script("arguments[0].value = arguments[1]", box, json.dumps(moved["state"]))
    umpire.find_element(By.CSS_SELECTOR, "#u-state button[type=submit]").click()
    idle(umpire)
    kept = len(umpire.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept"))
    umpire.find_element(By.CSS_SELECTOR, "#u-match-form button[type=submit]").click()
    idle(umpire)
    assert text(umpire, "u-verdict").startswith("No match: its first position would not be the one shown here.")
    assert len(umpire.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept")) == kept


def click_step(d: WebDriver, step: str) -> None:
    """A step offered as a word under the move box (a Crystal draft's "first"), clicked."""
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text == step).click()
    idle(d)


def said_by(d: WebDriver, button: WebElement) -> str:
    """What the page says right by ``button`` now (its note after it), or ''."""
    script = "const n = arguments[0].nextElementSibling; return n && n.matches('.u-said-by') ? n.textContent : ''"
    return str(d.execute_script(script, button))


def note_by(d: WebDriver, button: WebElement) -> str:
    """What the page says right by ``button``, once it says it."""
    WebDriverWait(d, 5).until(lambda d: said_by(d, button))
    return said_by(d, button)


def test_copied_by_the_button_and_the_kept_links_that_are_over(page: WebDriver, server: str, shot: Shot) -> None:
    """Before: "Copied" appeared in the verdict box, a screen away from the Copy pressed, and the kept links did not
    say which matches were over."""
    new_game(page, "catchup", size="3")
    running = create(page, ("Ann", "Bob"), 120, 60)
    over = create(page, ("Cid", "Dee"), 120, 60)
    copy = page.find_element(By.CSS_SELECTOR, f'#u-kept [data-match="{running}"] button[data-copy="1"]')
    copy.click()
    said = note_by(page, copy)
    assert said == "Copied" or said.startswith("Not copied: copy the link itself"), said
    others = page.find_elements(By.CSS_SELECTOR, "#u-kept button[data-copy]")
    assert [said_by(page, b) for b in others if b != copy] == [""] * (len(others) - 1)  # by the button pressed only
    box = page.execute_script(
        "const a = arguments[0].getBoundingClientRect(), b = arguments[0].nextElementSibling.getBoundingClientRect();"
        "return Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2)",
        copy,
    )
    assert box < 20, box  # on the button's line
    umpire_token = page.execute_script(
        "return JSON.parse(localStorage.getItem('umpire-desk.matches')).find((k) => k.id === arguments[0]).umpire", over
    )
    api(server, "POST", f"/v1/matches/{over}/abort", None, str(umpire_token))
    page.get(f"{server}/")
    idle(page)
    states = {k.get_attribute("data-match"): k for k in page.find_elements(By.CSS_SELECTOR, "#u-kept .u-kept")}
    assert "over: aborted, no result" in states[over].text and "u-over" in str(states[over].get_attribute("class"))
    assert "in play, ply 0" in states[running].text and "u-over" not in str(states[running].get_attribute("class"))
    page.execute_script("document.getElementById('u-kept').scrollIntoView()")
    shot(page, "kept")
    # The forum post's Copy says it by itself too.
    click(page, "u-copy-post")
    assert note_by(page, page.find_element(By.ID, "u-copy-post")) in ("Copied", "Not copied: select it below")


def test_take_back_says_where_it_works_and_a_branch_left_is_kept(page: WebDriver, shot: Shot) -> None:
    """Before: Take back was greyed out at an earlier position without a word, and "Back to the main line" threw
    the branch away (a study board keeps it)."""
    new_game(page, "catchup", size="3")
    for turn, cell in enumerate(("C3", "A1", "E3", "A2", "E1")):
        click_cell(page, cell)
        if ply(page) == turn:
            click(page, "u-play-button")
    main = moves(page)
    assert not page.find_element(By.ID, "u-take-back-why").is_displayed()
    page.find_element(By.XPATH, "//ol[@id='u-moves']//button[text()='3. E3']").click()
    idle(page)
    why = page.find_element(By.ID, "u-take-back-why")
    assert why.is_displayed() and "it works at the latest position" in why.text
    assert page.find_element(By.ID, "u-take-back").get_attribute("aria-describedby") == "u-take-back-why"
    for cell in ("B3", "B1"):
        click_cell(page, cell)
        click(page, "u-play-button")
    branch = moves(page)
    assert branch == ["start", "1. C3", "2. A1", "3. E3", "4. B3", "5. B1"]
    click(page, "u-main-line")
    assert moves(page) == main
    kept = page.find_elements(By.CSS_SELECTOR, "#u-branch-list button")
    assert [b.text for b in kept] == ["From move 3 (ply 3): B3, B1 (2 moves)"]
    shot(page, "kept")
    kept[0].click()
    idle(page)
    assert moves(page) == branch and text(page, "u-ply") == "ply 5 · move 5 of 5"
    assert [b.text for b in page.find_elements(By.CSS_SELECTOR, "#u-branch-list button")] == []  # shown, so not listed
    # A second branch from the branch's start: both are kept, and the main line too.
    page.find_element(By.XPATH, "//ol[@id='u-moves']//button[text()='3. E3']").click()
    idle(page)
    click_cell(page, "D2")
    click(page, "u-play-button")
    assert moves(page) == ["start", "1. C3", "2. A1", "3. E3", "4. D2"]
    assert [b.text for b in page.find_elements(By.CSS_SELECTOR, "#u-branch-list button")] == [
        "From move 3 (ply 3): B3, B1 (2 moves)"
    ]
    click(page, "u-main-line")
    assert moves(page) == main
    assert [b.text for b in page.find_elements(By.CSS_SELECTOR, "#u-branch-list button")] == [
        "From move 3 (ply 3): D2 (1 move)",
        "From move 3 (ply 3): B3, B1 (2 moves)",
    ]


def test_the_clocks_are_said_to_a_screen_reader_as_a_turn_runs_low(page: WebDriver, shot: Shot) -> None:
    """Before: the clocks' text is aria-live off (it changes four times a second), and nothing else said them: a
    player on a screen reader learnt of a low clock from the flag."""
    new_game(page, "catchup", size="3")
    match_id = create(page, ("Ann", "Bob"), 6, 7, start="created")  # 6 s of turn, then 7 s of bank: 13 s before the flag
    page.get(href(page, "0", match_id))
    idle(page)
    region = page.find_element(By.ID, "u-clock-said")
    assert region.get_attribute("aria-live") == "assertive" and region.get_attribute("aria-atomic") == "true"
    page.execute_script(
        "window.heard = [];"
        "new MutationObserver(() => window.heard.push(arguments[0].textContent))"
        ".observe(arguments[0], {childList: true, characterData: true, subtree: true});",
        region,
    )
    WebDriverWait(page, 20, poll_frequency=0.2).until(lambda d: "flag fell" in text(d, "u-clock-0"))
    heard = page.execute_script("return window.heard")
    # At 10 s before the flag (3 s into the turn), then the bank's start (6 s in); the minute and the 30 s had passed
    # when the page first saw the turn: not said.  Two sentences in 13 s, not one a second.
    assert heard == [
        "Ann (you): 10 seconds left before the flag.",
        "Ann (you): the turn's time is up; the bank runs, 0:07 left.",
    ], heard
