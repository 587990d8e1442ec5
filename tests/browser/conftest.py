"""The page in a real browser: headless Chromium driven by Selenium against a
real server (``python -m service.run.serve``: gunicorn, its embedded Redis in a
temporary folder, a sweeper, on a free port; the tournament harness's
``EmbeddedServer``).

There is no skipping here: without Chromium and its driver the tests fail,
naming what to install (``make test`` installs them when they are missing).
Screenshots are kept in ``test-artifacts/browser/`` (ignored by git) for a
person to look at.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pagekit import ARTIFACTS, idle, start_browser, unexpected
from selenium.webdriver.remote.webdriver import WebDriver

from umpire.server import EmbeddedServer


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    with EmbeddedServer(workers=1, threads=16) as s:
        yield s.url


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    driver = start_browser()
    yield driver
    driver.quit()
    shutil.rmtree(driver.profile_dir, ignore_errors=True)  # type: ignore[attr-defined]


def fresh(browser: WebDriver, server: str) -> WebDriver:
    """The browser with one window, at a desktop size, on the page freshly loaded with nothing kept."""
    for handle in browser.window_handles[1:]:
        browser.switch_to.window(handle)
        browser.close()
    browser.switch_to.window(browser.window_handles[0])
    for cmd in ("Emulation.clearDeviceMetricsOverride", "Emulation.setTouchEmulationEnabled"):
        browser.execute_cdp_cmd(cmd, {"enabled": False} if "Touch" in cmd else {})
    browser.get(f"{server}/")
    if browser.execute_script("const kept = localStorage.length; localStorage.clear(); return kept"):
        browser.get(f"{server}/")  # the seat links an earlier test's matches left: each test starts with none
    idle(browser)
    return browser


def leave(browser: WebDriver) -> None:
    """Every page left for a blank one once its test is over and its log read, so that nothing it still does (a
    poll, a timer reading the webhooks' deliveries) asks a server a module has stopped, and fails in the log the
    next test reads (a refused connection to test_page_matches' server, read by test_page_mistakes)."""
    for handle in browser.window_handles:  # every window a test opened
        browser.switch_to.window(handle)
        browser.get("about:blank")
    browser.switch_to.window(browser.window_handles[0])


def clean_log(browser: WebDriver) -> None:
    errors = [e for e in browser.get_log("browser") if unexpected(e)]
    assert errors == [], errors  # no script error, no failed request


@pytest.fixture
def page(browser: WebDriver, server: str) -> Iterator[WebDriver]:
    """The page, freshly loaded in one window at a desktop size."""
    yield fresh(browser, server)
    clean_log(browser)
    leave(browser)


@pytest.fixture(scope="session")
def profiles() -> Iterator[list[WebDriver]]:
    """Two more browsers, each with a profile of its own (its own storage: kept links, settings), started
    when a test first asks for them: the people of a match besides ``page`` (the umpire's browser)."""
    drivers = [start_browser() for _ in range(2)]
    yield drivers
    for driver in drivers:
        driver.quit()
        shutil.rmtree(driver.profile_dir, ignore_errors=True)  # type: ignore[attr-defined]


@pytest.fixture
def people(page: WebDriver, profiles: list[WebDriver], server: str) -> Iterator[tuple[WebDriver, WebDriver, WebDriver]]:
    """The umpire's browser (``page``) and two others, each on the page freshly loaded: one person each."""
    others = [fresh(d, server) for d in profiles]
    yield page, others[0], others[1]
    for d in others:
        clean_log(d)
        leave(d)


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[[WebDriver, str], Path]:
    """Save a screenshot under test-artifacts/browser/<test>-<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(driver: WebDriver, name: str) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{name}.png"
        driver.save_screenshot(str(path))
        return path

    return save
