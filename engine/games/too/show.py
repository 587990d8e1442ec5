"""Too as an umpire shows it (seed 001; RULES R-E2): either player places a
stone of either colour, so the board holds colours, not owners; the score
is each colour's second-largest group (:func:`engine.games.too.rules.second_largest`),
and player 0 wins when black's is the larger.

State (the engine's JSON, version 1): ``board`` maps cells to colours (0
black, 1 white); ``scores`` are ``[black's second-largest, white's]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.too.rules import COLOURS, Too, second_largest, winner_of
from engine.hexshow import HexShow
from engine.show import Context, Handler, Json, LastMove, Line, Style, marks
from engine.words import and_list, sizes


class TooShow(HexShow):
    title = Too.title
    default_names = ("Black", "White")
    styles = (Style("c0", "black", "dot"), Style("c1", "white", "ring"))
    symbols = ("B", "W")
    natural_end = Too.natural_ends[0]

    def describe(self, state: Mapping[str, Any]) -> str:
        return f"Too, {self.size_text(state)}{self.blocked_note(state)}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return f"B black stone, W white stone (either player places either){self.off_note(state)}; lower case: the last move"

    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        for e in events:
            if e.get("type") == "place":
                cells = [str(c) for c in e.get("cells") or ()]
                letter = "B" if e.get("color") == "black" else "W"
                return LastMove(mover=e.get("player"), move=f"{letter} {' '.join(cells)}", marks=marks("last", cells))
        return LastMove()

    def seconds(self, state: Mapping[str, Any]) -> tuple[int, int]:
        raw = state.get("scores")
        if isinstance(raw, list) and len(raw) == 2 and all(isinstance(x, int) for x in raw):
            return int(raw[0]), int(raw[1])
        g0, g1 = self.board_sizes(state)
        return second_largest(g0), second_largest(g1)

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        g0, g1 = self.board_sizes(state)
        b2, w2 = self.seconds(state)
        lines = [
            Line(f"black stones: groups {sizes(g0)}; second-largest {b2}", icons=(self.stone(0),)),
            Line(f"white stones: groups {sizes(g1)}; second-largest {w2}", icons=(self.stone(1),)),
        ]
        if state.get("status") != "finished":
            rule = f"{names[0]} wins if black's second-largest group ends larger than white's, else {names[1]} (R-E2)"
            lines.append(Line(rule, "note"))
        return lines

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        return f"{names[p]} to move: one stone of either colour, written B D4 or W D4 (R-E2)"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        b2, w2 = self._second_of(end, state)
        return f"{self._verdict(b2, w2, names, state.get('winner'))} (R-E2)."

    def _second_of(self, end: Json | None, state: Mapping[str, Any]) -> tuple[int, int]:
        raw = end.get("second") if end else None
        if isinstance(raw, list) and len(raw) == 2:
            return int(raw[0]), int(raw[1])
        return self.seconds(state)

    @staticmethod
    def _verdict(b2: int, w2: int, names: tuple[str, str], winner: Any) -> str:
        if winner not in (0, 1):
            winner = winner_of(b2, w2)
        if winner == 0:
            return f"{names[0]} wins: the board is full and black's second-largest group ({b2}) is larger than white's ({w2})"
        return f"{names[1]} wins: the board is full and black's second-largest group ({b2}) is not larger than white's ({w2})"

    # -- announcements -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {**super().handlers(), "place": self._place}

    def _place(self, ctx: Context, e: Json) -> list[str]:
        colour = e.get("color") if e.get("color") in COLOURS else "a"
        cells = [str(c) for c in e.get("cells") or ()]
        return [f"{ctx.name(e.get('player'))} places a {colour} stone on {and_list(cells)}."]

    def after_move(self, ctx: Context) -> list[str]:
        if not any(e.get("type") == "place" for e in ctx.events):
            return []
        b2, w2 = self.seconds(ctx.after)
        return [f"Second-largest groups: black {b2}, white {w2}."]

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        b2, w2 = self._second_of(e, ctx.after)
        return ["The board is full: the game is over (R-E2).", self._verdict(b2, w2, ctx.names, e.get("winner")) + "."]
