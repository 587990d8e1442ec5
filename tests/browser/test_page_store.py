"""The page as modules, in the browser (issue 33; tests/test_page_modules.py
reads them as files): they load under the page's Content-Security-Policy
without a word in the console, and the state they share is the store's
(service/api/static/store.js), which no other module can change behind its
back."""

from __future__ import annotations

from pagekit import idle
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_page import new_game, text


def in_store(d: WebDriver, body: str) -> object:
    """`body` run in the page with its store as `store` (a module is one instance per page, whoever
    imports it); what it returns, or the name of what it threw."""
    script = (
        "const done = arguments[arguments.length - 1];"
        "import('/static/store.js').then((store) => {"
        f"  try {{ done((() => {{ 'use strict'; {body} }})()); }} catch (err) {{ done(err.name); }}"  # strict, as a module is
        "}, (err) => done(`import: ${err}`));"
    )
    return d.execute_async_script(script)


def test_the_modules_load_without_a_word_in_the_console(page: WebDriver) -> None:
    """No script error, no module refused (MIME type, CSP), no preload left unused: not even a warning."""
    new_game(page, "catchup", size="3")
    said = [(e["level"], e["message"]) for e in page.get_log("browser")]  # type: ignore[attr-defined]
    assert said == []
    assert page.execute_script("return document.body.dataset.ready") == "1"


def test_the_state_is_the_store_s_and_frozen_to_the_other_modules(page: WebDriver) -> None:
    new_game(page, "catchup", size="3")
    move = page.find_element(By.ID, "u-move")
    move.send_keys("C3")
    page.find_element(By.ID, "u-play-button").click()
    idle(page)
    assert text(page, "u-verdict").startswith("Legal: C3")
    # The store the page's modules share: the line the page shows, read through its getters.
    assert in_store(page, "return [store.game(), store.positions().length, store.latest().move, store.atLatest()];") == [
        "catchup", 2, "C3", True,
    ]  # fmt: skip
    # What a module reads cannot be changed behind the store's back: an assignment throws (modules are strict).
    assert in_store(page, "store.latest().move = 'E5'; return 'changed';") == "TypeError"
    assert in_store(page, "store.positions().push({}); return 'changed';") == "TypeError"
    assert in_store(page, "store.prefix().push('E5'); return 'changed';") == "TypeError"
    assert in_store(page, "return store.latest().move;") == "C3"
    # Only its named operations change it, and the page follows: back one move, as the History's button does.
    page.find_element(By.ID, "u-back").click()
    idle(page)
    assert in_store(page, "return [store.at(), store.atLatest()];") == [0, False]
    assert page.get_log("browser") == []  # type: ignore[attr-defined]  # the throws above were the test's own, caught: nothing reached the console
