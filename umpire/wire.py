"""One keep-alive HTTP/1.1 connection for :class:`umpire.client.MatchClient`.

The request is a few header lines written here; the answer is read by
``httptools`` (the C parser of llhttp, which uvicorn uses).  The standard
library's ``http.client`` parses every answer's headers with the ``email``
package: 0.27 ms of CPU a call against 0.10 ms this way, measured on
``POST /v1/games/catchup/new`` (issue 12 holds the harness to under 10% of a
game's time, and a harness makes a call a ply).
"""

from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Mapping

import httptools

_UNSAFE = re.compile(r"[\x00-\x20\x7f]")  # what may not stand in a request target
_BREAK = re.compile(r"[\r\n\x00]")  # what may not stand in a header


class WireError(ConnectionError):
    """The connection failed or the answer was not HTTP: the request may be sent again on a new one."""


class _Answer:
    """httptools' callbacks: the body and whether the message is complete."""

    def __init__(self) -> None:
        self.body: list[bytes] = []
        self.headers_done = False
        self.done = False
        self.length: bytes | None = None
        self.chunked = False
        self.keep = False
        self.parser: httptools.HttpResponseParser | None = None

    def on_header(self, name: bytes, value: bytes) -> None:
        low = name.lower()
        if low == b"content-length":
            self.length = value
        elif low == b"transfer-encoding" and b"chunked" in value.lower():
            self.chunked = True

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, data: bytes) -> None:
        self.body.append(data)

    def on_message_complete(self) -> None:
        self.done = True
        # asked now: once the message is complete the parser is ready for the next one, and forgets
        assert self.parser is not None
        self.keep = self.parser.should_keep_alive()


class Connection:
    """Requests one after the other on one socket, opened when first needed
    and again after the server closed it."""

    def __init__(self, host: str, port: int | None, https: bool, connect_timeout_s: float) -> None:
        self.host = host
        self.https = https
        self.port = port or (443 if https else 80)
        self.connect_timeout_s = connect_timeout_s
        default = (self.port == 443) if https else (self.port == 80)
        self._host_header = host if default else f"{host}:{self.port}"
        self.sock: socket.socket | None = None

    def _open(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout_s)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.https:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
        self.sock = sock
        return sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def request(
        self, method: str, target: str, body: bytes | None, headers: Mapping[str, str], timeout_s: float
    ) -> tuple[int, bytes]:
        """Send one request and read its answer: (status, body).  Raises
        :class:`WireError` (the connection closed) and ``TimeoutError``; either
        way the connection is closed, and the next request opens another."""
        if _UNSAFE.search(target):
            raise ValueError(f"a request target has no spaces or control characters: {target!r}")
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self._host_header}"]
        for name, value in headers.items():
            if _BREAK.search(name) or _BREAK.search(value):
                raise ValueError(f"a header has no line breaks: {name!r}")
            lines.append(f"{name}: {value}")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        wire = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        try:
            sock = self.sock or self._open()
            sock.settimeout(timeout_s)
            sock.sendall(wire)
            answer = _Answer()
            parser = answer.parser = httptools.HttpResponseParser(answer)
            while not answer.done:
                chunk = sock.recv(65536)
                if not chunk:
                    if answer.headers_done and answer.length is None and not answer.chunked:
                        break  # an answer that ends where the connection does
                    raise WireError("the server closed the connection")
                parser.feed_data(chunk)
            status = parser.get_status_code()
            keep = answer.keep
        except httptools.HttpParserError as e:
            self.close()
            raise WireError(f"not an HTTP answer: {e}") from e
        except OSError:  # WireError, a timeout, ssl.SSLError included
            self.close()
            raise
        if not keep:
            self.close()
        return status, b"".join(answer.body)
