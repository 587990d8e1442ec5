"""Bug as an umpire shows it (seed 002; RULES R-B1 to R-B8): both variants'
boards (hexhex and Green Meadow, R-H4, with its black and blackened cells),
the last move's grow and bonus cells and the bugs it ate, each player's
pieces and bug sizes (R-B7), and every grow, eat, refused eat (R-B4) and
blackening in words, bugs named as seed 002 names them ("the bend 3-bug
A3-B4-C4").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.bug.rules import Bug
from engine.hexboard import HexBoard
from engine.hexshow import HexShow
from engine.show import CellMark, Context, Handler, Json, LastMove, Line, Style
from engine.words import and_list, plural, possessive, sizes


def bug_cells(cells: Sequence[str]) -> str:
    """A bug's cells as seed 002 writes them: "A3-B4-C4"."""
    return "-".join(cells)


def shape_word(board: HexBoard, cells: Sequence[str]) -> str:
    """The seed's words for a bug's size and, for three pieces, its shape:
    "straight 3-bug", "bend 3-bug", "triangle 3-bug"; else "4-bug"."""
    n = len(cells)
    if n != 3:
        return f"{n}-bug"
    try:
        pts = [board.axial(board.parse_cell(c)) for c in cells]
    except ValueError:
        return "3-bug"
    adjacent = {(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)}

    def touch(a: tuple[int, int], b: tuple[int, int]) -> bool:
        return (a[0] - b[0], a[1] - b[1]) in adjacent

    links = [(i, j) for i in range(3) for j in range(i + 1, 3) if touch(pts[i], pts[j])]
    if len(links) == 3:
        return "triangle 3-bug"
    middle = next((k for k in range(3) if sum(k in link for link in links) == 2), None)
    if middle is None:
        return "3-bug"
    a, b = (pts[k] for k in range(3) if k != middle)
    m = pts[middle]
    straight = (a[0] - m[0], a[1] - m[1]) == (m[0] - b[0], m[1] - b[1])
    return "straight 3-bug" if straight else "bend 3-bug"


