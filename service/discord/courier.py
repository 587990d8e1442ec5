"""Work beside an interaction's answer, and every call out to Discord.

Two bounded lanes per app process, each ``DISCORD_THREADS`` threads (greenlets under gunicorn's
gevent worker) with at most ``DISCORD_QUEUE`` more waiting: ``judging`` decides commands (so
that an answer that is not ready within ``DISCORD_ANSWER_S`` is deferred, never late), and
``posting`` draws the board and edits the answer with it.  A lane that is full refuses at once
(:class:`Full`): a command is then answered "busy", and a picture goes unsent (the answer's
words stand); nothing waits without bound, and memory is bounded by the lanes' size (a job holds
one message and one picture).

A call out to Discord has one deadline, ``DISCORD_TIMEOUT_S`` from its start, retries included:
each socket operation under it (connecting, the TLS handshake, each write and read) is given only
the time left (:class:`DeadlineBackend`, an httpcore network backend), so a Discord that answers
slowly, or a byte at a time, cannot hold a thread past it.  A ``429`` or a ``5xx`` (or no answer)
is tried again after its ``Retry-After`` (or half a second, doubling) while time is left; any
other answer is final.  No redirect is followed and no proxy is read from the environment; at
most 4 KiB of an answer is read.  The interaction's token is in the URL and the bot token in a
header: neither is ever logged.
"""

from __future__ import annotations

import contextvars
import logging
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import httpcore
import httpx
import orjson
from flask import Flask

log = logging.getLogger(__name__)

T = TypeVar("T")
ANSWER_BYTES = 4096
NOT_YET = frozenset({404})  # an edit that reaches Discord before the answer it edits: "Unknown Message", tried again
USER_AGENT = "DiscordBot (umpire, 1)"  # Discord asks for this form of User-Agent
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("discord_deadline", default=None)


class Full(Exception):
    """A lane has no room: the work is refused at once."""


class Lane:
    """``threads`` workers and at most ``queue`` jobs waiting for one."""

    def __init__(self, name: str, threads: int, queue: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=f"discord-{name}")
        self.room = threading.BoundedSemaphore(threads + queue)

    def submit(self, job: Callable[[], T]) -> Future[T]:
        if not self.room.acquire(blocking=False):
            raise Full
        try:
            done = self.pool.submit(job)
        except BaseException:
            self.room.release()
            raise
        done.add_done_callback(lambda _: self.room.release())
        return done

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


# -- one deadline for a whole call ------------------------------------------------------------


def _left(timeout: float | None, late: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before the current call's deadline (``late`` once it has passed)."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise late("past the call's deadline")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for at in range(0, len(buffer), 16384):  # each piece within the time left, not the whole at once
            self.inner.write(buffer[at : at + 16384], _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None) -> _Stream:
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's own sockets, each operation given at most the time left before the call's deadline."""

    def __init__(self) -> None:
        self.inner = httpcore.SyncBackend()

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _Stream:  # fmt: skip
        stream = self.inner.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options)
        return _Stream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> _Stream:
        return _Stream(self.inner.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


@dataclass(frozen=True, slots=True)
class Sent:
    """How a call went: the status (None: no answer), the answer's first bytes, and why it failed."""

    status: int | None
    body: bytes = b""
    error: str | None = None
    wait_s: float = 0.0  # a 429's (or 5xx's) Retry-After

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _retry_after(headers: list[tuple[bytes, bytes]]) -> float:
    for name, value in headers:
        if name.lower() == b"retry-after":
            try:
                return max(0.0, float(value.decode("ascii")))
            except ValueError:
                return 0.0
    return 0.0


class Discord:
    """Discord's API at ``DISCORD_API``, called within one deadline a call."""

    def __init__(self, api: str, timeout_s: float, connections: int) -> None:
        self.api = api.rstrip("/")
        self.timeout_s = timeout_s
        self.http = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(), max_connections=connections, network_backend=DeadlineBackend()
        )

    def close(self) -> None:
        self.http.close()

    def call(
        self, method: str, path: str, *, headers: dict[str, str] | None = None, again: frozenset[int] = frozenset(), **body: Any
    ) -> Sent:
        """``method`` ``path`` (under ``DISCORD_API``) with ``body`` as httpx builds it (``json=``,
        or ``data=`` and ``files=`` for multipart), tried until it is answered, or its deadline passes
        (``again``: more statuses tried again, besides 429 and 5xx)."""
        built = httpx.Request(method, f"{self.api}{path}", headers={"User-Agent": USER_AGENT, **(headers or {})}, **body)
        content = built.read()
        deadline = time.monotonic() + self.timeout_s
        wait = 0.5
        while True:
            sent = self._once(built, content, deadline)
            if not (sent.status is None or sent.status == 429 or sent.status >= 500 or sent.status in again):
                return sent
            pause = max(wait, sent.wait_s)
            if time.monotonic() + pause >= deadline:
                return sent
            time.sleep(pause)
            wait *= 2

    def _once(self, built: httpx.Request, content: bytes, deadline: float) -> Sent:
        token = _DEADLINE.set(deadline)
        left = max(0.001, deadline - time.monotonic())
        try:
            timeouts = {"connect": left, "read": left, "write": left, "pool": left}
            with self.http.stream(
                built.method, str(built.url), headers=list(built.headers.raw), content=content, extensions={"timeout": timeouts}
            ) as answer:
                read = b""
                for chunk in answer.iter_stream():
                    read += chunk
                    if len(read) >= ANSWER_BYTES:
                        break
                if answer.status == 429 or answer.status >= 500:
                    return Sent(answer.status, read[:ANSWER_BYTES], None, _retry_after(answer.headers))
                return Sent(answer.status, read[:ANSWER_BYTES])
        except httpcore.TimeoutException as e:
            return Sent(None, error=f"no answer within DISCORD_TIMEOUT_S ({type(e).__name__})")
        except (httpcore.NetworkError, httpcore.ProtocolError, OSError) as e:
            return Sent(None, error=type(e).__name__)
        finally:
            _DEADLINE.reset(token)


