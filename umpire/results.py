"""The results file: JSON lines, one finished game a line, written (and
flushed to the operating system) the moment each game ends, so an interrupted tournament loses only
the games it was playing.

Its first line keeps the tournament's settings (``{"type": "settings", ...}``:
game, options, bots as named engines, games, format, clock, openings, seed,
the SPRT, and the run: its identity and how it is played, umpire/config.py
``Run``), so that ``--resume F`` and ``--report F`` need nothing else; a
resume that changes how the run is played (``--concurrency 4``) appends a
``{"type": "run", ...}`` line.  :func:`read_results` gives only the games,
:func:`read_settings` the settings line, :func:`read_run` the run as it
stands.
Each game's line carries the tournament's ``tournament`` fingerprint and the game's
stable ``key`` (umpire/config.py), which is how ``--resume`` knows the games
already played.  A line cut short by the interruption (no newline at the
end) is dropped when the file is opened to resume.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

Json = dict[str, Any]


SETTINGS = "settings"
RUN = "run"


def read_results(path: str | Path) -> list[Json]:
    """Every game of a results file (a last line without its newline is ignored)."""
    return [line for line in read_lines(path) if "type" not in line]


def read_settings(path: str | Path) -> Json | None:
    """The settings line of a results file (None: a file written before they were kept)."""
    return next((line for line in read_lines(path) if line.get("type") == SETTINGS), None)


def read_run(path: str | Path) -> Json | None:
    """The run as it stands: the last ``run`` line, else the settings line's ``run`` (None: a
    file written before runs were kept)."""
    found = None
    for line in read_lines(path):
        if line.get("type") == SETTINGS and isinstance(line.get(RUN), dict):
            found = line[RUN]
        elif line.get("type") == RUN:
            found = {k: v for k, v in line.items() if k != "type"}
    return found


def read_lines(path: str | Path) -> list[Json]:
    """Every complete line of a results file."""
    out: list[Json] = []
    text = Path(path).read_text()
    lines = text.split("\n")
    if lines and lines[-1] != "":
        lines = lines[:-1]  # cut short by an interruption
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError as e:
            raise ValueError(f"{path}:{n}: not a JSON line: {e}") from None
    return out


def iter_games(paths: list[str]) -> Iterator[Json]:
    for path in paths:
        yield from read_results(path)


def drop_partial_line(path: str | Path) -> None:
    """Truncate a results file after its last newline (resuming appends after it)."""
    p = Path(path)
    data = p.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(p, "r+b") as f:
            f.truncate(cut)


class ResultsWriter:
    """Appends one line per game, thread-safe, flushed to the OS at once."""

    def __init__(self, path: str | Path, append: bool, header: Json | None = None) -> None:
        self.path = Path(path)
        if append and self.path.exists():
            drop_partial_line(self.path)
        self._file: IO[str] = open(self.path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._lock = threading.Lock()
        if header is not None and not append:
            self.write({"type": SETTINGS, **header})

    def write(self, line: Json) -> None:
        text = json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"
        with self._lock:
            self._file.write(text)
            self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
