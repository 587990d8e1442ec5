"""gunicorn's settings beside the command line (service/run/serve.py passes
``--config python:service.run.gunicorn_conf``): when a worker exits, its live
gauges (``umpire_listeners``) leave the metrics every worker reports
(service/web/metrics.py), so a restarted worker's listeners are not counted twice."""

from __future__ import annotations

import os
from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
