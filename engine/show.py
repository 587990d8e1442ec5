"""What a game declares to show a position: the picture as data, and the
sentences an umpire says (AbstractPlay's ``render()`` and ``chat()``, shaped
as this code needs them).

A game's folder holds a subclass of :class:`Show` (``engine/games/<name>/show.py``)
and puts one in its :class:`~engine.room.Room`.  From a state's JSON and the
events of the move that reached it, the show answers:

* :meth:`Show.picture` - a :class:`Picture`: the board's shape and its off
  cells, the pieces (a :class:`Glyph` from the small set every renderer
  knows, and the diagram's one-character symbol), generic marks of the last
  move (cells marked ``last``, ``bonus``, ``eaten``; shifted files with
  arrows), the lines under the board (title, scores, turn or result, notes,
  with icons) and the legend of the diagram;
* :meth:`Show.announce` - the announcements, one handler per event type
  (:meth:`Show.handlers`), the ends every game shares included.

``views`` turns any picture into SVG, PNG or text and never names a game.
Pure data and words: nothing here draws, and nothing imports ``views``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from engine.game import COMMON_ENDS
from engine.words import possessive

Json = dict[str, Any]

# -- the picture as data ------------------------------------------------------------------------

BOARD_KINDS = ("hexhex", "green-meadow", "grid")

# The glyphs every renderer draws: a stone (with a dot or a ring), a gem
# (a diamond with its letter, spiked or not: a crystal), a colour swatch (for
# panel icons), the anomaly pieces, and plain text.
GLYPHS = ("stone", "gem", "swatch", "bomb", "chameleon", "pylon", "rock", "text")
CRYSTAL_STYLES = ("R", "B", "G", "Y")  # the four crystal colours a renderer knows
STONE_MARKS = ("dot", "ring")
CELL_MARKS = ("last", "bonus", "eaten")
LINE_KINDS = ("title", "line", "last", "turn", "result", "note")


@dataclass(frozen=True)
class BoardShape:
    """The board of a position: a hexhex board of ``side`` (R-H1), the Green
    Meadow board (R-H4), or a grid of ``columns`` x ``rows`` (R-H5: columns
    lettered from A, rows numbered from 1 at the top).  ``off`` names every
    cell drawn but not played on (black or blocked), in reading order."""

    kind: str
    side: int = 0
    columns: int = 0
    rows: int = 0
    off: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in BOARD_KINDS:
            raise ValueError(f"A board is one of {', '.join(BOARD_KINDS)}, not {self.kind!r}.")


@dataclass(frozen=True)
class Style:
    """A piece style: its CSS class, the palette role that colours it (``red``,
    ``blue``, ``black``, ``white``) and the mark that sets its stones apart
    without hue (``dot`` or ``ring``)."""

    name: str
    role: str
    mark: str


@dataclass(frozen=True)
class Glyph:
    """What is drawn for a piece (or as a panel icon): ``kind`` from
    :data:`GLYPHS`; ``style`` a :class:`Style`'s name for stones, a crystal
    colour letter (:data:`CRYSTAL_STYLES`) for crystals and swatches; ``mark``
    ``dot``/``ring`` on a stone, ``spikes`` on a crystal; ``text`` the letter
    or sign drawn on it."""

    kind: str
    style: str = ""
    mark: str = ""
    text: str = ""


@dataclass(frozen=True)
class Piece:
    """A piece on ``cell``: its glyph, and its one character in the text diagram."""

    cell: str
    glyph: Glyph
    symbol: str


@dataclass(frozen=True)
class CellMark:
    """A cell the last move touched: ``last`` (placed, grown, blackened,
    converted), ``bonus`` (a bonus growth) or ``eaten``."""

    cell: str
    kind: str


@dataclass(frozen=True)
class FileMark:
    """A row or column the last move shifted (a column letter or a row number), with its arrows ("↑2 ↓1")."""

    file: str
    arrows: str


@dataclass(frozen=True)
class Line:
    """One line under the board (and of the text diagram's footer).

    ``kind`` from :data:`LINE_KINDS`; ``icons``: small glyphs drawn before the
    text in the picture, left out of the text form."""

    text: str
    kind: str = "line"
    icons: tuple[Glyph, ...] = field(default=())


@dataclass(frozen=True)
class LastMove:
    """What the last move did, read from its events: who moved, the move as
    notation, the cells it marked and the files it shifted."""

    mover: int | None = None
    move: str | None = None
    marks: tuple[CellMark, ...] = ()
    files: tuple[FileMark, ...] = ()

    def cells(self, *kinds: str) -> frozenset[str]:
        """The marked cells of these kinds."""
        return frozenset(m.cell for m in self.marks if m.kind in kinds)


@dataclass(frozen=True)
class Picture:
    """Everything a renderer needs for one position.

    ``lines`` run from the title to the turn (or result); a renderer adds the
    clock after them, then ``notes`` (a legend of special pieces).  ``barred``
    are row or column labels drawn struck out (files the player to move may
    not shift).  ``said``: the last move as a clause naming its mover ("Ann
    plays D7 F8"), empty when no move led here; ``name``: the game as a
    heading names it, variant and rule options included."""

    board: BoardShape
    pieces: tuple[Piece, ...]
    last: LastMove
    lines: tuple[Line, ...]
    notes: tuple[Line, ...]
    legend: str
    barred: tuple[str, ...] = ()
    said: str = ""
    name: str = ""

    @property
    def title(self) -> str:
        return self.lines[0].text if self.lines else ""


def marks(kind: str, cells: Sequence[str]) -> tuple[CellMark, ...]:
    return tuple(CellMark(c, kind) for c in cells)


# -- the sentences ------------------------------------------------------------------------------


@dataclass
class Context:
    """What a sentence may need besides its event: the states around the
    move, the players' names, and the other events of the same move."""

    before: Json | None
    after: Json
    names: tuple[str, str]
    events: Sequence[Json]
    index: int = 0

    def name(self, player: Any) -> str:
        return self.names[player] if player in (0, 1) else f"player {player}"

    def other(self, player: Any) -> str:
        return self.name(1 - player if player in (0, 1) else None)


Handler = Callable[[Context, Json], list[str]]
NO_SENTENCE = "(The umpire has no sentence for the event {kind!r}.)"


def common_result(end: Any, winner: Any, names: tuple[str, str], events: Sequence[Json]) -> str:
    """The result of an end every game shares (:data:`engine.game.COMMON_ENDS`)."""
    if end == "aborted" or winner not in (0, 1):
        if end == "aborted":
            return "The game was aborted: no result."
        if end == "adjudicated":
            return "The umpire adjudicated the game a draw."
        return f"The game is over{' (' + str(end) + ')' if end else ''}: a draw."
    w, loser = names[winner], names[1 - winner]
    if end == "adjudicated":
        return f"{w} wins by the umpire's decision."
    if end == "resign":
        return f"{w} wins: {loser} resigned."
    if end == "flag":
        return f"{w} wins on time: {loser} ran out of time (R-T1)."
    if end == "illegal":
        why = next((str(e.get("message") or e.get("code")) for e in events if e.get("type") == "illegal"), "")
        return f"{w} wins: {loser} forfeited with an illegal move{': ' + why.rstrip('.') if why else ''}."
    return f"{w} wins ({end})."


class Show(ABC):
    """One game's picture and sentences, read from the state's JSON and the
    events of a move (engine ``dump`` and ``play``)."""

    title: ClassVar[str]
    default_names: ClassVar[tuple[str, str]]
    styles: ClassVar[tuple[Style, ...]] = ()  # the stone styles, first player's first
    natural_end: ClassVar[str]  # the game's own end ("full", "stuck", "threshold")
    extra_width: ClassVar[float] = 0.0  # room the panel's lines need beyond a renderer's least width
    not_the_mover: ClassVar[frozenset[str]] = frozenset()  # events whose player is not who moved
    # The state's fields the diagram draws; a post carries the others on its [State ...] line (views/diagram.py).
    drawn: ClassVar[tuple[str, ...]] = ("board",)

    # -- the board ----------------------------------------------------------------------------

    @abstractmethod
    def shape(self, options: Mapping[str, Any], blocked: Sequence[str] = ()) -> BoardShape:
        """The board of ``options`` (a state's or a client's), less ``blocked``
        cells; ValueError naming what is wrong with them."""

    def state_shape(self, state: Mapping[str, Any]) -> BoardShape:
        return self.shape(state.get("options") or {}, state.get("blocked") or ())

    @abstractmethod
    def pieces(self, state: Mapping[str, Any], last: LastMove) -> tuple[Piece, ...]:
        """Every piece on the board (the diagram's symbols may show the last move)."""

    @abstractmethod
    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        """What the last move did, from its events."""

    @abstractmethod
    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """One line saying what the diagram's symbols are."""

    def barred(self, state: Mapping[str, Any]) -> tuple[str, ...]:
        """Labels to strike out (files the player to move may not use)."""
        return ()

    def read_grid(self, rows: Sequence[Sequence[str]]) -> Json | None:
        """A grid's :attr:`drawn` fields read back from its diagram's symbols, row by row
        (:meth:`pieces` the other way): ValueError naming a symbol that is no piece; None
        for a game whose diagram is no grid, or cannot be read."""
        return None

    # -- the lines under the board ------------------------------------------------------------

    def name_of(self, state: Mapping[str, Any]) -> str:
        """The game as a post's heading names it: the title with the variant and
        the options that change its rules ("Bug (green-meadow)", "Crystal
        Connector (rocks, spikes)"), the start of :meth:`describe`."""
        return self.title

    @abstractmethod
    def describe(self, state: Mapping[str, Any]) -> str:
        """The picture's title: :meth:`name_of`, the board, the ply."""

    def said(self, last: LastMove, events: Sequence[Json], names: tuple[str, str]) -> str:
        """The last move as a clause naming its mover, in the rules' words (a post's heading):
        "Ann plays D7 F8"; empty when no move led here."""
        if last.move is None or last.mover not in (0, 1):
            return ""
        return f"{names[last.mover]} plays {last.move}"

    def last_line(self, last: LastMove, events: Sequence[Json], names: tuple[str, str]) -> str:
        """The line under the board that says the last move: "Last move (Ann): D7 F8"."""
        return f"Last move ({names[last.mover] if last.mover in (0, 1) else '?'}): {last.move}"

    @abstractmethod
    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        """Scores as the game reports them."""

    @abstractmethod
    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """Whose turn it is and what they may do."""

    @abstractmethod
    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        """Winner and why, for the game's own end (``natural_end``)."""

    def mark_notes(self, last: LastMove) -> list[Line]:
        """Lines explaining the last move's marks beyond the highlighted cells."""
        return []

    def extra_notes(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        """Lines after the clock (a legend of special pieces)."""
        return []

    def picture(self, state: Mapping[str, Any], events: Sequence[Json], names: tuple[str, str]) -> Picture:
        """The position as data, for any renderer."""
        last = self.last_move(events, state)
        lines = [Line(self.describe(state), "title")]
        if last.move is not None and last.mover is not None:
            lines.append(Line(self.last_line(last, events, names), "last"))
            lines += self.mark_notes(last)
        lines += self.scores(state, names)
        if state.get("status") == "finished":
            lines.append(Line(self.result(state, events, names), "result"))
        else:
            lines.append(Line(self.turn(state, names), "turn"))
        return Picture(
            board=self.state_shape(state),
            pieces=self.pieces(state, last),
            last=last,
            lines=tuple(lines),
            notes=tuple(self.extra_notes(state, names)),
            legend=self.legend(state, names),
            barred=self.barred(state),
            said=self.said(last, events, names),
            name=self.name_of(state),
        )

    def result(self, state: Mapping[str, Any], events: Sequence[Json], names: tuple[str, str]) -> str:
        """The result line of a finished game: the winner and why."""
        end = state.get("end")
        end_event = next((e for e in reversed(events) if e.get("type") == "end"), None)
        if end in COMMON_ENDS or end is None:
            return common_result(end, state.get("winner"), names, events)
        return self.natural_result(state, end_event, names)

    # -- announcements ------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        """Event type -> the sentences announcing it; games add theirs to these."""
        return {
            "resign": self._resign, "flag": self._flag, "illegal": self._illegal, "end": self._end,
            "adjudicate": self._adjudicate, "umpire": self._umpire, "takeback": self._takeback,
        }  # fmt: skip

    @cached_property
    def handler_table(self) -> dict[str, Handler]:
        """:meth:`handlers`, made once per show: a show holds no state, so its table never changes
        (issue 20: making it again for every announcement was a third of announcing a Catchup move)."""
        return self.handlers()

    @property
    def event_types(self) -> frozenset[str]:
        return frozenset(self.handler_table)

    def announce(self, before: Json | None, events: Sequence[Json], after: Json, names: tuple[str, str]) -> list[str]:
        """One sentence per thing announced about one move; the end is said last."""
        ctx = Context(before, after, names, events)
        table = self.handler_table
        out: list[str] = []
        ending: list[str] = []
        for i, e in enumerate(events):
            ctx.index = i
            kind = e.get("type")
            handler = table.get(kind) if isinstance(kind, str) else None
            if handler is None:
                out.append(NO_SENTENCE.format(kind=kind))
                continue
            (ending if kind == "end" else out).extend(handler(ctx, e))
        out.extend(self.after_move(ctx))
        out.extend(ending)
        return out

    def mover(self, before: Mapping[str, Any] | None, events: Sequence[Json]) -> int | None:
        """Who made the move: the first event naming its mover, else the player who was to move."""
        for e in events:
            p = e.get("player")
            if p in (0, 1) and e.get("type") not in self.not_the_mover:
                return int(p)
        if before is not None and before.get("to_move") in (0, 1):
            return int(before["to_move"])
        return None

    def after_move(self, ctx: Context) -> list[str]:
        """Sentences that follow a whole move (who moves next, with what)."""
        return []

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        return [common_result(e.get("end"), e.get("winner"), ctx.names, ctx.events)]

    def _resign(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} resigns."]

    def _flag(self, ctx: Context, e: Json) -> list[str]:
        return [f"{ctx.name(e.get('player'))} has run out of time: turn and bank are spent (R-T1)."]

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

    def _adjudicate(self, ctx: Context, e: Json) -> list[str]:
        winner = e.get("winner")
        decided = f"{ctx.name(winner)} wins" if winner in (0, 1) else "a draw"
        reason = str(e.get("reason") or "").strip()
        return [f"The umpire adjudicated: {decided}{' (' + reason.rstrip('.') + ')' if reason else ''}."]

    def _umpire(self, ctx: Context, e: Json) -> list[str]:
        """An umpire's control over a live match's clocks, seats or umpires (service/matches: start,
        pause with its reason, resume, add_time, token, add_umpire, remove_umpire); the game does not change."""
        action, seat = e.get("action"), e.get("seat")
        if action == "add_time":
            return [f"The umpire gave {ctx.name(seat)} {float(e.get('seconds') or 0):g} s."]
        if action == "token" and e.get("to"):  # the seat handed to another player (service/matches: with a new token)
            before = e.get("from") or f"player {seat}"
            return [f"The umpire handed {possessive(str(before))} seat to {e['to']}, who plays it from now on."]
        if action == "token":
            return [f"The umpire issued a new token for {possessive(ctx.name(seat))} seat: the old one no longer works."]
        if action == "add_umpire":
            return [f"The umpire made co-umpire link {e.get('link')}: it has the umpire's controls."]
        if action == "remove_umpire":
            return [f"The umpire withdrew co-umpire link {e.get('link')}: it no longer works."]
        said = {"start": "started", "pause": "paused", "resume": "resumed"}.get(str(action))
        if said is None:
            return [NO_SENTENCE.format(kind=f"umpire {action}")]
        reason = str(e.get("reason") or "").strip()  # a pause's reason (issue 35), said as the umpire gave it
        return [f"The umpire {said} the clocks{': ' + reason.rstrip('.') if reason else ''}."]

    def _takeback(self, ctx: Context, e: Json) -> list[str]:
        """The umpire took back the last move (a slip of the hand): the game is back where it was played from."""
        who = ctx.name(e.get("player"))
        move = str(e.get("move") or "").strip()
        return [f"The umpire took back {possessive(who)} move{' ' + move if move else ''}: {who} is to move again."]

    def _end(self, ctx: Context, e: Json) -> list[str]:
        end = e.get("end", self.natural_end)
        if end in COMMON_ENDS:
            return [common_result(end, e.get("winner"), ctx.names, ctx.events)]
        return self.natural_end_sentences(ctx, e)
