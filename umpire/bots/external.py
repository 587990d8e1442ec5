"""External bots: a program speaking JSON lines on stdin/stdout (``cmd:PROGRAM
ARGS...``) or an HTTP service (``http://...``, ``https://...``) taking the same
JSON objects as POST bodies.  The protocol is docs/BOTS.md.

The harness never waits forever on a bot: every answer has a deadline (the
seat's remaining time plus a grace), a program that misses it is killed, and
a program that exits, or answers something that is not the protocol, has
crashed; either way :class:`BotFailure` says why in one sentence (for a crash,
with the last lines the program wrote to stderr).  A program that failed is
not used again: the next game starts a fresh one.
"""

from __future__ import annotations

import collections
import contextlib
import http.client
import os
import queue
import shlex
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

import orjson

from umpire.bots.base import CRASH, TIMEOUT, Answer, Bot, BotFailure, Json, Turn

PROTOCOL = 1
HELLO_TIMEOUT_S = 10.0  # a program's start-up and handshake
NO_CLOCK_TIMEOUT_S = 60.0  # a move when the match has no clock (engine-only games)
STDERR_LINES = 8  # kept for a crash's detail
_EOF = b""


@dataclass(frozen=True)
class Wiring:
    """How an external bot is run and watched (``--engine`` and the tournament's flags):
    its environment (added to the harness's), a file its stderr is appended to,
    a hook that sees every line exchanged (``--log``: who, ``>`` sent, ``<``
    received, ``!`` stderr; the line), and the limit on start-up and ``hello``."""

    env: dict[str, str] = field(default_factory=dict)
    stderr: str | None = None
    log: Callable[[str, str, str], None] | None = None
    hello_timeout_s: float = HELLO_TIMEOUT_S


def read_answer(raw: bytes, what: str) -> Json:
    """A bot's JSON answer, or :class:`BotFailure` (crash) saying what was wrong with it."""
    try:
        answer = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.decode(errors="replace").strip()
        raise BotFailure(CRASH, f"answered {what} with something that is not JSON: {text[:120]!r}") from None
    if not isinstance(answer, dict):
        raise BotFailure(CRASH, f"answered {what} with {raw[:120]!r}, not a JSON object")
    return answer


def move_answer(answer: Json) -> Answer:
    """The protocol's answer to ``move``: ``{"move": "..."}`` or ``{"resign": true}``."""
    if answer.get("resign") is True:
        return Answer(None, resign=True)
    move = answer.get("move")
    if not isinstance(move, str):
        raise BotFailure(CRASH, f"answered a move request with {orjson.dumps(answer)[:120].decode()}, which has no 'move' string")
    return Answer(move)


def _hello(game: str, options: Json, seat: int, match_id: str | None) -> Json:
    return {"type": "hello", "protocol": PROTOCOL, "game": game, "options": options, "seat": seat, "match_id": match_id}


def _check_hello(answer: Json) -> None:
    if answer.get("type") != "hello":
        raise BotFailure(CRASH, f"answered hello with {orjson.dumps(answer)[:120].decode()}, not a hello")
    if answer.get("protocol", PROTOCOL) != PROTOCOL:
        raise BotFailure(CRASH, f"speaks protocol {answer.get('protocol')!r}; the harness speaks {PROTOCOL}")


