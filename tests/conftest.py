"""Shared fixtures: the Flask app and a test client whose every answer is checked
against ``openapi.yaml``.

``client`` is Flask's test client with one addition: each response is
validated, as it arrives, against the spec's schema for its path, method and
status (JSON Schema 2020-12, the dialect of OpenAPI 3.1).  A response the spec
does not describe - an undocumented status, a body of the wrong shape, a
non-JSON body - fails the test that produced it.  So the whole suite, the
tests in subdirectories included (they reuse these fixtures, overriding
``app`` when they need other configuration), keeps the contract honest.

What was checked is recorded on the session's :class:`SpecChecker` (fixture
``spec_checker``), so a test can assert coverage; the terminal summary lists
documented answers that no test produced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import liveserver
import openapi_check
import pytest
import stopping
from flask import Flask
from flask.testing import FlaskClient
from liveserver import LIVE, NO_BUDGETS
from openapi_check import SpecCheckedClient, SpecChecker, load_spec, spec_checker_instance

from service import create_app
from service.matches import db


@pytest.fixture
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The app without Redis: the stateless endpoints need none, and a Redis
    URL that cannot connect keeps any test from starting the embedded server
    (/v1/health answers 503 here).  tests/matches/ overrides this fixture."""
    nowhere = tmp_path_factory.getbasetemp() / "no-redis.sock"
    made = create_app({"TESTING": True, "REDIS_URL": f"unix://{nowhere}", **NO_BUDGETS})
    yield made
    db.close(made)  # the PNG renderer processes it started (service/api/renderer.py)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    app.test_client_class = SpecCheckedClient
    return app.test_client()


@pytest.fixture
def spec_checker() -> SpecChecker:
    return spec_checker_instance()


@pytest.fixture(scope="session")
def spec() -> dict[str, Any]:
    return load_spec()


def pytest_configure(config: pytest.Config) -> None:
    stopping.install()  # SIGTERM tears the fixtures down, as Ctrl-C does (tests/stopping.py)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    checker = openapi_check.current_checker()
    if checker is None or not checker.checked:
        return
    missing = sorted(checker.documented() - checker.checked)
    if missing:
        terminalreporter.write_sep("-", "openapi.yaml: documented answers no test produced")
        by_operation: dict[tuple[str, str], list[str]] = {}
        for path, method, status in missing:
            by_operation.setdefault((method, path), []).append(status)
        for (method, path), statuses in sorted(by_operation.items()):
            terminalreporter.write_line(f"{method} {path}: {' '.join(statuses)}")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server (gunicorn and an embedded Redis) for the whole session: its base URL."""
    with liveserver.serve(tmp_path_factory.mktemp("live"), **LIVE) as base:
        yield base
