"""Play against the computer on the page (issue 23): a strength chosen
(random, greedy, or a search at a few budgets: ``mcts``, and ``strong``, issue 37), the computer's moves
asked of ``POST /v1/games/{game}/suggest`` and played through ``play`` as a
person's are, in a real browser against a real server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_page import new_game, ply, text

Shot = Callable[[WebDriver, str], Path]


def settle(d: WebDriver, plies: int) -> None:
    """Wait (bounded) until the game has ``plies`` moves and the computer is not thinking."""
    WebDriverWait(d, 20, poll_frequency=0.05).until(
        lambda _: ply(d) == plies and d.execute_script("return document.body.dataset.thinking !== '1'")
    )
    idle(d)


def my_move(d: WebDriver) -> str:
    """A person's move: the first cell the page offers as a legal step (clicked: a one-cell move is played)."""
    if not d.find_element(By.ID, "u-show-legal").is_selected():
        d.find_element(By.ID, "u-show-legal").click()
        idle(d)
    buttons = [b for b in d.find_elements(By.CSS_SELECTOR, "#u-steps button") if b.text != "swap"]
    assert buttons, text(d, "u-legal")
    step = buttons[0].text
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", buttons[0])
    buttons[0].click()
    return step


def test_a_game_against_the_computer(page: WebDriver, shot: Shot) -> None:
    new_game(page, "plur", size="4")
    computer = page.find_element(By.ID, "u-computer")
    assert computer.is_displayed() and "Play against the computer" in computer.text
    strengths = [o.get_attribute("value") for o in Select(page.find_element(By.ID, "u-bot")).options]
    assert strengths == ["", "random", "greedy", "mcts:0.1", "mcts:0.5", "mcts:1.5", "strong:0.3", "strong:1.5"]
    seats = [o.text for o in Select(page.find_element(By.ID, "u-bot-seat")).options]
    assert len(seats) == 2  # the game's own names for its players
    Select(page.find_element(By.ID, "u-bot")).select_by_value("strong:0.3")
    idle(page)
    assert ply(page) == 0  # the computer plays the second seat by default: it waits for the person
    for turn in range(3):
        mine = my_move(page)
        settle(page, 2 * turn + 2)  # the person's move, then the computer's answer
        moves = [li.text for li in page.find_elements(By.CSS_SELECTOR, "#u-moves li")]
        assert mine in moves[-2], moves
        assert text(page, "u-verdict").startswith("The computer (Strong, 0.3 s a move) plays "), text(page, "u-verdict")
    shot(page, "after-six-plies")
    # The computer takes the other seat and moves at once when that seat is to move; "move now" asks it for any seat.
    Select(page.find_element(By.ID, "u-bot")).select_by_value("random")
    Select(page.find_element(By.ID, "u-bot-seat")).select_by_value("0")
    settle(page, 7)
    assert text(page, "u-verdict").startswith("The computer (Random (weakest)) plays ")
    page.find_element(By.ID, "u-bot-move").click()
    settle(page, 8)
    assert text(page, "u-verdict").startswith("The computer (Random (weakest)) plays ")
    # Off: nobody answers the person's move.
    Select(page.find_element(By.ID, "u-bot")).select_by_value("")
    my_move(page)
    settle(page, 9)
    assert text(page, "u-verdict").startswith("Legal: ")
    assert page.find_element(By.ID, "u-bot-move").get_attribute("disabled") is not None
    shot(page, "off")


def test_the_computer_opens_when_its_seat_moves_first(page: WebDriver, shot: Shot) -> None:
    Select(page.find_element(By.ID, "u-bot")).select_by_value("greedy")
    Select(page.find_element(By.ID, "u-bot-seat")).select_by_value("0")
    new_game(page, "plur", size="4")
    settle(page, 1)
    assert text(page, "u-verdict").startswith("The computer (Greedy (one move ahead)) plays ")
    shot(page, "greedy-opened")
