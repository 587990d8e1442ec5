"""A bounded pool of helper processes, for CPU-bound work that must not run
in a worker's event loop (a gevent worker runs one greenlet at a time: a
second of CPU in a request holds every other request of the worker).

``processes`` helpers, each started on first use and reused while it lives
(or all started at once and kept so, :meth:`BoundedPool.warm`: a helper that
fails is then replaced at once, so that no request waits for one to start);
at most ``queue`` requests of this app process wait for a free one beside
those being served, and one more is refused at once (:class:`Busy`: the
service answers ``503`` with ``Retry-After``), never left to stall; a waiting
request gives up after ``wait_s``, or at its own deadline if sooner.  A helper
whose work failed or took too long is closed, and the next request starts
another.

The helpers are talked to over pipes, waiting with ``select``
(:func:`read_line`, :func:`write_all`), which gevent makes cooperative: a
waiting request holds no thread and leaves the event loop free.

The PNG renderers (service/api/renderer.py, issue 20) and the built-in bots'
searches (service/api/searcher.py, issue 23) use it, each with its own pool and
settings: pictures and searches share one bounded mechanism.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar


class Busy(Exception):
    """Every helper is busy and the queue is full, or the work took too long."""


class Helper(Protocol):
    @property
    def alive(self) -> bool: ...

    def close(self) -> None: ...


H = TypeVar("H", bound=Helper)


class BoundedPool(Generic[H]):
    """``processes`` helpers made by ``start`` and at most ``queue`` requests waiting for one."""

    def __init__(self, start: Callable[[], H], processes: int = 1, queue: int = 2, wait_s: float = 10.0) -> None:
        self.start, self.processes, self.queue, self.wait_s = start, processes, queue, wait_s
        self._lock = threading.Lock()
        self._free = threading.Semaphore(processes)
        self._idle: list[H] = []
        self.started = 0  # helpers started so far (a failed one is replaced)
        self.inflight = 0  # requests served or waiting for a helper, in this process
        self.warmed = False  # helpers are started ahead of the requests (warm) and a failed one replaced at once

    @property
    def full(self) -> bool:
        """No room now: a new request would be refused."""
        return self.inflight >= self.processes + self.queue

    def warm(self) -> None:
        """Start the helpers now rather than on first use (call it once, when
        the pool is made), and from now on replace a failed one at once.
        Starting does not wait for a helper: it gets ready on its own."""
        with self._lock:
            self.warmed = True
            missing = self.processes - len(self._idle)
        for _ in range(missing):
            self._add_idle()

    def _retire(self, failed: H) -> None:
        """Close a helper whose work failed or took too long, and (warm) start its
        replacement, off the request's path: stopping a process and starting
        another take milliseconds the request's answer should not wait for."""

        def retire() -> None:
            failed.close()
            if self.warmed:
                self._add_idle()

        threading.Thread(target=retire, name="procpool-retire", daemon=True).start()

    def _add_idle(self) -> None:
        made = self.start()
        with self._lock:
            self.started += 1
            self._idle.append(made)

    @contextlib.contextmanager
    def helper(self, what: str = "helper", deadline: float | None = None) -> Iterator[H]:
        """A free helper for the duration of the block; :class:`Busy` at once
        when the queue is full, or when none is free by ``deadline`` (a time of
        ``time.monotonic``) or within ``wait_s``.  An exception out of the
        block closes it."""
        with self._lock:
            if self.inflight >= self.processes + self.queue:
                raise Busy(f"Every {what} is busy and the queue is full.")
            self.inflight += 1
        try:
            wait = self.wait_s if deadline is None else max(0.0, min(self.wait_s, deadline - time.monotonic()))
            if not self._free.acquire(timeout=wait):
                raise Busy(f"No {what} became free in time.")
            try:
                with self._lock:
                    found = self._idle.pop() if self._idle else None
                if found is None or not found.alive:
                    if found is not None:
                        found.close()
                    found = self.start()
                    self.started += 1
                healthy = False
                try:
                    yield found
                    healthy = True
                finally:
                    if healthy:
                        with self._lock:
                            self._idle.append(found)
                    else:
                        self._retire(found)
            finally:
                self._free.release()
        finally:
            with self._lock:
                self.inflight -= 1

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for found in idle:
            found.close()


def spawn(owner: object, module: str, nice: int) -> subprocess.Popen[bytes]:
    """``python -m module nice`` with pipes both ways, stopped by :func:`reap`
    when ``owner`` closes it or is collected (an app thrown away unclosed leaves
    no process and no open pipe behind)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", module, str(nice)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    weakref.finalize(owner, reap, proc)
    return proc


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Close a helper's pipes and stop it (again is harmless)."""
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    if proc.poll() is None:
        proc.kill()
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.wait(5)


def read_line(fd: int, deadline: float, limit: int = 1 << 20) -> bytes:
    """One line from ``fd`` by ``deadline`` (TimeoutError), at most ``limit`` bytes (EOFError)."""
    line = b""
    while not line.endswith(b"\n"):
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            raise TimeoutError
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError
        line += chunk
        if len(line) > limit:
            raise EOFError
    return line


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """All of ``data`` to ``fd`` by ``deadline`` (TimeoutError)."""
    view = memoryview(data)
    while view:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([], [fd], [], wait)[1]:
            raise TimeoutError
        view = view[os.write(fd, view[: 1 << 16]) :]
