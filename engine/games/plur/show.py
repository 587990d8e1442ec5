"""Plur as an umpire shows it (seed 001; RULES R-E1, R-E1a): black and white
stones on a hexhex board, each player's group sizes, the pie rule's swap,
and the ladder of largest groups (3, 5, 7, ...) that decides at the end -
worked out by the rules (:func:`engine.games.plur.rules.size_ladder`), said here.

State (the engine's JSON, version 1): ``board`` maps cells to owners (0
black, 1 white); ``scores`` are each player's group sizes, largest first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.plur.rules import Plur, ladder_winner, size_ladder
from engine.hexshow import HexShow
from engine.show import Context, Handler, Json, LastMove, Line, Style, marks
from engine.words import and_list, ordinal, sizes

COLOURS = ("black", "white")


def ladder_of(end: Json | None, g0: Sequence[int], g1: Sequence[int]) -> Json:
    """The end event's ladder when it carries a whole one, else the rules' ladder of these groups."""
    raw = end.get("ladder") if end else None
    if isinstance(raw, Mapping) and {"k", "all", "largest", "counts"} <= raw.keys():
        try:
            largest = [[int(s), int(o)] for s, o in raw["largest"]]
            c0, c1 = (int(x) for x in raw["counts"])
            return {"k": int(raw["k"]), "all": bool(raw["all"]), "largest": largest, "counts": [c0, c1]}
        except (TypeError, ValueError):
            pass
    return size_ladder(g0, g1)


def explain(lad: Json, names: tuple[str, str]) -> str:
    """Why the ladder gives its result: "of the 5 largest groups (5, 4, 3, 3, 2)
    Black owns 3 and White 2; the third and fourth largest were the same size,
    so the count went on to 5".  When the ladder runs past the groups there
    are, every group counts (R-E1)."""
    largest = lad["largest"]
    k, n = int(lad["k"]), len(largest)
    shown = ", ".join(str(s) for s, _ in largest)
    if not lad["all"]:
        what = f"the {n} largest groups ({shown})"
    elif n == 1:
        what = f"the one group ({shown})"
    elif n == 2:
        what = f"both groups ({shown})"
    else:
        what = f"all {n} groups ({shown})"
    c0, c1 = lad["counts"]
    out = f"of {what} {names[0]} owns {c0} and {names[1]} {c1}"
    if k > 3:
        tied = f"the {ordinal(k - 2)} and {ordinal(k - 1)} largest were the same size"
        out += f"; {tied}, so every group counts" if k > n else f"; {tied}, so the count went on to {k}"
    return out


def with_colour(name: str, colour: str) -> str:
    """ "Ann (black)"; just "Black" when the name is the colour."""
    return name if name.lower() == colour else f"{name} ({colour})"


class PlurShow(HexShow):
    title = Plur.title
    default_names = ("Black", "White")
    styles = (Style("p0", "black", "dot"), Style("p1", "white", "ring"))
    symbols = ("B", "W")
    natural_end = Plur.natural_ends[0]

    @staticmethod
    def _pie(state: Mapping[str, Any]) -> str:
        return ", pie rule" if (state.get("options") or {}).get("pie") else ""

    def name_of(self, state: Mapping[str, Any]) -> str:
        return f"Plur{self._pie(state)}"

    def describe(self, state: Mapping[str, Any]) -> str:
        return f"Plur, {self.size_text(state)}{self.blocked_note(state)}{self._pie(state)}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return (
            f"B {with_colour(names[0], 'black')}, W {with_colour(names[1], 'white')}{self.off_note(state)}; "
            "lower case: the last move"
        )

    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        for e in events:
            if e.get("type") == "swap":
                cell = str(e.get("cell"))
                return LastMove(mover=e.get("player"), move=f"swap ({cell})", marks=marks("last", [cell]))
        return self.placed(events)

    def groups(self, state: Mapping[str, Any]) -> tuple[list[int], list[int]]:
        raw = state.get("scores")
        if isinstance(raw, list) and len(raw) == 2 and all(isinstance(x, list) for x in raw):
            return [int(s) for s in raw[0]], [int(s) for s in raw[1]]
        return self.board_sizes(state)

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        g0, g1 = self.groups(state)
        lines = [
            Line(f"{with_colour(names[0], 'black')}: groups {sizes(g0)}", icons=(self.stone(0),)),
            Line(f"{with_colour(names[1], 'white')}: groups {sizes(g1)}", icons=(self.stone(1),)),
        ]
        if state.get("status") != "finished" and (g0 or g1):
            lad = size_ladder(g0, g1)
            w = ladder_winner(lad)
            verdict = f"{names[w]} would win" if w is not None else "it would be a draw"
            lines.append(Line(f"If the board were full now, {verdict} (R-E1): {explain(lad, names)}", "note"))
        return lines

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        if p == 1 and state.get("ply") == 1 and (state.get("options") or {}).get("pie"):
            return f"{names[p]} to move: one white stone, or 'swap' to take the black stone (R-E1a)"
        return f"{names[p]} to move: one {COLOURS[p]} stone (R-E1)"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        g0, g1 = self.groups(state)
        lad = ladder_of(end, g0, g1)
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
        lad = ladder_of(e, g0, g1)
        w = e.get("winner")
        verdict = f"{ctx.name(w)} wins" if w in (0, 1) else "It is a draw"
        return ["The board is full: the game is over (R-E1).", f"{verdict}: {explain(lad, ctx.names)}."]