class ProcessBot(Bot):
    """A program on stdin/stdout.  One process serves game after game while it
    is healthy; ``hello`` opens each game and ``end`` closes it."""

    def __init__(self, spec: str, argv: list[str], cwd: str | None = None, wiring: Wiring | None = None) -> None:
        self.spec = spec
        self.argv = argv
        self.cwd = cwd
        self.wiring = wiring or Wiring()
        self.name = spec
        self._who = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._readers: list[threading.Thread] = []
        self._failed = False

    # -- the process -----------------------------------------------------------------

    def _start(self) -> None:
        env = {**os.environ, **self.wiring.env} if self.wiring.env else None
        try:
            # a session of its own: a Ctrl-C at the terminal reaches the harness, which stops its bots itself
            proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.cwd, bufsize=0,
                env=env, start_new_session=True,
            )  # fmt: skip
        except OSError as e:
            self._failed = True
            raise BotFailure(CRASH, f"could not be started ({' '.join(self.argv)}): {e}") from None
        self.proc = proc
        self._who = f"{self.spec} (pid {proc.pid})"
        self._lines = queue.Queue()
        self._stderr.clear()
        assert proc.stdout is not None and proc.stderr is not None
        out = threading.Thread(target=self._read_stdout, args=(proc.stdout, self._lines), daemon=True)
        err = threading.Thread(target=self._read_stderr, args=(proc.stderr,), daemon=True)
        out.start()
        err.start()
        self._readers = [out, err]

    def _log(self, way: str, line: bytes | str) -> None:
        if self.wiring.log is not None:
            text = line.decode(errors="replace") if isinstance(line, bytes) else line
            self.wiring.log(self._who, way, text.rstrip("\n"))

    def _read_stdout(self, stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
        try:
            for line in stream:
                if line.strip():
                    self._log("<", line)
                    lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        sink = open(self.wiring.stderr, "ab") if self.wiring.stderr else None  # noqa: SIM115 - closed below
        try:
            for line in stream:
                if sink is not None:
                    sink.write(line)
                    sink.flush()
                self._log("!", line)
                self._stderr.append(line.decode(errors="replace").rstrip())
        except (OSError, ValueError):
            pass
        finally:
            if sink is not None:
                sink.close()

    def stderr_tail(self) -> str:
        lines = [ln for ln in self._stderr if ln.strip()]
        return " | ".join(lines[-STDERR_LINES:])

    def _crashed(self, what: str) -> BotFailure:
        """The process is gone (or going): wait a moment for its exit code and its last words."""
        self._failed = True
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(2.0)
            except subprocess.TimeoutExpired:
                self._kill()
                code = self.proc.returncode if self.proc else None
        for t in self._readers:
            t.join(1.0)
        tail = self.stderr_tail()
        said = f"; its stderr ended: {tail}" if tail else "; it wrote nothing to stderr"
        return BotFailure(CRASH, f"exited (code {code}) {what}{said}")

    def _kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5.0)

    def _send(self, message: Json, what: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise self._crashed(f"before {what}")
        assert self.proc.stdin is not None
        data = orjson.dumps(message)
        self._log(">", data)
        try:
            self.proc.stdin.write(data + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._crashed(f"before {what}") from None

    def _receive(self, timeout_s: float, what: str) -> Json:
        try:
            line = self._lines.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            self._failed = True
            self._kill()
            raise BotFailure(TIMEOUT, f"no answer to {what} in {timeout_s:.1f} s; the program was stopped") from None
        if line == _EOF:
            raise self._crashed(f"instead of answering {what}")
        try:
            return read_answer(line, what)
        except BotFailure:
            self._failed = True
            self._kill()
            raise

    # -- the protocol ------------------------------------------------------------------

    def begin(self, game: str, options: Json, seat: int, match_id: str | None) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self._send(_hello(game, options, seat, match_id), "hello")
        answer = self._receive(self.wiring.hello_timeout_s, "hello")
        try:
            _check_hello(answer)
        except BotFailure:
            self._failed = True
            raise
        self.name = str(answer.get("name") or self.spec)
        self.wants_legal = bool(answer.get("want_legal"))

    def choose(self, turn: Turn) -> Answer:
        what = f"the move at ply {turn.ply}"
        self._send(turn.message(), what)
        timeout = NO_CLOCK_TIMEOUT_S if turn.deadline_ms is None else turn.deadline_ms / 1000
        answer = self._receive(timeout, what)
        try:
            return move_answer(answer)
        except BotFailure:
            self._failed = True
            raise

    def end(self, result: Json) -> None:
        if self.proc is None or self.proc.poll() is not None or self._failed:
            return
        try:
            assert self.proc.stdin is not None
            data = orjson.dumps({"type": "end", **result})
            self._log(">", data)
            self.proc.stdin.write(data + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._failed = True

    @property
    def healthy(self) -> bool:
        return not self._failed and self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # a polite bot ends on EOF
        if proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.5)
        self._kill()
        for t in self._readers:
            t.join(1.0)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        self.proc = None


class HttpBot(Bot):
    """A bot behind a URL: each protocol message is POSTed as JSON and the JSON
    answer read back (``end`` is posted too; its answer is ignored)."""

    def __init__(self, spec: str, wiring: Wiring | None = None) -> None:
        self.spec = spec
        self.name = spec
        self.wiring = wiring or Wiring()
        url = urllib.parse.urlsplit(spec)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"an HTTP bot is an http:// or https:// URL, not {spec!r}")
        self._https = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port
        self._path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        self._conn: http.client.HTTPConnection | None = None
        self._failed = False

    def _post(self, message: Json, timeout_s: float, what: str) -> Json:
        body = orjson.dumps(message)
        if self.wiring.log is not None:
            self.wiring.log(self.spec, ">", body.decode())
        started = time.monotonic()
        for attempt in (0, 1):  # a keep-alive connection the bot closed: once more on a fresh one
            if self._conn is None:
                cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
                self._conn = cls(self._host, self._port, timeout=timeout_s)
            conn = self._conn
            left = timeout_s - (time.monotonic() - started)
            conn.timeout = max(0.01, left)
            if conn.sock is not None:
                conn.sock.settimeout(conn.timeout)
            try:
                conn.request("POST", self._path, body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                raw = resp.read()
            except TimeoutError:
                self._drop()
                self._failed = True
                raise BotFailure(TIMEOUT, f"no answer to {what} in {timeout_s:.1f} s") from None
            except (http.client.HTTPException, OSError) as e:
                self._drop()
                if attempt == 0 and isinstance(e, http.client.RemoteDisconnected | ConnectionResetError | BrokenPipeError):
                    continue
                self._failed = True
                raise BotFailure(CRASH, f"could not be reached for {what}: {e!r}") from None
            if self.wiring.log is not None:
                self.wiring.log(self.spec, "<", f"HTTP {resp.status} {raw.decode(errors='replace')}")
            if resp.status != 200:
                self._failed = True
                text = raw.decode(errors="replace").strip()[:200]
                raise BotFailure(CRASH, f"answered {what} with HTTP {resp.status}: {text}")
            try:
                return read_answer(raw, what)
            except BotFailure:
                self._failed = True
                raise
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def begin(self, game: str, options: Json, seat: int, match_id: str | None) -> None:
        answer = self._post(_hello(game, options, seat, match_id), self.wiring.hello_timeout_s, "hello")
        _check_hello(answer)
        self.name = str(answer.get("name") or self.spec)
        self.wants_legal = bool(answer.get("want_legal"))

    def choose(self, turn: Turn) -> Answer:
        timeout = NO_CLOCK_TIMEOUT_S if turn.deadline_ms is None else turn.deadline_ms / 1000
        answer = self._post(turn.message(), timeout, f"the move at ply {turn.ply}")
        try:
            return move_answer(answer)
        except BotFailure:
            self._failed = True
            raise

    def end(self, result: Json) -> None:
        if self._failed:
            return
        with contextlib.suppress(BotFailure):
            self._post({"type": "end", **result}, 2.0, "end")

    @property
    def healthy(self) -> bool:
        return not self._failed

    def close(self) -> None:
        self._drop()


def command_argv(spec: str) -> list[str]:
    """``cmd:PROGRAM ARGS...`` as an argument vector (shell-style quoting)."""
    argv = shlex.split(spec[len("cmd:") :])
    if not argv:
        raise ValueError(f"{spec!r} names no program: write cmd:PROGRAM ARGS...")
    return argv


class ProcessPool:
    """Programs of one ``cmd:`` spec: a game takes an idle healthy one or starts
    another (so K games at once run K processes), and gives it back after; a
    program that failed is closed, and the next game starts a fresh one."""

    def __init__(self, spec: str, cwd: str | None = None, wiring: Wiring | None = None) -> None:
        self.spec = spec
        self.argv = command_argv(spec)
        self.cwd = cwd or os.getcwd()
        self.wiring = wiring
        self._idle: list[ProcessBot] = []
        self._all: list[ProcessBot] = []
        self._lock = threading.Lock()

    def acquire(self) -> ProcessBot:
        with self._lock:
            while self._idle:
                bot = self._idle.pop()
                if bot.proc is not None and bot.proc.poll() is None:
                    return bot
                bot.close()
            bot = ProcessBot(self.spec, self.argv, self.cwd, self.wiring)
            self._all.append(bot)
            return bot

    def release(self, bot: ProcessBot) -> None:
        if bot.healthy:
            with self._lock:
                self._idle.append(bot)
        else:
            bot.close()
            with self._lock:
                if bot in self._all:
                    self._all.remove(bot)

    def close(self) -> None:
        with self._lock:
            bots, self._all, self._idle = self._all, [], []
        for bot in bots:
            bot.close()
