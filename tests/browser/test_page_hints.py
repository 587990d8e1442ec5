"""The page learns every game from ``GET /v1/games`` (each game's ``hints``,
engine/games/<game>/hints.py) and the legal-moves prefix calls (issue 19): Too
played by clicks with the colour choice (issue 22), Crystal's draft by clicks
(``blue green`` is two steps, R-X1), every game's example moves played on the
page, and the ends the page once had no words for (``illegal``, ``aborted``)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from test_page import cells, classes, click_cell, new_game, phone, ply, text

Shot = Callable[[WebDriver, str], Path]


def games(server: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{server}/v1/games", timeout=10) as resp:
        found: list[dict[str, Any]] = json.loads(resp.read())["games"]
        return found


def steps_offered(d: WebDriver) -> list[str]:
    if not d.find_element(By.ID, "u-legal").is_displayed():
        return []
    return [b.text for b in d.find_elements(By.CSS_SELECTOR, "#u-steps button")]


def click_step(d: WebDriver, step: str) -> None:
    buttons = [b for b in d.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text == step]
    assert buttons, f"{step!r} is not offered: {steps_offered(d)}"
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", buttons[0])
    buttons[0].click()
    idle(d)


def replay(d: WebDriver, game: str, options: dict[str, Any], moves: list[str]) -> None:
    """Paste a record (its [Game] and [Options] lines, then the moves) and replay it."""
    d.find_element(By.ID, "u-tab-record").click()
    lines = [f'[Game "{game}"]', f"[Options {json.dumps(options)}]", ""] + [f"{i + 1}. {m}" for i, m in enumerate(moves)]
    box = d.find_element(By.ID, "u-record-text")
    box.clear()
    box.send_keys("\n".join(lines))
    d.find_element(By.CSS_SELECTOR, "#u-record button[type=submit]").click()
    idle(d)


def play_typed(d: WebDriver, move: str) -> None:
    box = d.find_element(By.ID, "u-move")
    box.clear()
    box.send_keys(move, Keys.ENTER)
    idle(d)


def test_too_is_played_by_clicks_with_the_colour_choice(page: WebDriver, shot: Shot) -> None:
    """R-E2: a stone of either colour; the step is colour then cell (``W B2``).
    Before, every click in Too failed ("'C3' is not a colour")."""
    new_game(page, "too", size="3")
    choice = page.find_element(By.ID, "u-choice")
    assert choice.is_displayed() and choice.text.split("\n") == ["Colour", "Black", "White"]
    picked = page.find_element(By.CSS_SELECTOR, "#u-choice input:checked")
    assert picked.get_attribute("value") == "B"  # the first choice until another is picked
    page.find_element(By.CSS_SELECTOR, '#u-choice input[value="W"]').click()
    click_cell(page, "B2")  # one stone a turn: the move cannot go on, so it is played
    assert ply(page) == 1, text(page, "u-verdict")
    assert text(page, "u-verdict").startswith("Legal: W B2")
    assert cells(page)["B2"] == "B2, white stone"
    # By the keyboard alone: on a focused cell, B picks black, Enter places it.
    cell = page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="C3"]')
    page.execute_script("arguments[0].focus()", cell)
    page.switch_to.active_element.send_keys("b")
    assert page.find_element(By.CSS_SELECTOR, "#u-choice input:checked").get_attribute("value") == "B"
    page.switch_to.active_element.send_keys(Keys.ENTER)
    idle(page)
    assert ply(page) == 2 and cells(page)["C3"] == "C3, black stone"
    assert [b.text for b in page.find_elements(By.CSS_SELECTOR, "#u-moves button")] == ["start", "1. W B2", "2. B C3"]
    # An occupied cell is refused with its reason and marked; the legal cells are shown for the colour picked.
    occupied = page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="B2"]')  # the cell, its stone on top
    occupied.click()
    idle(page)
    assert ply(page) == 2 and "B2" in text(page, "u-verdict") and "occupied" in text(page, "u-verdict")
    assert "u-wrong" in classes(page, "B2")
    page.find_element(By.ID, "u-show-legal").click()
    idle(page)
    assert "u-open" in classes(page, "A1") and "u-open" not in classes(page, "C3")
    shot(page, "desktop")
    phone(page)
    page.execute_script("document.getElementById('u-choice').scrollIntoView()")
    shot(page, "phone")


def test_crystal_s_draft_by_clicks_takes_blue_green_as_two_steps(page: WebDriver, shot: Shot) -> None:
    """R-X1: the second picker names two colours, one step each; the page once
    sent ``blue green`` as one step, which the engine refuses as a prefix."""
    new_game(page, "crystal", seed="19")
    assert not page.find_element(By.ID, "u-choice").is_displayed()
    assert "made of words, not cells" in text(page, "u-board-help")
    assert page.find_element(By.CSS_SELECTOR, '#u-board [data-cell="A1"]').get_attribute("role") is None
    assert "first or second, who picks a colour first" in text(page, "u-turn")
    assert steps_offered(page) == ["first", "second"]
    click_step(page, "first")
    assert ply(page) == 1 and steps_offered(page) == ["red", "blue", "green", "yellow"]
    click_step(page, "red")
    assert ply(page) == 2 and "two colours" in text(page, "u-turn")
    click_step(page, "blue")  # the first of two steps: the move goes on
    assert ply(page) == 2 and page.find_element(By.ID, "u-move").get_attribute("value") == "blue"
    assert steps_offered(page) == ["green", "yellow"] and "blue: the move goes on." in text(page, "u-verdict")
    shot(page, "half-a-pick")
    click_step(page, "green")
    assert ply(page) == 3, text(page, "u-verdict")
    assert [b.text for b in page.find_elements(By.CSS_SELECTOR, "#u-moves button")][-1] == "3. blue green"
    click_step(page, "second")
    assert ply(page) == 4 and text(page, "u-turn").startswith("Player 1 to move: 3 shifts")
    for _ in range(3):
        offered = [s for s in steps_offered(page) if not s.startswith("Play ")]
        click_step(page, offered[0])
    assert ply(page) == 5, text(page, "u-verdict")
    shot(page, "first-turn")


def test_every_game_s_example_moves_play_on_the_page(page: WebDriver, server: str, shot: Shot) -> None:
    """Each game's examples (its hints) are legal one after another from its
    example options, typed into the page as a person would."""
    described = games(server)
    assert len(described) >= 5
    for game in described:
        hints = game["hints"]
        replay(page, game["name"], hints["example_options"], [])
        assert ply(page) == 0, text(page, "u-verdict")
        assert text(page, "u-syntax").startswith(hints["syntax"])
        for i, move in enumerate(hints["examples"]):
            assert page.find_element(By.ID, "u-move").get_attribute("placeholder") == move
            play_typed(page, move)
            assert ply(page) == i + 1, f"{game['name']} {move}: {text(page, 'u-verdict')}"
            assert text(page, "u-verdict").startswith("Legal: ")
        shot(page, game["name"])


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("forfeit 1", "The game is over. Red wins: the opponent's illegal move forfeits the game."),
        ("abort", "The game is over. The umpire aborted the game: no result."),
        ("resign 0", "The game is over. Blue wins by resignation."),
    ],
)
def test_the_page_says_how_a_game_ended_in_the_engine_s_words(page: WebDriver, shot: Shot, entry: str, said: str) -> None:
    """The ends common to every game (R-T1; a match's forfeit and an umpire's
    abort), which the page's own table once lacked."""
    replay(page, "catchup", {"size": 3}, ["C3", entry])
    assert ply(page) == 2, text(page, "u-verdict")
    assert text(page, "u-turn") == said
    assert page.find_element(By.ID, "u-move").get_attribute("disabled") is not None
    shot(page, entry.split()[0])


