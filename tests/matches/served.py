"""A real gunicorn serving the app on loopback, against a Redis the test owns
(so the app can be stopped and started again while Redis keeps the matches),
and a reader of Server-Sent Events over a plain socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.run.serve import gunicorn_command
from umpire.server import free_port


class AppServer:
    """``gunicorn 'service:create_app()'`` as ``make run`` starts it (service/run/serve.py), without its own Redis."""

    def __init__(self, redis_url: str, folder: Path, workers: int = 2, **env: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"gunicorn-{self.port}.log"
        self.env = {
            **os.environ,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "WEB_CONCURRENCY": str(workers),
            "REDIS_URL": redis_url,
            "ACCESS_LOG": "",
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> AppServer:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(gunicorn_command(self.env), env=self.env, stdout=out, stderr=out)
        end = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.base + "/v1/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < end, self.log.read_text(errors="replace")[-3000:]
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@dataclass
class Event:
    name: str
    id: str
    data: Any


@dataclass
class Stream:
    """An event stream read over a raw socket, a little at a time (no thread needed)."""

    sock: socket.socket
    buffer: bytes = b""
    events: list[Event] = field(default_factory=list)
    comments: int = 0
    closed: bool = False

    @classmethod
    def open(cls, base: str, match_id: str, last: str | None = None, timeout: float = 10) -> Stream:
        """HTTP/1.0, so the body comes as it is, not in chunks."""
        host, port = base.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)), timeout=timeout)
        header = f"Last-Event-ID: {last}\r\n" if last is not None else ""
        sock.sendall(f"GET /v1/matches/{match_id}/events HTTP/1.0\r\nAccept: text/event-stream\r\n{header}\r\n".encode())
        return cls(sock)

    def poll(self, wait: float) -> None:
        """Read what has arrived within ``wait`` seconds and parse whole events."""
        self.sock.settimeout(wait)
        try:
            chunk = self.sock.recv(65536)
            if not chunk:
                self.closed = True
            self.buffer += chunk
        except TimeoutError:
            pass
        self._parse()

    def _parse(self) -> None:
        if self.buffer.startswith(b"HTTP/"):
            if b"\r\n\r\n" not in self.buffer:
                return
            head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
            assert b" 200 " in head.split(b"\r\n")[0], head
            assert b"text/event-stream" in head.lower()
        while b"\n\n" in self.buffer:
            block, _, self.buffer = self.buffer.partition(b"\n\n")
            lines = block.decode().split("\n")
            if all(ln.startswith(":") for ln in lines):
                self.comments += 1
                continue
            fields = dict(ln.split(": ", 1) for ln in lines)
            if "event" in fields:
                self.events.append(Event(fields["event"], fields["id"], json.loads(fields["data"])))

    def until(self, test: Any, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not test() and time.monotonic() < end and not self.closed:
            self.poll(0.2)

    def close(self) -> None:
        self.sock.close()
