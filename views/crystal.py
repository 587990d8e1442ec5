"""Crystal Connector as an umpire shows it (seed 003; RULES R-H5, R-X1 to
R-X6): the 6x6 grid with its crystals and anomaly pieces, each drawn as a
shape of its own and named in a legend; the last turn's shifted files
outlined with arrows; each player's colours, largest groups, product and
running total (R-X3); the round, the threshold and the barred files; the
draft, the scoring, spikes and ties in words.

Pieces are the API's symbols: ``R B G Y`` crystals (lower case: spiked),
``*`` bomb, ``@`` chameleon, ``+`` pylon, ``#`` rock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engine.games.crystal import grid as cg
from views.base import CellPos, Context, GameView, Handler, Label, Layout, Marks
from views.kit import Json, and_list, num, or_list, parse_time, plural, possessive, xml
from views.svgkit import MARGIN, MIN_WIDTH, Line, icon_svg

S = 48.0  # a cell's side
LEFT, TOP, RIGHT, BOTTOM = 26.0, 26.0, 44.0, 24.0  # label and arrow strips around the grid
COLOURS = cg.COLOURS  # red, blue, green, yellow
LETTER = {"red": "R", "blue": "B", "green": "G", "yellow": "Y"}
PIECE_NAMES = {"*": "bomb", "@": "chameleon", "+": "pylon", "#": "rock"}
TIMES = "\u00d7"  # the multiplication sign: "red 7 TIMES green 5 = 35"
ARROWS = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
LEGEND = {
    "bombs": ("bomb", "* bomb: a group touching it does not count (R-X5)"),
    "chameleons": ("chameleon", "@ chameleon: counts as every colour (R-X5)"),
    "pylons": ("pylon", "+ pylon: crystals on a line with two pylons count 2 (R-X5)"),
    "rocks": ("rock", "# rock: may not be shifted over the edge (R-X5)"),
    "spikes": ("spiked", "r b g y spiked crystal: each cell it travels gives the opponent 1 point (R-X5)"),
}


@cache
def _grid_geometry() -> tuple[float, float, float, float]:
    """(x0, y0, width, height): the grid's top-left corner and the board area's size."""
    natural = MARGIN + LEFT + 6 * S + RIGHT + MARGIN
    width = max(natural, MIN_WIDTH + 80)  # the panel says more than a hex game's: give its lines room
    x0 = MARGIN + LEFT + (width - natural) / 2
    y0 = MARGIN + TOP
    return x0, y0, width, y0 + 6 * S + BOTTOM + MARGIN


def centre(col: int, row: int) -> tuple[float, float]:
    x0, y0, _, _ = _grid_geometry()
    return x0 + S * col + S / 2, y0 + S * row + S / 2


@cache
def grid_layout() -> Layout:
    x0, y0, width, height = _grid_geometry()
    cells = []
    for r in range(6):
        for c in range(6):
            nbrs = []
            for dc, dr in ((0, -1), (-1, 0), (1, 0), (0, 1)):  # orthogonal, no wrap-around (R-H5); reading order
                if 0 <= c + dc < 6 and 0 <= r + dr < 6:
                    nbrs.append(f"{'ABCDEF'[c + dc]}{r + dr + 1}")
            x, y = centre(c, r)
            cells.append(CellPos(f"{'ABCDEF'[c]}{r + 1}", x, y, tuple(nbrs)))
    labels = [Label("ABCDEF"[c], centre(c, 0)[0], y0 - 14) for c in range(6)]
    labels += [Label(str(r + 1), x0 - 15, centre(0, r)[1]) for r in range(6)]
    return Layout(
        game="crystal",
        kind="grid",
        cells=tuple(cells),
        off=(),
        labels=tuple(labels),
        rows=tuple(str(r + 1) for r in range(6)),
        columns=tuple("ABCDEF"),
        width=width,
        height=height,
        cell_size=S,
    )


@cache
def _tile(name: str, last: bool) -> str:
    """A cell's element and its square (marked when the last move converted it), left open for its piece."""
    c, r = "ABCDEF".index(name[0]), int(name[1]) - 1
    x, y = centre(c, r)
    cls = "tile last" if last else "tile"
    return (
        f'<g class="cell" data-cell="{name}"><rect class="{cls}" x="{num(x - S / 2)}" y="{num(y - S / 2)}" '
        f'width="{num(S)}" height="{num(S)}"/>'
    )


