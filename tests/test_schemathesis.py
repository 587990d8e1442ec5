"""schemathesis against the real server: every operation of openapi.yaml, every check.

A real server (tests/conftest.py ``live_server``: gunicorn and Redis) is
fuzzed over HTTP by schemathesis's own runner, in its examples, coverage,
fuzzing and stateful phases (the links of ``createMatch`` feed real match ids
to the match operations), with every built-in check (no 5xx, every answer in the spec:
status, content type, headers, body; schema-valid requests accepted,
schema-invalid ones refused) and one of ours (tests/schemathesis_hooks.py:
a schema-valid request is refused only for a documented reason).  Bounded by
``ST_EXAMPLES`` examples per operation (default 25) and a fixed seed
(``ST_SEED``), so a failure reproduces; the two runs go at once.  Run twice:
against the server as it is by default, and against one that signs its states
(``STATE_SECRET``), where a state the fuzzer makes up is refused ``422
bad_signature`` (issue 34, item 11: the signed mode was never fuzzed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import liveserver
import pytest
from liveserver import LIVE

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def signed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server as tests/conftest.py's ``live_server``, signing its states."""
    with liveserver.serve(tmp_path_factory.mktemp("signed"), **LIVE, STATE_SECRET="schemathesis-signs") as base:
        yield base


@pytest.mark.slow
@pytest.mark.timeout(600)  # the runs' own bound below; on a loaded machine they outlast the suite's 300 s
def test_schemathesis_finds_nothing(live_server: str, signed_server: str, tmp_path: Path) -> None:
    """Both runs at once, each a process of one worker: hypothesis raises the recursion limit around a
    draw (``sys.setrecursionlimit``), and on CPython 3.11 a second worker thread of the same process
    inside ``ast.parse`` then fails with "SystemError: AST constructor recursion depth mismatch" (a bug
    of CPython 3.11's ast module), which the run reports as an error."""
    runs = {mode: Run(mode, base, tmp_path / mode) for mode, base in (("plain", live_server), ("signed", signed_server))}
    for run in runs.values():
        run.check()


class Run:
    """One schemathesis run against ``base``, started at once, checked by :meth:`check`."""

    def __init__(self, mode: str, base: str, folder: Path) -> None:
        folder.mkdir()
        self.mode = mode
        self.seed = os.environ.get("ST_SEED", "1")
        command = [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file", str(TESTS / "schemathesis.toml"),
            "run", str(ROOT / "openapi.yaml"),
            "--url", base,
            "--checks", "all",
            "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", os.environ.get("ST_EXAMPLES", "25"),
            "--seed", self.seed,
            "--workers", "1",
            "--generation-database", "none",
            "--request-timeout", "10",
        ]  # fmt: skip
        self.played = folder / "played.txt"  # tests/schemathesis_hooks.py: a line per move or resignation accepted
        env = {
            **os.environ,
            "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
            "PYTHONPATH": str(TESTS),
            "NO_COLOR": "1",
            "ST_BASE_URL": base,
            "ST_PLAYED": str(self.played),
            "ST_SEED": self.seed,
            "ST_SIGNED": "1" if mode == "signed" else "0",
        }
        self.started = time.monotonic()
        self.proc = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def check(self) -> None:
        try:
            out, _ = self.proc.communicate(timeout=max(1.0, 580 - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
            pytest.fail(f"schemathesis ({self.mode}) ran past 580 s: {out[-5000:]}")
        took = time.monotonic() - self.started
        summary = re.search(r"(\d+) generated", out)
        accepted = self.played.read_text(encoding="utf-8").split() if self.played.exists() else []
        moves, resigns = accepted.count("moves"), accepted.count("resign")
        cases = summary.group(0) if summary else "?"
        print(
            f"schemathesis ({self.mode}): {cases} test cases in {took:.1f} s; accepted {moves} moves and {resigns} resignations"
        )
        assert self.proc.returncode == 0, out[-20000:]
        assert summary is not None and int(summary.group(1)) > 1000, out[-5000:]
        tested = re.search(r"Tested: (\d+)", out)
        assert tested is not None and int(tested.group(1)) == operations(), out[-5000:]  # every operation of the spec
        # the stateful phase plays: moves and resignations get past the seat's token to the referee
        assert moves >= 5 and resigns >= 1, (moves, resigns, out[-3000:])


def operations() -> int:
    """How many operations openapi.yaml describes."""
    import yaml

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    return sum(1 for item in spec["paths"].values() for method in ("get", "put", "post", "delete", "patch") if method in item)