class BugShow(HexShow):
    title = Bug.title
    default_names = ("Red", "Blue")
    styles = (Style("p0", "red", "dot"), Style("p1", "blue", "ring"))
    natural_end = Bug.natural_ends[0]
    default_size = 3
    min_size, max_size = 2, 7

    def board_kind(self, options: Mapping[str, Any]) -> tuple[str, int]:
        if options.get("variant") == "green-meadow":
            return "green-meadow", 6
        return super().board_kind(options)

    @staticmethod
    def _eaters(state: Mapping[str, Any]) -> str:
        return ", every bug eats (eaters: all)" if (state.get("options") or {}).get("eaters") == "all" else ""

    def name_of(self, state: Mapping[str, Any]) -> str:
        return f"Bug ({(state.get('options') or {}).get('variant', 'genius')}){self._eaters(state)}"

    def describe(self, state: Mapping[str, Any]) -> str:
        variant = (state.get("options") or {}).get("variant", "genius")
        if variant == "green-meadow":
            n = len(state.get("blocked") or ())
            board = f", {plural(n, 'cell')} blackened" if n else ""
        else:
            board = f", {self.size_text(state)}{self.blocked_note(state)}"
        return f"Bug ({variant}){board}{self._eaters(state)}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return f"X {names[0]}, O {names[1]}{self.off_note(state)}; lower case: the last move's pieces"

    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        mover = None
        cells: list[str] = []
        marks: dict[str, str] = {}
        eaten: set[str] = set()
        for e in events:
            kind = e.get("type")
            if kind == "grow":
                mover = e.get("player")
                cells.append(str(e.get("cell")))
                marks.setdefault(str(e.get("cell")), "last")
            elif kind == "eat":
                cells.append(str(e.get("bonus")))
                marks[str(e.get("bonus"))] = "bonus"
                for bug in e.get("eaten") or ():
                    eaten.update(str(c) for c in bug)
            elif kind == "blacken":
                mover = e.get("player")
                cells.append(str(e.get("cell")))
                marks.setdefault(str(e.get("cell")), "last")
        if mover is None:
            return LastMove()
        move = " ".join(cells)  # as the record writes it (R-B5): a blackening names its cell
        found = [CellMark(c, k) for c, k in marks.items()] + [CellMark(c, "eaten") for c in sorted(eaten)]
        return LastMove(mover=mover, move=move, marks=tuple(found))

    def said(self, last: LastMove, events: Sequence[Json], names: tuple[str, str]) -> str:
        if last.mover in (0, 1) and any(e.get("type") == "blacken" for e in events):
            return f"{names[last.mover]} blackens {last.move}"  # R-B2: Green Meadow's opening turns
        return super().said(last, events, names)

    def last_line(self, last: LastMove, events: Sequence[Json], names: tuple[str, str]) -> str:
        blacken = any(e.get("type") == "blacken" for e in events)
        return super().last_line(last, events, names) + (" (blackened)" if blacken else "")

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        counts = state.get("scores") or [0, 0]
        g0, g1 = self.board_sizes(state)
        return [
            Line(f"{names[0]}: {plural(int(counts[0]), 'piece')}, bugs {sizes(g0)}", icons=(self.stone(0),)),
            Line(f"{names[1]}: {plural(int(counts[1]), 'piece')}, bugs {sizes(g1)}", icons=(self.stone(1),)),
        ]

    def mark_notes(self, last: LastMove) -> list[Line]:
        said = []
        bonus, eaten = last.cells("bonus"), last.cells("eaten")
        if bonus:
            said.append(f"★ bonus growth ({', '.join(sorted(bonus))})")
        if eaten:
            said.append(f"dashed: eaten ({', '.join(sorted(eaten))})")
        return [Line("Marked: " + "; ".join(said), "note")] if said else []

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        if state.get("phase") == "blacken":
            return f"{names[p]} to move: blacken one empty cell (R-B2)"
        largest = max(state.get("largest") or [0])
        if not state.get("board"):
            return f"{names[p]} to move: the first piece, anywhere (R-B2)"
        return f"{names[p]} to move: grow (no bug beyond {plural(largest, 'piece')}), then eat (R-B3, R-B4)"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        w = state.get("winner")
        if w not in (0, 1):
            return "The game is over."
        return f"{names[w]} wins: {names[w]} cannot grow anywhere (R-B6)."

    # -- announcements -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {
            **super().handlers(),
            "grow": self._grow,
            "eat": self._eat,
            "eat_refused": self._refused,
            "blacken": self._blacken,
        }

    def _bug(self, ctx: Context, cells: Sequence[str]) -> str:
        board = self.board(ctx.after.get("options") or {})
        return f"{shape_word(board, cells)} {bug_cells(cells)}"

    def _grow(self, ctx: Context, e: Json) -> list[str]:
        who = ctx.name(e.get("player"))
        cell = str(e.get("cell"))
        bug = [str(c) for c in e.get("bug") or (cell,)]
        if e.get("spawn"):
            return [f"{who} spawns a new bug on {cell}."]
        return [f"{who} grows on {cell}: the bug is now the {self._bug(ctx, bug)}."]

    def _eat(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        who, other = ctx.name(p), ctx.other(p)
        eater = [str(c) for c in e.get("eater") or ()]
        eaten = [[str(c) for c in bug] for bug in e.get("eaten") or ()]
        bonus = str(e.get("bonus"))
        grown = [str(c) for c in e.get("bug") or ()]
        victims = and_list([self._bug(ctx, bug) for bug in eaten])
        return [
            f"{possessive(who)} {self._bug(ctx, eater)} eats {possessive(other)} congruent {victims}"
            f" and grows on the bonus cell {bonus}: now the {self._bug(ctx, grown)} (R-B4)."
        ]

    def _refused(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        who, other = ctx.name(p), ctx.other(p)
        eater = [str(c) for c in e.get("eater") or ()]
        spared = [[str(c) for c in bug] for bug in e.get("spared") or ()]
        victims = and_list([self._bug(ctx, bug) for bug in spared])
        return [
            f"{possessive(who)} {self._bug(ctx, eater)} touches {possessive(other)} congruent {victims}, but could not grow "
            "after eating, so it does not eat and the bug stays (R-B4)."
        ]

    def _blacken(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} blackens {e.get('cell')}: it leaves the board for good (R-B2)."]

    def after_move(self, ctx: Context) -> list[str]:
        after = ctx.after
        kinds = {e.get("type") for e in ctx.events}
        out: list[str] = []
        if "blacken" in kinds and after.get("status") != "finished":
            p = after.get("to_move")
            if after.get("phase") == "blacken":
                out.append(f"{ctx.name(p)} blackens a cell next.")
            else:
                out.append(f"The board is set: {ctx.name(p)} places the first piece.")
        if "grow" in kinds:
            counts = after.get("scores") or [0, 0]
            largest = after.get("largest") or [0, 0]
            n0, n1 = ctx.names
            out.append(
                f"Pieces on the board: {n0} {counts[0]}, {n1} {counts[1]}; largest bugs: {n0} {largest[0]}, {n1} {largest[1]}."
            )
        return out

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        w = e.get("winner")
        if w not in (0, 1):
            return ["The game is over."]
        return [f"{ctx.name(w)} cannot grow anywhere, so {ctx.name(w)} wins (R-B6)."]
