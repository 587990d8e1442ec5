"""English words for the sentences games say: numbers, lists, plurals,
possessives and group sizes as the seeds write them ("11-8-8-3").

Nothing here knows a game; each game's show (``engine/games/<name>/show.py``)
builds its sentences from these, and ``views`` reuses them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def ordinal(n: int) -> str:
    """1 -> "first", 11 -> "11th", 22 -> "22nd"."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def number(n: int) -> str:
    """Small counts in words, as an umpire says them: 3 -> "three"."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``plural(1, "stone")`` -> "1 stone"; ``plural(2, "stone")`` -> "2 stones"."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def and_list(items: Sequence[str]) -> str:
    """["A", "B", "C"] -> "A, B and C"."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def or_list(items: Sequence[str]) -> str:
    """["A", "B", "C"] -> "A, B or C"."""
    if len(items) < 2:
        return and_list(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def sizes(values: Sequence[int]) -> str:
    """Group sizes as the seeds write them: [11, 8, 8, 3] -> "11-8-8-3"; none -> "none"."""
    return "-".join(str(v) for v in values) if values else "none"


def possessive(name: str) -> str:
    """``Red`` -> ``Red's``."""
    return f"{name}'s"


def parse_time(text: Any) -> datetime | None:
    """An RFC 3339 time from the clock JSON (``2026-11-22T12:00:05.250Z``), or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)  # RFC 3339 without an offset: UTC, as the server writes
