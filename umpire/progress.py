"""The progress line on stderr: games done of the total, the first bot's
wins-losses-draws so far, and the estimated time left.  On a terminal it is
one line redrawn in place; otherwise (a log, a CI run) one line per game.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR = 24


def clock_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, first_bot: str, done: int = 0, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.first_bot = first_bot
        self.done = done
        self.skipped = done  # already in the results file: not counted in the time estimate
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.wld = [0, 0, 0]

    def line(self) -> str:
        played = self.done - self.skipped
        elapsed = time.monotonic() - self.start
        left = (self.total - self.done) * elapsed / played if played else None
        eta = "?" if left is None else clock_text(left)
        filled = BAR * self.done // self.total if self.total else BAR
        bar = "#" * filled + "." * (BAR - filled)
        w, lo, d = self.wld
        wld = f"{self.first_bot} W-L-D {w}-{lo}-{d}"
        return f"[{bar}] {self.done}/{self.total} games  {wld}  elapsed {clock_text(elapsed)}  left {eta}"

    def update(self, first_bot_result: float | None, note: str = "") -> None:
        """A game ended: 1 a win of the first bot, 0 a loss, 0.5 a draw, None not its game."""
        self.done += 1
        if first_bot_result is not None:
            self.wld[0 if first_bot_result == 1 else 1 if first_bot_result == 0 else 2] += 1
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
        else:
            self.stream.write(self.line() + (f"  ({note})" if note else "") + "\n")
        self.stream.flush()

    def message(self, text: str) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\x1b[K" + text + "\n" + self.line())
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
