"""openapi.yaml passes Redocly CLI's lint (redocly.yaml: every recommended rule, as an error).

Redocly is pinned in clients/package.json beside the contract tests' other
tools, installed by ``make test`` (``npm ci``); ``make speclint`` runs the same
lint.  What it found once (issue 20): public operations without ``security:
[]``, no operation declaring the ``405`` every address answers, the event
stream's schema an object while its example is text, the ``/openapi.yaml``
answer requiring fields it never defined, an unused schema.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDOCLY = ROOT / "clients" / "node_modules" / ".bin" / "redocly"
QUIET = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}


def test_the_spec_lints_clean() -> None:
    assert REDOCLY.exists(), "clients/node_modules is missing: `make test` installs it (cd clients && npm ci)"
    done = subprocess.run(
        [str(REDOCLY), "lint", "openapi.yaml", "--config", "redocly.yaml", "--format", "stylish"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, **QUIET},
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert " error " not in output and " warning " not in output, output
