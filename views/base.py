"""What every game's view has in common: :class:`GameView`, the shape a game
module fills in, and what is the same for all games - the geometry record a
front end gets, the marks of the last move, the ends that are not moves
(resign, flag, illegal, aborted) and the sentences that announce them.

A game module subclasses :class:`GameView` (hex games through
:class:`views.hexsvg.HexView`) and is listed in :mod:`views.registry`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from views.kit import Json, and_list, clock_lines, plural, possessive, seat_clock
from views.svgkit import Line, icon_svg

COMMON_ENDS = ("resign", "flag", "illegal", "aborted")


@dataclass(frozen=True)
class CellPos:
    """One cell of a picture: its name, centre and, for a playing cell, the
    playing cells it touches (R-H2, R-H4, R-H5)."""

    name: str
    x: float
    y: float
    neighbours: tuple[str, ...] = ()


@dataclass(frozen=True)
class Label:
    text: str
    x: float
    y: float


@dataclass(frozen=True)
class Layout:
    """Where everything of a board goes in the picture (SVG user units):
    what :func:`views.geometry` returns, and what the picture draws."""

    game: str
    kind: str  # "hexhex", "green-meadow" or "grid"
    cells: tuple[CellPos, ...]  # playing cells, reading order
    off: tuple[CellPos, ...]  # black or blocked cells, drawn but not played on
    labels: tuple[Label, ...]  # row letters (and Green Meadow's diagonals, Crystal's columns)
    rows: tuple[str, ...]
    columns: tuple[str, ...]  # Green Meadow's diagonals A-G, Crystal's columns A-F; none for hexhex
    width: float
    height: float
    cell_size: float  # hexagon circumradius, or a square's side
    side: int | None = None

    def to_json(self) -> Json:
        out: Json = {
            "game": self.game,
            "kind": self.kind,
            "cells": [{"name": c.name, "neighbours": list(c.neighbours), "x": c.x, "y": c.y} for c in self.cells],
            "off": [{"name": c.name, "x": c.x, "y": c.y} for c in self.off],
            "rows": list(self.rows),
            "labels": [{"text": lb.text, "x": lb.x, "y": lb.y} for lb in self.labels],
            "width": self.width,
            "height": self.height,
            "cell_size": self.cell_size,
            "shape": "square" if self.kind == "grid" else "hexagon-pointy-top",
        }
        if self.columns:
            out["diagonals" if self.kind == "green-meadow" else "columns"] = list(self.columns)
        if self.side is not None:
            out["side"] = self.side
        return out


@dataclass(frozen=True)
class Marks:
    """What the last move did to the board, for the picture and the diagram."""

    mover: int | None = None
    move: str | None = None  # the move as notation ("D7 F8", "C up 2, 2 right 3, A down 1")
    last: frozenset[str] = frozenset()  # cells the move placed, grew on, blackened or converted
    bonus: frozenset[str] = frozenset()  # Bug's bonus cells (R-B4)
    eaten: frozenset[str] = frozenset()  # cells of bugs the move ate
    files: tuple[tuple[str, str], ...] = ()  # Crystal: (file, arrows) for each shifted file


@dataclass
class Context:
    """What a sentence may need besides its event: the states around the
    move, the players' names, and the other events of the same move."""

    before: Json | None
    after: Json
    names: tuple[str, str]
    events: Sequence[Json]
    index: int = 0
    notes: dict[str, Any] = field(default_factory=dict)

    def name(self, player: Any) -> str:
        return self.names[player] if player in (0, 1) else f"player {player}"


Handler = Callable[[Context, Json], list[str]]


