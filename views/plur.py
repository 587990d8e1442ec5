"""Plur as an umpire shows it (seed 001; RULES R-E1, R-E1a): black and white
stones on a hexhex board, each player's group sizes, the pie rule's swap,
and at the end the ladder of largest groups (3, 5, 7, ...) that decided.

State (the engine's JSON, version 1): ``board`` maps cells to owners (0
black, 1 white); ``scores`` are each player's group sizes, largest first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from views.base import Context, Handler, Marks
from views.hexsvg import HexView
from views.kit import Json, and_list, ordinal, sizes
from views.svgkit import Line


@dataclass(frozen=True)
class Ladder:
    """R-E1's count: the ``k`` largest groups (k = 3, 5, 7, ... until the k-th
    and the next differ in size, or all groups count), who owns how many."""

    k: int
    largest: tuple[tuple[int, int], ...]  # (size, owner), largest first
    counts: tuple[int, int]
    groups: int  # how many groups the board holds

    @property
    def winner(self) -> int | None:
        c0, c1 = self.counts
        return 0 if c0 > c1 else 1 if c1 > c0 else None


def ladder(g0: Sequence[int], g1: Sequence[int]) -> Ladder:
    every = sorted([(s, 0) for s in g0] + [(s, 1) for s in g1], key=lambda t: (-t[0], t[1]))
    k = 3
    while k < len(every) and every[k - 1][0] == every[k][0]:
        k += 2
    top = tuple(every[:k])
    counts = (sum(1 for _, o in top if o == 0), sum(1 for _, o in top if o == 1))
    return Ladder(k, top, counts, len(every))


def ladder_from_event(end: Json | None, g0: Sequence[int], g1: Sequence[int]) -> Ladder:
    """The end event's ladder when it carries one, else worked out from the groups."""
    raw = end.get("ladder") if end else None
    if isinstance(raw, Mapping):
        try:
            largest = tuple((int(s), int(o)) for s, o in raw.get("largest") or ())
            c0, c1 = (int(x) for x in raw.get("counts") or ())
            return Ladder(int(raw.get("k", len(largest))), largest, (c0, c1), len(g0) + len(g1))
        except (TypeError, ValueError):
            pass
    return ladder(g0, g1)


def explain(lad: Ladder, names: tuple[str, str]) -> str:
    """Why the ladder gives its result: "of the 5 largest groups (5, 4, 3, 3, 2) Black owns 3 and White 2; ..."."""
    shown = ", ".join(str(s) for s, _ in lad.largest)
    n = len(lad.largest)
    what = f"all {n} groups ({shown})" if lad.k >= lad.groups else f"the {n} largest groups ({shown})"
    out = f"of {what} {names[0]} owns {lad.counts[0]} and {names[1]} {lad.counts[1]}"
    if lad.k > 3:
        out += f"; the {ordinal(lad.k - 2)} and {ordinal(lad.k - 1)} largest were the same size, so the count went on to {lad.k}"
    return out


def with_colour(name: str, colour: str) -> str:
    """ "Ann (black)"; just "Black" when the name is the colour."""
    return name if name.lower() == colour else f"{name} ({colour})"


class PlurView(HexView):
    game = "plur"
    title = "Plur"
    default_names = ("Black", "White")
    pieces = (("p0", "black"), ("p1", "white"))
    symbols = ("B", "W")
    natural_end = "full"

    def describe(self, state: Mapping[str, Any]) -> str:
        pie = ", pie rule" if (state.get("options") or {}).get("pie") else ""
        return f"Plur, {self.size_text(state)}{self.blocked_note(state)}{pie}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return (
            f"B {with_colour(names[0], 'black')}, W {with_colour(names[1], 'white')}, # off the board; lower case: the last move"
        )

    def marks(self, events: Sequence[Json], state: Mapping[str, Any]) -> Marks:
        for e in events:
            if e.get("type") == "swap":
                cell = str(e.get("cell"))
                return Marks(mover=e.get("player"), move=f"swap ({cell})", last=frozenset([cell]))
        return self.placed_marks(events)

    def groups(self, state: Mapping[str, Any]) -> tuple[list[int], list[int]]:
        raw = state.get("scores")
        if isinstance(raw, list) and len(raw) == 2 and all(isinstance(x, list) for x in raw):
            return [int(s) for s in raw[0]], [int(s) for s in raw[1]]
        return self.board_sizes(state)

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        g0, g1 = self.groups(state)
        lines = [
            Line(f"{with_colour(names[0], 'black')}: groups {sizes(g0)}", icons=("p0",)),
            Line(f"{with_colour(names[1], 'white')}: groups {sizes(g1)}", icons=("p1",)),
        ]
        if state.get("status") != "finished" and (g0 or g1):
            lines.append(Line(f"If the board were full now (R-E1): {explain(ladder(g0, g1), names)}", "note"))
        return lines

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        colour = "black" if p == 0 else "white"
        if p == 1 and state.get("ply") == 1 and (state.get("options") or {}).get("pie"):
            return f"{names[p]} to move: one white stone, or 'swap' to take the black stone (R-E1a)"
        return f"{names[p]} to move: one {colour} stone (R-E1)"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        g0, g1 = self.groups(state)
        lad = ladder_from_event(end, g0, g1)
        w = state.get("winner")
        if w in (0, 1):
            return f"{names[w]} wins: the board is full and {explain(lad, names)} (R-E1)."
        return f"The board is full: a draw, {explain(lad, names)} (R-E1)."

    # -- announcements -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {**super().handlers(), "place": self._place, "swap": self._swap}

    def _place(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        colour = "black" if p == 0 else "white"
        cells = [str(c) for c in e.get("cells") or ()]
        return [f"{ctx.name(p)} places a {colour} stone on {and_list(cells)}."]

    def _swap(self, ctx: Context, e: Json) -> list[str]:
        who = ctx.name(e.get("player"))
        return [
            f"{who} swaps (pie rule): the black stone on {e.get('cell')} becomes {who}'s white stone, "
            f"and {ctx.name(0)} moves next with black (R-E1a)."
        ]

    def after_move(self, ctx: Context) -> list[str]:
        if not any(e.get("type") in ("place", "swap") for e in ctx.events):
            return []
        g0, g1 = self.groups(ctx.after)
        return [f"Groups: {ctx.name(0)} {sizes(g0)}, {ctx.name(1)} {sizes(g1)}."]

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        raw = e.get("groups")
        if isinstance(raw, list) and len(raw) == 2:
            g0, g1 = [int(s) for s in raw[0]], [int(s) for s in raw[1]]
        else:
            g0, g1 = self.groups(ctx.after)
        lad = ladder_from_event(e, g0, g1)
        w = e.get("winner")
        verdict = f"{ctx.name(w)} wins" if w in (0, 1) else "It is a draw"
        return ["The board is full: the game is over (R-E1).", f"{verdict}: {explain(lad, ctx.names)}."]
