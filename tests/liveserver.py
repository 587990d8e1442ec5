"""A real server for the contract tests: ``python -m service.run.serve`` (gunicorn,
an embedded Redis in a temporary folder, no sweeper) on a free port of
127.0.0.1, stopped by its own process handle at the end.

tests/conftest.py's session fixture ``live_server`` starts one for the whole
run; schemathesis (tests/test_schemathesis.py) and the generated clients
(tests/test_clients.py) talk to it over HTTP.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from umpire.server import free_port

ROOT = Path(__file__).resolve().parent.parent

# The default budgets for creating matches and drawing pictures (service/web/ratelimit.py) are off for
# the suite's apps and servers, which draw dozens of pictures a second; tests/test_wrong_answers.py tests
# them.  Here, not in a conftest.py: two conftest modules (tests/ and tests/matches/) cannot both be
# imported by that name, and which one `import conftest` finds depends on the order of collection.
NO_BUDGETS = {"CREATE_RATE_LIMIT": "off", "RENDER_RATE_LIMIT": "off", "PNG_RATE_LIMIT": "off", "SUGGEST_RATE_LIMIT": "off"}

# The contract tests' servers (tests/conftest.py live_server, and tests/test_schemathesis.py's signing one):
# event streams end after a second, so that a client reading one (schemathesis) does not wait five minutes;
# the fuzzers create matches and draw pictures faster than the default budgets allow; a suggestion thinks at
# most 0.2 s, so fuzzing reaches suggest's logic without spending the run searching; and an admin token nobody
# sends: without one, listing matches is 403 admin_disabled whatever is sent (the spec, issue 34), where
# schemathesis holds a request without Authorization to 401.
LIVE = {"EVENTS_LIFETIME_S": "1", "SUGGEST_MAX_BUDGET_S": "0.2", "ADMIN_TOKEN": "unsent-admin-token", **NO_BUDGETS}


@contextmanager
def serve(folder: Path, **env: str) -> Iterator[str]:
    """The base URL of a server running with ``env`` on top of the environment."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    settings = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATA_DIR": str(folder / "data"),
        "SWEEPER": "0",
        "WEB_CONCURRENCY": "1",
        "THREADS": "8",
        "ACCESS_LOG": "",
        "LOG_FORMAT": "json",
        **env,
    }
    settings.pop("REDIS_URL", None)
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run.serve"], cwd=ROOT, env=settings, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/v1/health", timeout=1) as resp:
                        if resp.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log_path.read_text(errors='replace')}")
                time.sleep(0.1)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
