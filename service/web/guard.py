"""What the service does by itself against a client that tries to exhaust it
(issue 20, "Denial of service"; README "Under attack"), and its settings.

* **Slow bodies.**  :class:`BodyGuard` (WSGI middleware, outermost) reads a
  request's body before the app sees it, within ``BODY_TIMEOUT_S`` (5 s) for
  the whole body, whatever its size: a body that does not arrive in time is
  answered ``408 body_timeout`` and its connection dropped, so a client
  sending a byte every few seconds holds a connection for 5 s, not forever.
  At most ``MAX_BODIES_PER_ADDRESS`` (16) bodies per client address are being
  read at once in one app process; one more waits for one of them to end,
  within the same deadline, and is ``429 too_many_concurrent`` when none did,
  never read.  (An answer at once would only bring the same client back at
  once on a new connection: a waiting request is a sleeping greenlet.)  (Headers that do not arrive are gunicorn's:
  its keep-alive timeout, 2 s, closes the connection.)  A body's size is
  already bounded (``MAX_BODY_BYTES``), and so is what one connection costs,
  so a worker's memory is bounded by its connections (``WORKER_CONNECTIONS``).
* **Pictures** (service/api/pictures.py, service/api/renderer.py): rendered in
  processes of their own, a bounded queue, a cache per match in Redis, a
  budget of their own (``PNG_RATE_LIMIT``).
* **Spectators** (service/matches/hub.py): listeners per match and per address are
  capped (``MAX_LISTENERS_PER_MATCH``, ``MAX_LISTENERS_PER_ADDRESS``).

Every cap here is per app process (a gunicorn worker): with ``WORKERS``
processes, a client may hold up to that many times as much.  Behind a proxy
every client has the proxy's address, so the per-address caps are the
proxy's to apply (deploy/nginx.conf does) and ``TRUSTED_PROXIES`` tells the
app how many proxies to trust for the client's address (``X-Forwarded-For``).
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.middleware.proxy_fix import ProxyFix

from service.web.errors import ApiError

BODY = "umpire.body"  # the WSGI environment's key for a body read here: the bytes, as the client sent them

SETTINGS: dict[str, tuple[Callable[[str], Any], Any]] = {
    "BODY_TIMEOUT_S": (float, 5.0),  # the whole body within this, else 408 body_timeout
    "MAX_BODIES_PER_ADDRESS": (int, 16),  # bodies being read at once per address and app process, else 429
    "MAX_LISTENERS_PER_MATCH": (int, 5000),  # event streams and long-polls of one match per app process, else 503
    "MAX_LISTENERS_PER_ADDRESS": (int, 200),  # event streams and long-polls per address and app process, else 429
    "RENDER_PROCESSES": (int, 1),  # PNG renderer processes per app process (service/api/renderer.py)
    "RENDER_QUEUE": (int, 2),  # PNG requests waiting for a renderer per app process; one more is 503 render_busy
    "RENDER_TIMEOUT_S": (float, 20.0),  # a rendering past this is abandoned (503 render_busy)
    "RENDER_NICE": (int, 10),  # the renderers' CPU priority below the app's (0: the same)
    "PNG_RATE_LIMIT": (str, "60/minute"),  # PNG renderings per address (flask-limiter syntax; off: none); cached: free
    "PICTURE_CACHE_TTL_S": (int, 86400),  # a match's cached pictures expire this long after the last one was kept
    "PICTURE_CACHE_PER_MATCH": (int, 32),  # at most this many pictures cached per match
    "TRUSTED_PROXIES": (int, 0),  # proxies in front whose X-Forwarded-For names the client (0: trust none)
}


def init_app(app: Flask) -> None:
    """The settings (config, then the environment, then the defaults), and the body guard."""
    for name, (kind, default) in SETTINGS.items():
        if name in app.config:
            continue
        raw = os.environ.get(name)
        if raw is None or raw.strip() == "":
            app.config[name] = default
            continue
        if name == "PNG_RATE_LIMIT" and raw.strip().lower() == "off":
            app.config[name] = ""  # no render budget
            continue
        try:
            value = kind(raw.strip())
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not a valid setting") from None
        if kind is not str and value < 0:
            raise ValueError(f"{name} may not be negative, not {raw!r}")
        app.config[name] = value
    hops = int(app.config["TRUSTED_PROXIES"])
    inner: Any = app.wsgi_app
    if hops:
        inner = ProxyFix(inner, x_for=hops, x_proto=hops, x_host=hops)
    app.wsgi_app = BodyGuard(  # type: ignore[method-assign]
        inner, app, float(app.config["BODY_TIMEOUT_S"]), int(app.config["MAX_BODIES_PER_ADDRESS"]), hops
    )


class BodyTimeout(Exception):
    pass


class BodyGuard:
    """Reads each request's body within a deadline before the app runs (see the module)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], flask_app: Flask, timeout_s: float, per_address: int, hops: int):
        self.app, self.flask_app = app, flask_app
        self.timeout_s, self.per_address, self.hops = timeout_s, per_address, hops
        self.reading: dict[str, int] = {}
        self._waiting: dict[str, threading.Condition] = {}  # addresses with bodies waiting for a reading slot
        self._waiters: dict[str, int] = {}
        self._lock = threading.Lock()

    def _address(self, environ: dict[str, Any]) -> str:
        if self.hops:
            forwarded = [a.strip() for a in environ.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
            if len(forwarded) >= self.hops:
                return str(forwarded[-self.hops])
        return str(environ.get("REMOTE_ADDR") or "-")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        length_text = environ.get("CONTENT_LENGTH") or ""
        # A chunked body is one gunicorn de-chunks (it marks every request's input terminated, a GET's too):
        # only Transfer-Encoding says a body is coming (issue 20: every GET was read as a body, for nothing).
        chunked = (
            not length_text
            and bool(environ.get("wsgi.input_terminated"))
            and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        )
        limit = int(self.flask_app.config["MAX_CONTENT_LENGTH"] or 0)
        try:
            length = int(length_text) if length_text else 0
        except ValueError:
            length = 0
        if not chunked and (length <= 0 or (limit and length > limit)):
            return self.app(environ, start_response)  # no body, or one the app refuses (413) unread
        who = self._address(environ)
        started = time.monotonic()
        if not self._enter(who, started + self.timeout_s):
            message = f"This address was sending {self.per_address} request bodies at once for {self.timeout_s:g} s."
            details = {"limit": self.per_address, "what": "bodies"}
            refusal = ApiError("too_many_concurrent", message, details, {"Retry-After": "1"})
            return refuse(start_response, refusal)
        try:
            most = limit + 1 if chunked else length  # chunked: the app's 413 sees one byte too many
            body = self._read(environ, most, started + self.timeout_s)
        except (BodyTimeout, TimeoutError):
            message = f"The request body did not arrive within {self.timeout_s:g} s."
            refusal = ApiError("body_timeout", message, {"timeout_s": self.timeout_s})
            return refuse(start_response, refusal)
        except OSError:
            body = b""  # the client went away: the app answers an empty body, to nobody
        finally:
            self._leave(who)
        return self._answer(environ, start_response, body, chunked)

    def _answer(self, environ: dict[str, Any], start_response: Callable[..., Any], body: bytes, chunked: bool) -> Iterable[bytes]:
        """The app's answer to a request whose body was read: ``body``, as its stream and as bytes."""
        environ["wsgi.input"] = io.BytesIO(body)
        environ[BODY] = body  # json_body reads these bytes, not the stream again (issue 20, cost per request)
        if not chunked:
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)

    def _enter(self, who: str, deadline: float) -> bool:
        """A reading slot of ``who``'s: at once when it has fewer than ``per_address`` bodies being read, else
        the first to free up before ``deadline`` (a wait costs a sleeping greenlet, not a quick answer the
        client would follow with a new connection at once); False when none did."""
        with self._lock:
            cond = self._waiting.get(who)
            while self.reading.get(who, 0) >= self.per_address:
                if cond is None:
                    cond = self._waiting[who] = threading.Condition(self._lock)
                left = deadline - time.monotonic()
                self._waiters[who] = self._waiters.get(who, 0) + 1
                try:
                    woken = left > 0 and cond.wait(left)
                finally:
                    self._waiters[who] -= 1
                    if not self._waiters[who]:
                        del self._waiters[who]
                if not woken and self.reading.get(who, 0) >= self.per_address:
                    return False
            self.reading[who] = self.reading.get(who, 0) + 1
            return True

    def _leave(self, who: str) -> None:
        with self._lock:
            left = self.reading[who] - 1
            if left:
                self.reading[who] = left
            else:
                del self.reading[who]
            cond = self._waiting.get(who)
            if cond is not None:
                if who in self._waiters:
                    cond.notify()
                elif not left:
                    del self._waiting[who]

    def _read(self, environ: dict[str, Any], most: int, deadline: float) -> bytes:
        """At most ``most`` bytes of the body, all by ``deadline`` (monotonic), read from ``wsgi.input`` as WSGI
        gives it.  Under gunicorn, each read waits on the client's socket (``gunicorn.socket`` in the
        environment: a gevent socket in a gevent worker, which waits as a greenlet) at most until the deadline,
        its timeout set for that read and put back after; any other server's input is read as it comes."""
        stream = environ["wsgi.input"]
        sock = environ.get("gunicorn.socket")
        chunks: list[bytes] = []
        got = 0
        before = sock.gettimeout() if sock is not None else None
        try:
            while got < most:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BodyTimeout
                if sock is not None:
                    sock.settimeout(left)
                chunk = stream.read(min(65536, most - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
        finally:
            if sock is not None:
                sock.settimeout(before)
        return b"".join(chunks)


def refuse(start_response: Callable[..., Any], refusal: ApiError) -> Iterable[bytes]:
    """``refusal`` in the one error shape, answered by a middleware rather than by the app: an attacker who keeps
    thousands of slow bodies coming turns them into hundreds of these a second, so they cost no routing, no
    request log line and no metrics (measured: through Flask they filled gunicorn's accept queue)."""
    error = {"code": refusal.code, "message": refusal.message, "details": refusal.details}
    body = json.dumps({"error": error}, separators=(",", ":")).encode() + b"\n"
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *refusal.headers.items()]
    start_response(f"{refusal.status} {HTTP_STATUS_CODES[refusal.status].upper()}", headers)
    return [body]