# -- the pieces ---------------------------------------------------------------------------------


def _diamond(x: float, y: float, h: float) -> str:
    return f"{num(x)},{num(y - h)} {num(x + h)},{num(y)} {num(x)},{num(y + h)} {num(x - h)},{num(y)}"


def _star(x: float, y: float, outer: float, inner: float, points: int) -> str:
    pts = []
    for k in range(2 * points):
        r = outer if k % 2 == 0 else inner
        a = math.pi * k / points - math.pi / 2
        pts.append(f"{num(x + r * math.cos(a))},{num(y + r * math.sin(a))}")
    return " ".join(pts)


ROCK_SHAPE = ((-0.36, 0.2), (-0.3, -0.12), (-0.12, -0.3), (0.14, -0.28), (0.34, -0.08), (0.38, 0.18), (0.2, 0.32), (-0.2, 0.33))


@cache
def piece_svg(sym: str, x: float, y: float, scale: float = 1.0) -> str:
    """One piece of the grid, centred on (x, y): the first element carries
    ``crystal`` or ``piece`` and the kind, so each piece is found exactly once."""
    s = S * scale
    sx, sy = num(x), num(y)
    letter_px = "" if scale == 1.0 else f' style="font-size:{num(17 * scale)}px"'
    sym_px = "" if scale == 1.0 else f' style="font-size:{num(13 * scale)}px"'
    upper = sym.upper()
    if upper in "RBGY":
        spiked = sym.islower()
        out = ""
        if spiked:
            out += f'<polygon class="spike" points="{_star(x, y, 0.5 * s, 0.3 * s, 12)}"/>'
        cls = f"crystal x{upper}" + (" spiked" if spiked else "")
        out += f'<polygon class="{cls}" points="{_diamond(x, y, 0.4 * s)}"/>'
        return out + f'<text class="t{upper}" x="{sx}" y="{sy}"{letter_px}>{sym}</text>'
    if sym == "*":
        r = 0.27 * s
        cy = y + 0.06 * s
        fx, fy = x + r * 0.7, cy - r * 0.7
        return (
            f'<circle class="piece bomb" cx="{sx}" cy="{num(cy)}" r="{num(r)}"/>'
            f'<path class="fuse" d="M{num(fx)},{num(fy)} q{num(0.08 * s)},{num(-0.12 * s)} {num(0.16 * s)},{num(-0.1 * s)}"/>'
            f'<polygon class="spark" points="{_star(fx + 0.16 * s, fy - 0.1 * s, 0.09 * s, 0.04 * s, 5)}"/>'
            f'<text class="sym" x="{sx}" y="{num(cy)}"{sym_px}>*</text>'
        )
    if sym == "@":
        r = 0.36 * s
        parts = ['<g class="piece chameleon">']
        for k, colour in enumerate("RBGY"):  # a quarter in each colour: it counts as every one (R-X5)
            a0, a1 = math.pi / 2 * k - math.pi / 2, math.pi / 2 * (k + 1) - math.pi / 2
            x1, y1 = x + r * math.cos(a0), y + r * math.sin(a0)
            x2, y2 = x + r * math.cos(a1), y + r * math.sin(a1)
            d = f"M{sx},{sy} L{num(x1)},{num(y1)} A{num(r)},{num(r)} 0 0 1 {num(x2)},{num(y2)} Z"
            parts.append(f'<path class="x{colour}" d="{d}"/>')
        parts.append(f'<circle class="tile" cx="{sx}" cy="{sy}" r="{num(0.17 * s)}"/>')
        parts.append(f'<text class="symd" x="{sx}" y="{sy}"{sym_px}>@</text></g>')
        return "".join(parts)
    if sym == "+":
        w, h, t = 0.2 * s, 0.38 * s, 0.06 * s
        pts = f"{num(x - w)},{num(y + h)} {num(x - t)},{num(y - h)} {num(x + t)},{num(y - h)} {num(x + w)},{num(y + h)}"
        bar_y = num(y - 0.12 * s)
        return (
            f'<polygon class="piece pylon" points="{pts}"/>'
            f'<line class="fuse" x1="{num(x - 0.17 * s)}" y1="{bar_y}" x2="{num(x + 0.17 * s)}" y2="{bar_y}"/>'
            f'<text class="sym" x="{sx}" y="{num(y + 0.12 * s)}"{sym_px}>+</text>'
        )
    if sym == "#":
        pts = " ".join(f"{num(x + dx * s)},{num(y + dy * s)}" for dx, dy in ROCK_SHAPE)
        return f'<polygon class="piece rock" points="{pts}"/><text class="sym" x="{sx}" y="{num(y + 0.02 * s)}"{sym_px}>#</text>'
    return f'<text class="symd" x="{sx}" y="{sy}">{xml(sym)}</text>'


