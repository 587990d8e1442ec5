"""``--records FILE``: every game as a record a person can read and other tools
can load, appended the moment the game ends (cutechess-cli's ``-pgnout``).

The record is the seeds' notation as the server's own record text writes it
(``GET /v1/matches/{id}/moves``, ``text``): a header of ``[Tag value]`` lines,
a blank line, then one numbered line per entry of the replay list with a
comment in braces: ``{book}`` for an opening move played from the book,
``{seat 0, 0.512 s}`` for a bot's move (the seconds its clock was charged on
the server, or that it took without a server), nothing more for ``timeout``,
``resign N``, ``forfeit N``, ``abort``.  Games are separated by a blank line.

    [Game "GAME"]
    [Match "3wAzrjpPN6heyb0T"]
    [Tournament "2f0c9d8e1a7b4c3d"]
    [Key "0v1#0"]
    [Date "2026-11-25T10:00:00.000Z"]
    [Options {"size":3}]  (the match's options)
    [Seat0 "random"]
    [Seat1 "greedy"]
    [Result "0-1"] {end: board full: ...}

    1. C3 {book}
    2. B2 B3 {seat 1, 0.004 s}

``umpire/config.py`` ``read_records`` reads the moves back (``--openings
FILE`` takes a records file), so records -> openings -> the same positions.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import IO, Any

Json = dict[str, Any]


def result_text(winner: int | None, end: str | None) -> str:
    if end is None or end == "aborted":
        return "*"
    return "1/2-1/2" if winner is None else "1-0" if winner == 0 else "0-1"


def format_record(line: Json) -> str:
    """One game of a results line as its readable record."""
    names = line.get("names") or line.get("players") or []
    head = [
        f"[Game {json.dumps(line['game'])}]",
        f"[Match {json.dumps(str(line.get('match_id', '')))}]",
    ]
    if line.get("tournament"):
        head.append(f"[Tournament {json.dumps(line['tournament'])}]")
    if line.get("key"):
        head.append(f"[Key {json.dumps(line['key'])}]")
    if line.get("started"):
        head.append(f"[Date {json.dumps(line['started'])}]")
    head.append(f"[Options {json.dumps(line.get('options') or {}, sort_keys=True, separators=(',', ':'))}]")
    if line.get("clock"):
        head.append(f"[Clock {json.dumps(line['clock'], sort_keys=True, separators=(',', ':'))}]")
    for seat, name in enumerate(names):
        head.append(f"[Seat{seat} {json.dumps(name, ensure_ascii=False)}]")
        spec = (line.get("players") or [None, None])[seat]
        if spec and spec != name:
            head.append(f"[Seat{seat}Spec {json.dumps(spec, ensure_ascii=False)}]")
    detail = str(line.get("detail") or "").replace("{", "(").replace("}", ")")
    head.append(f'[Result "{result_text(line.get("winner"), line.get("end"))}"] {{{line.get("reason")}: {detail}}}')
    moves: list[str] = list(line.get("moves") or [])
    times: list[Any] = list(line.get("times") or [[None, False]] * len(moves))
    book = len((line.get("opening") or {}).get("moves") or []) if isinstance(line.get("opening"), dict) else 0
    body = []
    for n, move in enumerate(moves):
        entry: list[Any] = [*times[n], None, None, None][:3] if n < len(times) and times[n] else [None, False, None]
        used, marked, seat = entry
        if marked or n < book:
            comment = " {book}"
        elif used is not None:
            comment = f" {{seat {seat}, {used:.3f} s}}" if seat is not None else f" {{{used:.3f} s}}"
        else:
            comment = ""
        body.append(f"{n + 1}. {move}{comment}")
    return "\n".join(head) + "\n\n" + "\n".join(body) + "\n"


class RecordsWriter:
    """Appends each finished game's record, thread-safe, flushed at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[str] = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._lock = threading.Lock()

    def write(self, line: Json) -> None:
        text = format_record(line)
        with self._lock:
            if self._file.tell() > 0:
                text = "\n" + text
            self._file.write(text)
            self._file.flush()

    def close(self) -> None:
        self._file.close()
