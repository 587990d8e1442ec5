"""A test run stopped with SIGTERM tears its fixtures down (tests/stopping.py): what a fixture started (a
browser, a server) is stopped, as after Ctrl-C, not left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

CONFTEST = """
import stopping


def pytest_configure(config):
    stopping.install()
"""

A_RUN = """
import time
import pytest


@pytest.fixture(scope="session")
def started(tmp_path_factory):
    marks = __import__("pathlib").Path(__import__("os").environ["MARKS"])
    (marks / "started").touch()
    yield
    (marks / "torn down").touch()


def test_runs_long(started):
    time.sleep(60)
"""


@pytest.mark.parametrize("installed", [True, False], ids=["sigterm-as-ctrl-c", "sigterm-by-default"])
def test_a_run_stopped_by_sigterm_tears_its_fixtures_down(tmp_path: Path, installed: bool) -> None:
    run = tmp_path / "run"
    run.mkdir()
    marks = tmp_path / "marks"
    marks.mkdir()
    (run / "conftest.py").write_text(CONFTEST if installed else CONFTEST.replace("    stopping.install()", "    pass"))
    (run / "test_long.py").write_text(A_RUN)
    env = {**os.environ, "MARKS": str(marks), "PYTHONPATH": str(HERE)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(run), str(run / "test_long.py")]
    with open(tmp_path / "output", "wb") as output:
        proc = subprocess.Popen(cmd, cwd=run, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 60
        while not (marks / "started").exists():
            assert proc.poll() is None and time.monotonic() < end, (tmp_path / "output").read_text()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (marks / "torn down").exists() is installed, (tmp_path / "output").read_text()
    assert proc.returncode == (2 if installed else -signal.SIGTERM)  # pytest's "interrupted", or killed outright