def piece_icon(name: str, x: float, y: float) -> str:
    """A small piece before a panel line: crystal swatches, anomalies for the legend."""
    sym = {"bomb": "*", "chameleon": "@", "pylon": "+", "rock": "#", "spiked": "r"}.get(name)
    if sym is not None:
        return piece_svg(sym, x, y, 0.36)
    return icon_svg(name, x, y)


def shift_parts(text: str) -> list[tuple[str, str, int]]:
    """``C up 2, 2 right 3`` -> ``[("C", "up", 2), ("2", "right", 3)]``."""
    out = []
    for item in text.replace(";", ",").split(","):
        words = item.split()
        if len(words) == 3 and words[1] in ARROWS and words[2].isdigit():
            out.append((words[0].upper(), words[1], int(words[2])))
    return out


def colour_values(board: Sequence[str]) -> dict[str, int]:
    """Each colour's largest-group value now (R-X3, R-X5), from the state's grid."""
    try:
        values = cg.colour_values(cg.parse_rows(list(board)))
    except (ValueError, TypeError):
        return {c: 0 for c in COLOURS}
    return dict(zip(COLOURS, values, strict=True))


class CrystalView(GameView):
    game = "crystal"
    title = "Crystal Connector"
    default_names = ("Player 1", "Player 2")
    pieces = ()
    natural_end = "threshold"

    def layout(self, options: Mapping[str, Any], blocked: Sequence[str] = ()) -> Layout:
        if blocked:
            raise ValueError("The Crystal Connector grid has no blocked cells.")
        return grid_layout()

    def state_layout(self, state: Mapping[str, Any]) -> Layout:
        return grid_layout()

    def icon(self, name: str, x: float, y: float) -> str:
        return piece_icon(name, x, y)

    # -- drawing ---------------------------------------------------------------------------

    def board_svg(self, state: Mapping[str, Any], layout: Layout, marks: Marks, coords: bool) -> list[str]:
        rows = list(state.get("board") or ())
        x0, y0, _, _ = _grid_geometry()
        barred = set(state.get("barred") or ()) if state.get("status") != "finished" else set()
        out = ['<g class="labels">']
        for lb in layout.labels:
            if lb.text in barred:  # the player to move may not shift this file (R-X2)
                out.append(f'<text class="barred" x="{num(lb.x)}" y="{num(lb.y)}">{lb.text}</text>')
                out.append(f'<line class="strike" x1="{num(lb.x - 7)}" y1="{num(lb.y)}" x2="{num(lb.x + 7)}" y2="{num(lb.y)}"/>')
            else:
                out.append(f'<text class="lbl" x="{num(lb.x)}" y="{num(lb.y)}">{lb.text}</text>')
        out.append('</g><g class="board">')
        for i, cell in enumerate(layout.cells):
            r, c = divmod(i, 6)
            sym = rows[r][c] if r < len(rows) and c < len(rows[r]) else "?"
            out.append(_tile(cell.name, cell.name in marks.last))
            out.append(piece_svg(sym, cell.x, cell.y))
            if coords:
                out.append(f'<text class="coord" x="{num(cell.x + S / 2 - 10)}" y="{num(cell.y + S / 2 - 7)}">{cell.name}</text>')
            out.append("</g>")
        out.append("</g>")
        out.extend(self._shift_marks(marks, x0, y0))
        return out

    def _shift_marks(self, marks: Marks, x0: float, y0: float) -> list[str]:
        out = []
        for file, arrows in marks.files:
            if file in "ABCDEF":
                c = "ABCDEF".index(file)
                x = x0 + S * c
                out.append(f'<rect class="shifted" x="{num(x)}" y="{num(y0)}" width="{num(S)}" height="{num(6 * S)}"/>')
                out.append(f'<text class="arrow" x="{num(x + S / 2)}" y="{num(y0 + 6 * S + 12)}">{arrows}</text>')
            else:
                r = int(file) - 1
                y = y0 + S * r
                out.append(f'<rect class="shifted" x="{num(x0)}" y="{num(y)}" width="{num(6 * S)}" height="{num(S)}"/>')
                out.append(f'<text class="arrow" x="{num(x0 + 6 * S + RIGHT / 2)}" y="{num(y + S / 2)}">{arrows}</text>')
        return out

    def diagram(self, state: Mapping[str, Any], marks: Marks, coords: bool) -> list[str]:
        rows = list(state.get("board") or ())
        header = "   " + " ".join("ABCDEF")
        lines = [header]
        for r, row in enumerate(rows):
            lines.append(f"{r + 1}  " + " ".join(row))
        return lines

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        anomalies = (state.get("options") or {}).get("anomalies") or []
        parts = ["R B G Y crystals"]
        parts += [LEGEND[a][1].split(":")[0] for a in anomalies if a in LEGEND]
        return ", ".join(parts)

    def marks(self, events: Sequence[Json], state: Mapping[str, Any]) -> Marks:
        mover = None
        move: list[str] = []
        last: set[str] = set()
        files: dict[str, list[str]] = {}
        for e in events:
            kind = e.get("type")
            if kind == "convert":
                mover = e.get("player")
                last.add(str(e.get("cell")))
                move.append(f"convert {e.get('cell')};")
            elif kind == "shifts":
                mover = e.get("player")
                text = str(e.get("shifts") or "")
                move.append(text)
                for file, direction, amount in shift_parts(text):
                    files.setdefault(file, []).append(f"{ARROWS[direction]}{amount}")
            elif kind == "pass" and mover is None:
                mover = e.get("player")
                move.append("(no shifts: time ran out, R-X6)")
            elif kind in ("pick_order", "move_order", "pick") and mover is None and not e.get("last"):
                mover = e.get("player")
                move.append(self._draft_words(e))
        if mover is None:
            return Marks()
        ordered = tuple((f, " ".join(files[f])) for f in "ABCDEF123456" if f in files)
        return Marks(mover=mover, move=" ".join(move), last=frozenset(last), files=ordered)

    @staticmethod
    def _draft_words(e: Json) -> str:
        kind = e.get("type")
        if kind == "pick":
            return " ".join(str(c) for c in e.get("colors") or ())
        if kind == "pick_order":
            return "first" if e.get("picker") == e.get("player") else "second"
        return "first" if e.get("first") == e.get("player") else "second"

    # -- status ---------------------------------------------------------------------------

    def describe(self, state: Mapping[str, Any]) -> str:
        anomalies = (state.get("options") or {}).get("anomalies") or []
        which = ", ".join(anomalies) if anomalies else "no anomalies"
        return f"Crystal Connector ({which}), ply {state.get('ply', 0)}"

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        colors = state.get("colors") or [[], []]
        totals = state.get("scores") or [0, 0]
        values = colour_values(state.get("board") or ())
        lines = []
        for p in (0, 1):
            pair = [str(c) for c in colors[p]] if p < len(colors) else []
            icons = tuple(LETTER[c] for c in pair if c in LETTER)
            if len(pair) == 2:
                a, b = pair
                va, vb = values.get(a, 0), values.get(b, 0)
                now = f"{a} {va} {TIMES} {b} {vb} = {va * vb} a turn now"
                lines.append(Line(f"{names[p]} ({a}, {b}): total {totals[p]}; {now}", icons=icons))
            else:
                got = f" ({and_list(pair)} so far)" if pair else " (no colour yet)"
                lines.append(Line(f"{names[p]}{got}: total {totals[p]}", icons=icons))
        lines.append(Line(self._round_line(state, names)))
        return lines

    @staticmethod
    def round_number(state: Mapping[str, Any]) -> int:
        turns = state.get("turns") or [0, 0]
        first = state.get("first")
        if first not in (0, 1):
            return 0
        second = turns[1 - first]
        if state.get("status") == "finished":
            return int(max(turns))
        return int(second) + 1

    def _round_line(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        threshold = state.get("threshold", 250)
        first = state.get("first")
        if state.get("phase") != "shift" or first not in (0, 1):
            return f"The draft (R-X1); threshold {threshold}"
        return f"Round {self.round_number(state)}, {names[first]} shifts first; threshold {threshold} (R-X4)"

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        who = names[p]
        phase = state.get("phase")
        if phase == "pick_order":
            return f"{who} to move: say 'first' or 'second', who picks a colour first (R-X1)"
        if phase == "pick_one":
            return f"{who} to move: name one colour (R-X1)"
        if phase == "pick_two":
            taken = {str(c) for pair in state.get("colors") or () for c in pair}
            left = [c for c in COLOURS if c not in taken]
            return f"{who} to move: name two of {and_list(left)}; {names[1 - p]} gets the last (R-X1)"
        if phase == "move_order":
            return f"{who} to move: say 'first' or 'second', who shifts first (R-X1)"
        due = state.get("shifts_due", 3)
        text = f"{who} to move: {plural(int(due), 'shift')}"
        if "color-convertor" in ((state.get("options") or {}).get("anomalies") or ()):
            text += ", may convert first"
        barred = list(state.get("barred") or ())
        if barred:
            text += f"; may not shift {or_list(barred)} ({names[1 - p]} shifted them last turn, R-X2)"
        return text

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        w = state.get("winner")
        totals = state.get("scores") or [0, 0]
        threshold = state.get("threshold", 250)
        if w not in (0, 1):
            return "The game is over."
        return (
            f"{names[w]} wins {totals[w]} to {totals[1 - w]}: at the end of round {self.round_number(state)} "
            f"a total reached the threshold of {threshold} (R-X4)."
        )

    def extra_notes(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        anomalies = (state.get("options") or {}).get("anomalies") or []
        return [Line(LEGEND[a][1], "note", (LEGEND[a][0],)) for a in anomalies if a in LEGEND]

    # -- announcements ----------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {
            **super().handlers(),
            "pick_order": self._pick_order,
            "pick": self._pick,
            "move_order": self._move_order,
            "convert": self._convert,
            "shifts": self._shifts,
            "spikes": self._spikes,
            "score": self._score,
            "spikes_vanish": self._vanish,
            "tie": self._tie,
            "pass": self._pass,
        }

    def _pick_order(self, ctx: Context, e: Json) -> list[str]:
        p, picker = e.get("player"), e.get("picker")
        said = "first" if picker == p else "second"
        return [f"{ctx.name(p)} says '{said}': {ctx.name(picker)} picks a colour first (R-X1)."]

    def _pick(self, ctx: Context, e: Json) -> list[str]:
        colors = [str(c) for c in e.get("colors") or ()]
        who = ctx.name(e.get("player"))
        if e.get("last"):
            return [f"{who} gets the last colour, {and_list(colors)} (R-X1)."]
        return [f"{who} picks {and_list(colors)}."]

    def _move_order(self, ctx: Context, e: Json) -> list[str]:
        p, first = e.get("player"), e.get("first")
        said = "first" if first == p else "second"
        return [f"{ctx.name(p)} says '{said}': {ctx.name(first)} shifts first (R-X1)."]

    def _convert(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} converts {e.get('cell')} from {e.get('from')} to {e.get('to')} (R-X5)."]

    def _shifts(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} shifts {e.get('shifts')}."]

    def _spikes(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        points = int(e.get("points") or 0)
        return [f"Spiked crystals travelled {plural(points, 'cell')}: {ctx.name(p)} gains {plural(points, 'point')} (R-X5)."]

    def _score(self, ctx: Context, e: Json) -> list[str]:
        largest = e.get("largest") or {}
        parts = f" {TIMES} ".join(f"{c} {largest[c]}" for c in COLOURS if c in largest)
        return [f"{ctx.name(e.get('player'))} scores {parts} = {e.get('points')}, total {e.get('total')} (R-X3)."]

    def _vanish(self, ctx: Context, e: Json) -> list[str]:
        return ["Both players have made 15 turns: the spikes vanish (R-X5)."]

    def _tie(self, ctx: Context, e: Json) -> list[str]:
        scores = e.get("scores") or [0, 0]
        return [f"The round ends with a total past the threshold but the totals equal ({scores[0]} each): play goes on (R-X4)."]

    def _pass(self, ctx: Context, e: Json) -> list[str]:
        return [f"{possessive(ctx.name(e.get('player')))} turn passes with no shifts and is scored as usual (R-X6)."]

    def _flag(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        who = ctx.name(p)
        other = ctx.name(1 - p if p in (0, 1) else None)
        if e.get("proxy"):
            until = parse_time(e.get("until"))
            when = f" until {until.strftime('%H:%M:%S')} UTC" if until else ""
            return [f"{who} has run out of time: {other} may submit {possessive(who)} turn{when} (R-X6)."]
        if "default" in e:
            return [f"{who} ran out of time in the draft: the default choice '{e.get('default')}' is made for them (R-X6)."]
        return [f"{who} ran out of time and nobody moved for them (R-X6)."]

    def after_move(self, ctx: Context) -> list[str]:
        after = ctx.after
        if not any(e.get("type") == "score" for e in ctx.events) or after.get("phase") != "shift":
            return []
        out = []
        mover = next((e.get("player") for e in ctx.events if e.get("type") in ("shifts", "pass")), None)
        totals = after.get("scores") or [0, 0]
        if mover is not None and mover != after.get("first"):
            n = self.round_number(after) - (0 if after.get("status") == "finished" else 1)
            out.append(
                f"End of round {n}: {ctx.name(0)} {totals[0]}, {ctx.name(1)} {totals[1]} "
                f"(threshold {after.get('threshold', 250)})."
            )
        p = after.get("to_move")
        if after.get("status") != "finished" and p in (0, 1):
            barred = list(after.get("barred") or ())
            not_on = f", not on {or_list(barred)}" if barred else ""
            out.append(f"{ctx.name(p)} shifts next: {plural(int(after.get('shifts_due', 3)), 'shift')}{not_on}.")
        return out

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        w = e.get("winner")
        totals = e.get("scores") or ctx.after.get("scores") or [0, 0]
        threshold = ctx.after.get("threshold", 250)
        if w not in (0, 1):
            return ["The game is over."]
        return [
            f"A total has reached the threshold of {threshold} at the end of the round: "
            f"{ctx.name(w)} wins {totals[w]} to {totals[1 - w]} (R-X4)."
        ]
