"""The server a tournament plays on when no ``--server`` is given: the project's
own ``python -m service.run.serve`` (gunicorn, the embedded Redis, a sweeper),
started as a subprocess on 127.0.0.1, a free port and a temporary DATA_DIR,
and stopped (with its Redis and its folder) when the tournament ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from umpire.client import MatchClient, ServiceError

START_TIMEOUT_S = 60.0


def _end_with_parent() -> None:
    """In the child before it runs: SIGTERM when the harness's thread that started it ends (Linux's
    PR_SET_PDEATHSIG), so that a harness killed outright leaves no server behind; elsewhere nothing."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class EmbeddedServer:
    """``with EmbeddedServer() as server: MatchClient(server.url)``.

    ``workers`` and ``threads`` are gunicorn's (``WEB_CONCURRENCY``, ``THREADS``).
    The environment's ``REDIS_URL`` is not passed on: the server always gets a
    fresh embedded Redis in its temporary folder, so a tournament never writes
    into somebody else's Redis by accident (``--server`` plays on any server)."""

    def __init__(self, workers: int = 2, threads: int = 16, sweeper: bool = True, admin_token: str | None = None) -> None:
        self.workers = workers
        self.threads = threads
        self.sweeper = sweeper
        self.admin_token = admin_token
        self.port = 0
        self.url = ""
        self.folder: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> EmbeddedServer:
        self.folder = Path(tempfile.mkdtemp(prefix="umpire-tournament-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "UMPIRE_TOKEN")}
        if self.admin_token:
            env["ADMIN_TOKEN"] = self.admin_token
        env.update(
            HOST="127.0.0.1",
            PORT=str(self.port),
            DATA_DIR=str(self.folder / "data"),
            SWEEPER="1" if self.sweeper else "0",
            WEB_CONCURRENCY=str(self.workers),
            THREADS=str(self.threads),
            ACCESS_LOG="",  # no line per request
            CREATE_RATE_LIMIT="off",  # its own server, on loopback: a tournament creates a match per game, fast
        )
        log = open(self.folder / "server.log", "wb")  # noqa: SIM115 - the server's output, read when it fails
        # A session of its own, so that a Ctrl-C at the terminal reaches only the harness, which first
        # aborts the games in play on this server and then stops it; it still ends if the harness dies.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.run.serve"], env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=_end_with_parent,
        )  # fmt: skip
        log.close()
        self._wait_up()
        return self

    def _wait_up(self) -> None:
        assert self.process is not None
        client = MatchClient(self.url, timeout_s=2.0)
        end = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                client.health()
                client.close()
                return
            except ServiceError:
                pass
            if self.process.poll() is not None or time.monotonic() > end:
                log = self.log_tail()
                self.stop()
                raise RuntimeError(f"the embedded server did not start:\n{log}")
            time.sleep(0.1)

    def log_tail(self, lines: int = 30) -> str:
        if self.folder is None:
            return ""
        try:
            text = (self.folder / "server.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM: service.run.serve stops gunicorn, the sweeper and its Redis in order."""
        proc, self.process = self.process, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