# -- the app's courier ---------------------------------------------------------------------------


class Courier:
    """The app process's lanes and its Discord client (made when the endpoint is on)."""

    def __init__(self, app: Flask) -> None:
        cfg = app.config
        threads, queue = int(cfg["DISCORD_THREADS"]), int(cfg["DISCORD_QUEUE"])
        self.app = app
        self.judging = Lane("judge", threads, queue)
        self.posting = Lane("post", threads, queue)
        self.discord = Discord(str(cfg["DISCORD_API"]), float(cfg["DISCORD_TIMEOUT_S"]), threads * 2)
        self.application = str(cfg["DISCORD_APPLICATION_ID"]).strip()

    def close(self) -> None:
        self.judging.close()
        self.posting.close()
        self.discord.close()

    def edit_original(self, token: str, payload: dict[str, Any], picture: bytes | None) -> Sent:
        """Edit the interaction's answer (``PATCH /webhooks/{application}/{token}/messages/@original``):
        ``payload`` as JSON, or as multipart ``payload_json`` with the picture as ``files[0]``."""
        path = f"/webhooks/{self.application}/{token}/messages/@original"
        if picture is None:
            sent = self.discord.call("PATCH", path, json=payload, again=NOT_YET)
        else:
            data = {"payload_json": orjson.dumps(payload).decode()}
            files = {"files[0]": ("board.png", picture, "image/png")}
            sent = self.discord.call("PATCH", path, data=data, files=files, again=NOT_YET)
        if not sent.ok:
            log.warning("discord: editing an answer failed: %s", sent.error or f"HTTP {sent.status}")
        return sent

    def delete_original(self, token: str) -> Sent:
        """Delete the interaction's answer (``DELETE /webhooks/{application}/{token}/messages/@original``)."""
        sent = self.discord.call("DELETE", f"/webhooks/{self.application}/{token}/messages/@original", again=NOT_YET)
        if not sent.ok:
            log.warning("discord: deleting an answer failed: %s", sent.error or f"HTTP {sent.status}")
        return sent

    def follow_up(self, token: str, payload: dict[str, Any]) -> Sent:
        """A new message after the answer (``POST /webhooks/{application}/{token}``)."""
        sent = self.discord.call("POST", f"/webhooks/{self.application}/{token}", json=payload)
        if not sent.ok:
            log.warning("discord: a follow-up failed: %s", sent.error or f"HTTP {sent.status}")
        return sent


def courier(app: Flask) -> Courier:
    found: Courier | None = app.extensions.get("umpire.discord")
    if found is None:
        found = app.extensions.setdefault("umpire.discord", Courier(app))
    return found


def close(app: Flask) -> None:
    """Stop the lanes and the client (tests, and anything that makes apps and throws them away)."""
    found: Courier | None = app.extensions.pop("umpire.discord", None)
    if found is not None:
        found.close()
