"""PNG pictures rendered outside the worker's event loop: a small pool of
renderer processes per app process (issue 20, "Pictures").

resvg (``resvg_py``, views/raster.py) holds the GIL for the whole of a
rendering - a 2048-pixel picture of a side-10 board is about a second of CPU
- so neither a thread nor gevent's threadpool helps: while it renders, no
other greenlet of the worker runs (measured: a thread ticking every
millisecond beside a rendering thread ticked once in 2.9 s).  So the
rendering happens in processes of their own, ``python -m service.api.renderer``,
started on first use, ``RENDER_PROCESSES`` (1) per app process, at a lower
CPU priority (``RENDER_NICE``, 10) so that on a busy machine the plays and
moves go first.  A worker talks to them over pipes, waiting with ``select``
(gevent makes that cooperative: a waiting request holds no thread and leaves
the event loop free).

The queue is bounded: ``RENDER_QUEUE`` (2) requests of each app process may
wait for a renderer beside those being rendered; one more is refused at once
(:class:`Busy`, which the service answers ``503 render_busy`` with
``Retry-After``), never left to stall.  A rendering that takes longer than
``RENDER_TIMEOUT_S`` (20 s) is abandoned and its process replaced.

The protocol on the pipes: the app writes ``"<width> <bytes>\\n"`` and that
many bytes of SVG (width 0: the picture's own); the renderer answers ``"ok
<bytes>\\n"`` and the PNG, or ``"err <bytes>\\n"`` and a message.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
import time
from collections import OrderedDict

from service.api import procpool
from service.api.procpool import BoundedPool, Busy, write_all

__all__ = ["Busy", "Pool", "Recent", "RenderFailed"]


class RenderFailed(Exception):
    """The renderer could not draw the picture (a bug: the service made the SVG)."""


def _read_exact(fd: int, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_line(fd: int, deadline: float) -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        line += _read_exact(fd, 1, deadline)
        if len(line) > 64:
            raise EOFError
    return line


class Renderer:
    """One renderer process."""

    def __init__(self, nice: int) -> None:
        self.proc = procpool.spawn(self, "service.api.renderer", nice)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def render(self, svg: str, width: int | None, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        data = svg.encode()
        write_all(self.stdin, b"%d %d\n" % (width or 0, len(data)) + data, deadline)
        status, _, size = _read_line(self.stdout, deadline).strip().partition(b" ")
        body = _read_exact(self.stdout, int(size), deadline)
        if status != b"ok":
            raise RenderFailed(body.decode(errors="replace"))
        return body

    def close(self) -> None:
        procpool.reap(self.proc)


class Pool:
    """``processes`` renderers and at most ``queue`` requests waiting for one:
    the bounded pool of helper processes the built-in bots' searches use too
    (service/api/procpool.py)."""

    def __init__(self, processes: int = 1, queue: int = 2, timeout_s: float = 20.0, nice: int = 10) -> None:
        self.processes, self.queue, self.timeout_s, self.nice = processes, queue, timeout_s, nice
        self.pool: BoundedPool[Renderer] = BoundedPool(lambda: Renderer(nice), processes, queue, timeout_s)

    @property
    def full(self) -> bool:
        """No room now: a request for a new picture would be refused."""
        return self.pool.full

    @property
    def inflight(self) -> int:
        """Requests rendering or waiting for a renderer, in this process."""
        return self.pool.inflight

    @property
    def started(self) -> int:
        """Renderer processes started so far in this process."""
        return self.pool.started

    def render(self, svg: str, width: int | None) -> bytes:
        """PNG bytes of ``svg``; :class:`Busy` at once when the queue is full."""
        with self.pool.helper("picture renderer") as renderer:
            try:
                return renderer.render(svg, width, self.timeout_s)
            except TimeoutError:
                raise Busy(f"The picture took longer than {self.timeout_s:g} s to render.") from None
            except (EOFError, OSError, ValueError) as e:  # the renderer died: the next request starts another
                raise RenderFailed(f"the renderer process failed: {e!r}") from e

    def close(self) -> None:
        self.pool.close()


class Recent:
    """The last PNG pictures this process rendered, by their SVG text and width,
    at most ``max_bytes`` of them (a worker's memory stays bounded)."""

    def __init__(self, max_bytes: int = 16 << 20) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, int | None], bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, svg: str, width: int | None) -> bytes | None:
        with self._lock:
            png = self._items.get((svg, width))
            if png is not None:
                self._items.move_to_end((svg, width))
            return png

    def put(self, svg: str, width: int | None, png: bytes) -> None:
        size = len(png) + len(svg)
        if size > self.max_bytes // 4:
            return
        with self._lock:
            if (svg, width) in self._items:
                return
            self._items[(svg, width)] = png
            self._bytes += size
            while self._bytes > self.max_bytes:
                (old_svg, _), old = self._items.popitem(last=False)
                self._bytes -= len(old) + len(old_svg)


def _serve(nice: int) -> None:
    """The renderer process: requests on standard input, pictures on standard output, until EOF."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    from views import raster

    raster.font_files()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.readline()
        if not header:
            return
        width_text, size_text = header.split()
        svg = stdin.read(int(size_text))
        width = int(width_text) or None
        try:
            answer = b"ok", raster.render(svg.decode(), width)
        except Exception as e:
            answer = b"err", f"{type(e).__name__}: {e}".encode()
        stdout.write(b"%s %d\n" % (answer[0], len(answer[1])) + answer[1])
        stdout.flush()


if __name__ == "__main__":
    _serve(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
