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
from pagekit import ARTIFACTS, idle, start_browser
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


@pytest.fixture
def page(browser: WebDriver, server: str) -> Iterator[WebDriver]:
    """The page, freshly loaded in one window at a desktop size."""
    for handle in browser.window_handles[1:]:
        browser.switch_to.window(handle)
        browser.close()
    browser.switch_to.window(browser.window_handles[0])
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.get(f"{server}/")
    if browser.execute_script("const kept = localStorage.length; localStorage.clear(); return kept"):
        browser.get(f"{server}/")  # the seat links an earlier test's matches left: each test starts with none
    idle(browser)
    yield browser
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "/events" not in e["message"]]
    assert errors == [], errors  # no script error, no failed request (but the events stream the page tries first)


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[[WebDriver, str], Path]:
    """Save a screenshot under test-artifacts/browser/<test>-<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(driver: WebDriver, name: str) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{name}.png"
        driver.save_screenshot(str(path))
        return path

    return save