class GameView(ABC):
    """One game's pictures, diagrams and announcements."""

    game: ClassVar[str]
    title: ClassVar[str]
    default_names: ClassVar[tuple[str, str]]
    pieces: ClassVar[tuple[tuple[str, str], ...]] = ()  # stone CSS class -> palette role
    natural_end: ClassVar[str]  # the game's own end: "full", "stuck", "threshold"

    # -- geometry and drawing ---------------------------------------------------------

    @abstractmethod
    def layout(self, options: Mapping[str, Any], blocked: Sequence[str] = ()) -> Layout:
        """The board of ``options`` (the state's or a client's), less ``blocked`` cells."""

    def state_layout(self, state: Mapping[str, Any]) -> Layout:
        return self.layout(state.get("options") or {}, state.get("blocked") or ())

    @abstractmethod
    def board_svg(self, state: Mapping[str, Any], layout: Layout, marks: Marks, coords: bool) -> list[str]:
        """The board's SVG elements: labels, cells, pieces, marks."""

    @abstractmethod
    def diagram(self, state: Mapping[str, Any], marks: Marks, coords: bool) -> list[str]:
        """The board as monospace text lines, labels included."""

    @abstractmethod
    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """One line saying what the diagram's symbols are."""

    @abstractmethod
    def marks(self, events: Sequence[Json], state: Mapping[str, Any]) -> Marks:
        """The last move's cells, from its events."""

    @abstractmethod
    def describe(self, state: Mapping[str, Any]) -> str:
        """The heading: game, variant, board, ply."""

    @abstractmethod
    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        """Scores as the game reports them (R-C2/R-C4, R-B7, R-X3, R-E1, R-E2)."""

    @abstractmethod
    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """Whose turn it is and what they may do."""

    @abstractmethod
    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        """Winner and why, for the game's own end (``natural_end``)."""

    def mark_notes(self, marks: Marks) -> list[Line]:
        """Lines explaining the last move's marks beyond the highlighted cells (Bug's bonus and eaten cells)."""
        return []

    def icon(self, name: str, x: float, y: float) -> str:
        """A small piece drawn before a panel line (a stone with its mark, a crystal)."""
        return icon_svg(name, x, y)

    def extra_notes(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        """Further lines under the scores (Crystal's legend of anomalies)."""
        return []

    # -- status lines, shared by the picture and the diagram --------------------------------

    def status(
        self, state: Mapping[str, Any], events: Sequence[Json], names: tuple[str, str], clock: Mapping[str, Any] | None
    ) -> list[Line]:
        marks = self.marks(events, state)
        lines = [Line(self.describe(state), "title")]
        if marks.move is not None and marks.mover is not None:
            lines.append(Line(f"Last move ({names[marks.mover]}): {marks.move}", "last"))
            lines += self.mark_notes(marks)
        lines += self.scores(state, names)
        if state.get("status") == "finished":
            lines.append(Line(self.result(state, events, names), "result"))
        else:
            lines.append(Line(self.turn(state, names), "turn"))
        if clock:
            lines.append(Line("Clock: " + "; ".join(clock_lines(clock, names)), "line"))
        lines += self.extra_notes(state, names)
        return lines

    def result(self, state: Mapping[str, Any], events: Sequence[Json], names: tuple[str, str]) -> str:
        """The result line of a finished game: the winner and why."""
        end = state.get("end")
        winner = state.get("winner")
        end_event = next((e for e in reversed(events) if e.get("type") == "end"), None)
        if end in COMMON_ENDS or end is None:
            return common_result(end, winner, names, events)
        return self.natural_result(state, end_event, names)

    # -- announcements ------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        """Event type -> the sentences announcing it; games add theirs to these."""
        return {
            "resign": self._resign,
            "flag": self._flag,
            "illegal": self._illegal,
            "end": self._end,
        }

    @property
    def event_types(self) -> frozenset[str]:
        return frozenset(self.handlers())

    def announce(
        self,
        before: Json | None,
        events: Sequence[Json],
        after: Json,
        names: tuple[str, str],
        clock: Mapping[str, Any] | None,
    ) -> list[str]:
        ctx = Context(before, after, names, events)
        table = self.handlers()
        out: list[str] = []
        ending: list[str] = []  # the end is said last, after the move's summary
        for i, e in enumerate(events):
            ctx.index = i
            kind = e.get("type")
            handler = table.get(kind) if isinstance(kind, str) else None
            if handler is None:
                out.append(f"(The umpire has no sentence for the event {kind!r}.)")
                continue
            (ending if kind == "end" else out).extend(handler(ctx, e))
        out.extend(self.after_move(ctx))
        out.extend(ending)
        if clock:
            mover = mover_of(before, events)
            if mover is not None:
                out.append(f"{possessive(names[mover])} clock: {seat_clock(clock, mover)}.")
        return out

    def after_move(self, ctx: Context) -> list[str]:
        """Sentences that follow a whole move (who moves next, with what)."""
        return []

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        return [common_result(e.get("end"), e.get("winner"), ctx.names, ctx.events)]

    def _resign(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} resigns."]

    def _flag(self, ctx: Context, e: Json) -> list[str]:
        who = ctx.name(e.get("player"))
        return [f"{who} has run out of time: turn and bank are spent (R-T1)."]

    def _illegal(self, ctx: Context, e: Json) -> list[str]:
        """An illegal move in a match: a forfeit under the ``forfeit`` policy (the
        game ends ``illegal``), else refused, and the same player is to move."""
        who = ctx.name(e.get("player"))
        why = str(e.get("message") or e.get("code") or "").strip()
        said = f"{possessive(who)} move is illegal{': ' + why.rstrip('.') if why else ''}."
        forfeit = e.get("forfeit") or any(x.get("type") == "end" and x.get("end") == "illegal" for x in ctx.events)
        if forfeit:
            return [f"{said} {who} forfeits the game."]
        tried = e.get("move")
        move = f" ({tried})" if isinstance(tried, str) and tried.strip() else ""
        return [said, f"The move{move} is refused: {who} is still to move."]

    def _end(self, ctx: Context, e: Json) -> list[str]:
        end = e.get("end", self.natural_end)  # Catchup's end event names no end yet: the full board
        if end in COMMON_ENDS:
            return [common_result(end, e.get("winner"), ctx.names, ctx.events)]
        return self.natural_end_sentences(ctx, e)


def mover_of(before: Mapping[str, Any] | None, events: Sequence[Json]) -> int | None:
    """Who made the move: the first event naming a player, else the player who was to move."""
    for e in events:
        p = e.get("player")
        if p in (0, 1) and e.get("type") not in ("score", "bonus", "spikes"):
            return int(p)
    if before is not None and before.get("to_move") in (0, 1):
        return int(before["to_move"])
    return None


def common_result(end: Any, winner: Any, names: tuple[str, str], events: Sequence[Json]) -> str:
    """The result of an end that is not a game's own: resign, flag, illegal, aborted."""
    if end == "aborted" or winner not in (0, 1):
        if end == "aborted":
            return "The game was aborted: no result."
        return f"The game is over{' (' + str(end) + ')' if end else ''}: a draw."
    w, loser = names[winner], names[1 - winner]
    if end == "resign":
        return f"{w} wins: {loser} resigned."
    if end == "flag":
        return f"{w} wins on time: {loser} ran out of time (R-T1)."
    if end == "illegal":
        why = next((str(e.get("message") or e.get("code")) for e in events if e.get("type") == "illegal"), "")
        return f"{w} wins: {loser} forfeited with an illegal move{': ' + why.rstrip('.') if why else ''}."
    return f"{w} wins ({end})."


def list_cells(cells: Sequence[str]) -> str:
    return and_list(list(cells))


def stones(n: int) -> str:
    return plural(n, "stone")
