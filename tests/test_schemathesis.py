"""schemathesis against the real server: every operation of openapi.yaml, every check.

A real server (tests/conftest.py ``live_server``: gunicorn and Redis) is
fuzzed over HTTP by schemathesis's own runner, in its examples, coverage,
fuzzing and stateful phases (the links of ``createMatch`` feed real match ids
to the match operations), with every built-in check (no 5xx, every answer in the spec:
status, content type, headers, body; schema-valid requests accepted,
schema-invalid ones refused) and one of ours (tests/schemathesis_hooks.py:
a schema-valid request is refused only for a documented reason).  Bounded by
``ST_EXAMPLES`` examples per operation (default 25) and a fixed seed
(``ST_SEED``), so a failure reproduces; a run takes under a minute.  Run twice:
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
from liveserver import NO_BUDGETS

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def signed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server as tests/conftest.py's ``live_server``, signing its states."""
    live = {"EVENTS_LIFETIME_S": "1", "SUGGEST_MAX_BUDGET_S": "0.2", **NO_BUDGETS, "STATE_SECRET": "schemathesis-signs"}
    with liveserver.serve(tmp_path_factory.mktemp("signed"), **live) as base:
        yield base


@pytest.mark.slow
@pytest.mark.timeout(600)  # the run's own bound below; on a loaded machine it outlasts the suite's 300 s
@pytest.mark.parametrize("mode", ["plain", "signed"])
def test_schemathesis_finds_nothing(mode: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    live_server: str = request.getfixturevalue("signed_server" if mode == "signed" else "live_server")
    examples = os.environ.get("ST_EXAMPLES", "25")
    seed = os.environ.get("ST_SEED", "1")
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file", str(TESTS / "schemathesis.toml"),
        "run", str(ROOT / "openapi.yaml"),
        "--url", live_server,
        "--checks", "all",
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-examples", examples,
        "--seed", seed,
        "--workers", "2",
        "--generation-database", "none",
        "--request-timeout", "10",
    ]  # fmt: skip
    played = tmp_path / "played.txt"  # tests/schemathesis_hooks.py: a line per move or resignation accepted
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
        "PYTHONPATH": str(TESTS),
        "NO_COLOR": "1",
        "ST_BASE_URL": live_server,
        "ST_PLAYED": str(played),
        "ST_SEED": seed,
        "ST_SIGNED": "1" if mode == "signed" else "0",
    }
    started = time.monotonic()
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    took = time.monotonic() - started
    out = done.stdout + done.stderr
    summary = re.search(r"(\d+) generated", out)
    accepted = played.read_text(encoding="utf-8").split() if played.exists() else []
    moves, resigns = accepted.count("moves"), accepted.count("resign")
    cases = summary.group(0) if summary else "?"
    print(f"schemathesis: {cases} test cases in {took:.1f} s; accepted {moves} moves and {resigns} resignations")
    assert done.returncode == 0, out[-20000:]
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
