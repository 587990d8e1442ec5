"""A test run stopped with SIGTERM (a CI job's timeout, ``kill``) ends as one stopped with Ctrl-C: pytest then
tears down every fixture it set up, so no headless Chromium, gunicorn or Redis a fixture started is left
running.  SIGTERM's default ends the process at once, teardowns and all: a killed ``make test`` left its
Chromium drawing pages, a tenth of a core, under a benchmark run after it (RELIABILITY.md, spectators)."""

from __future__ import annotations

import signal
import threading
from types import FrameType


def interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signum}")


def install() -> None:
    """SIGTERM as Ctrl-C, in the main thread (where a signal's handler can be set)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupted)
