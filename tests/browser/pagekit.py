"""Helpers of the page's browser tests (a module of its own, so that test files
can import it: the fixtures live in conftest.py): start headless Chromium,
and wait for the page to be idle."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts" / "browser"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def start_browser(width: int = 1280, height: int = 1000) -> WebDriver:
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            pytest.fail(f"{path} is missing: the page's tests need a browser (apt-get install -y {package}; make test does it)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="umpire-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    driver.profile_dir = profile  # type: ignore[attr-defined]
    return driver


def idle(driver: WebDriver, timeout: float = 15) -> None:
    """Wait until the page has loaded and no request of it is under way
    (long-polls of a match excepted), twice in a row."""
    script = "return document.body.dataset.ready === '1' && document.body.dataset.busy === '0'"

    def settled(d: WebDriver) -> bool:
        return (
            bool(d.execute_script(script))
            and bool(d.execute_async_script("const done = arguments[0]; setTimeout(() => done(true), 60)"))
            and bool(d.execute_script(script))
        )

    WebDriverWait(driver, timeout, poll_frequency=0.05).until(settled)


def unexpected(entry: dict[str, str]) -> bool:
    """A console entry that is an error of the page: not the events stream the page tries first, nor the
    browser refusing to ask before a seat's page is left by a test that never touched it (a
    beforeunload question needs a user's gesture first)."""
    held = entry.get("source") == "intervention" and "beforeunload" in entry["message"]
    return entry["level"] == "SEVERE" and "/events" not in entry["message"] and not held


@contextmanager
def without_event_source(driver: WebDriver) -> Iterator[None]:
    """Pages this window loads meanwhile are a browser without Server-Sent Events (they follow by long
    polls); the window's later pages have them again (the browsers live for the whole session)."""
    added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"})
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
