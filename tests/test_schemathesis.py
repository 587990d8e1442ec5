"""schemathesis against the real server: every operation of openapi.yaml, every check.

A real server (tests/conftest.py ``live_server``: gunicorn and Redis) is
fuzzed over HTTP by schemathesis's own runner, in its examples, coverage,
fuzzing and stateful phases (the links of ``createMatch`` feed real match ids
to the match operations), with every built-in check (no 5xx, every answer in the spec:
status, content type, headers, body; schema-valid requests accepted,
schema-invalid ones refused) and one of ours (tests/schemathesis_hooks.py:
a schema-valid request is refused only for a documented reason).  Bounded by
``ST_EXAMPLES`` examples per operation (default 25) and a fixed seed
(``ST_SEED``), so a failure reproduces; a run takes under a minute.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


@pytest.mark.slow
def test_schemathesis_finds_nothing(live_server: str, tmp_path: Path) -> None:
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
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(TESTS), "NO_COLOR": "1"}
    started = time.monotonic()
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    took = time.monotonic() - started
    out = done.stdout + done.stderr
    summary = re.search(r"(\d+) generated", out)
    print(f"schemathesis: {summary.group(0) if summary else '?'} test cases in {took:.1f} s")
    assert done.returncode == 0, out[-20000:]
    assert summary is not None and int(summary.group(1)) > 1000, out[-5000:]
    tested = re.search(r"Tested: (\d+)", out)
    assert tested is not None and int(tested.group(1)) == operations(), out[-5000:]  # every operation of the spec


def operations() -> int:
    """How many operations openapi.yaml describes."""
    import yaml

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    return sum(1 for item in spec["paths"].values() for method in ("get", "put", "post", "delete", "patch") if method in item)
