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

from collections.abc import Callable
from pathlib import Path

import pytest
from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from test_page import phone
from test_page_mistakes import enter
from test_page_umpire import create, href

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