def test_a_word_step_beside_cell_steps_is_offered_as_a_word(page: WebDriver, shot: Shot) -> None:
    """R-E1a: with Plur's pie rule, player 1's first turn may be ``swap``, a
    step no click on a cell makes: the page offers it under "Play or check"."""
    page.find_element(By.ID, "u-tab-new").click()
    Select(page.find_element(By.ID, "u-game")).select_by_value("plur")
    page.find_element(By.ID, "u-opt-pie").click()
    new_game(page, "plur", size="3")
    assert steps_offered(page) == []  # cells only: nothing to offer as words
    click_cell(page, "B2")
    assert ply(page) == 1 and cells(page)["B2"] == "B2, black stone"
    assert steps_offered(page) == ["swap"] and text(page, "u-legal-head") == "A cell on the board, or this step:"
    shot(page, "swap-offered")
    click_step(page, "swap")
    assert ply(page) == 2 and cells(page)["B2"] == "B2, white stone", text(page, "u-verdict")


def test_product_is_played_by_clicks_two_stones_a_turn(page: WebDriver, shot: Shot) -> None:
    """R-E4, R-E4a: the first turn places one stone, every later turn two, each of
    either colour; the page learns this from Product's hints and the prefix calls
    (the move is played when the engine says it is complete), with no table of its own."""
    new_game(page, "product", size="3")
    page.find_element(By.CSS_SELECTOR, '#u-choice input[value="W"]').click()
    click_cell(page, "C3")  # the first turn: one stone, so the move is complete and played
    assert ply(page) == 1 and text(page, "u-verdict").startswith("Legal: W C3")
    page.find_element(By.CSS_SELECTOR, '#u-choice input[value="B"]').click()
    click_cell(page, "A1")  # a second stone is due: not played yet
    assert ply(page) == 1
    page.find_element(By.CSS_SELECTOR, '#u-choice input[value="W"]').click()
    click_cell(page, "C4")
    assert ply(page) == 2, text(page, "u-verdict")
    assert text(page, "u-verdict").startswith("Legal: B A1 W C4")
    assert cells(page)["A1"] == "A1, black stone (Black's colour)" and cells(page)["C4"] == "C4, white stone (White's colour)"
    shot(page, "product")
