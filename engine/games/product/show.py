"""Product as an umpire shows it (seed 001; RULES R-E4, R-E4a, R-E4b): either
player places stones of either colour, black counting for player 0 and white
for player 1; each player's score is their colour's two largest groups
multiplied (:func:`engine.games.product.rules.factors_of`), and a full board
is decided by the products or the variant's tie-break
(:func:`engine.games.product.rules.decide`) - worked out by the rules, said here.

State (the engine's JSON, version 1): ``board`` maps cells to colours (0
black, 1 white); ``scores`` are the products, black's first; ``stones_due``
how many stones the turn places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.product.rules import (
    DRAW,
    FEWER_STONES,
    FIRST_PLAYER,
    PRODUCTS,
    VARIANTS,
    Product,
    decide,
    factors_of,
)
from engine.hexshow import HexShow
from engine.show import Context, Handler, Json, LastMove, Line, Style, marks
from engine.words import and_list, plural, possessive, sizes

LETTERS = ("B", "W")
TIMES = "\u00d7"  # the multiplication sign, as Crystal writes its products


def with_colour(name: str, colour: str) -> str:
    """ "Ann (black)"; just "Black" when the name is the colour."""
    return name if name.lower() == colour else f"{name} ({colour})"


def times(factors: Sequence[int]) -> str:
    """ "4 TIMES 3 = 12"."""
    a, b = factors
    return f"{a} {TIMES} {b} = {a * b}"


class ProductShow(HexShow):
    title = Product.title
    default_names = ("Black", "White")
    styles = (Style("c0", "black", "dot"), Style("c1", "white", "ring"))
    symbols = ("B", "W")
    natural_end = Product.natural_ends[0]
    not_the_mover = frozenset({"score"})  # a score event names the colour's owner, not who moved

    @staticmethod
    def variant(state: Mapping[str, Any]) -> str:
        v = (state.get("options") or {}).get("variant")
        return v if v in VARIANTS else VARIANTS[0]

    @staticmethod
    def lone_group(state: Mapping[str, Any]) -> str:
        return "size" if (state.get("options") or {}).get("lone_group") == "size" else "zero"

    def _lone(self, state: Mapping[str, Any]) -> str:
        return ", a lone group counts its size" if self.lone_group(state) == "size" else ""

    def name_of(self, state: Mapping[str, Any]) -> str:
        return f"Product ({self.variant(state)}){self._lone(state)}"

    def describe(self, state: Mapping[str, Any]) -> str:
        board = f"{self.size_text(state)}{self.blocked_note(state)}"
        return f"Product ({self.variant(state)}), {board}{self._lone(state)}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return (
            f"B black stone ({possessive(names[0])} colour), W white stone ({possessive(names[1])}); either player "
            f"places either{self.off_note(state, '; ')}; lower case: the last turn's stones"
        )

    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        stones = [e for e in events if e.get("type") == "place"]
        if not stones:
            return LastMove()
        cells = [str(c) for e in stones for c in e.get("cells") or ()]
        move = " ".join(f"{LETTERS[e.get('color') == 'white']} {c}" for e in stones for c in e.get("cells") or ())
        return LastMove(mover=stones[0].get("player"), move=move, marks=marks("last", cells))

    def factors(self, state: Mapping[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
        """Each colour's two numbers multiplied, from the board's groups (R-E4, R-E4b)."""
        g0, g1 = self.board_sizes(state)
        lone = self.lone_group(state)
        return factors_of(g0, lone), factors_of(g1, lone)

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        g0, g1 = self.board_sizes(state)
        f0, f1 = self.factors(state)
        lines = [
            Line(f"{with_colour(names[0], 'black')}: groups {sizes(g0)}; product {times(f0)}", icons=(self.stone(0),)),
            Line(f"{with_colour(names[1], 'white')}: groups {sizes(g1)}; product {times(f1)}", icons=(self.stone(1),)),
        ]
        if state.get("status") != "finished":
            lines.append(Line(f"The larger product wins when the board is full; {self.tie_rule(state, names)}", "note"))
        return lines

    def tie_rule(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """What equal products give in this variant (R-E4a)."""
        variant = self.variant(state)
        if variant == "produto":
            return "equal products: fewer stones of one's colour wins, equal counts draw (R-E4a)"
        if variant == "abstractplay":
            return f"equal products: {names[0]} wins (R-E4a)"
        return "equal products: a draw (R-E4a)"

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        due = state.get("stones_due")
        due = due if due in (1, 2) else 1
        example = "B D4" if due == 1 else "B D4 W E5"
        return f"{names[p]} to move: {plural(due, 'stone')} of either colour, written {example} (R-E4a)"

    # -- the result ------------------------------------------------------------------------

    def _decided(self, state: Mapping[str, Any], end: Json | None) -> tuple[int | None, str, list[list[int]], list[int]]:
        """Winner, what decided, factors and stone counts: the end event's when
        it carries them whole, else the rules' from the board."""
        factors = end.get("factors") if end else None
        stones = end.get("stones") if end else None
        board = state.get("board") or {}
        if not (isinstance(factors, list) and len(factors) == 2 and all(isinstance(f, list) and len(f) == 2 for f in factors)):
            factors = [list(f) for f in self.factors(state)]
        if not (isinstance(stones, list) and len(stones) == 2):
            stones = [sum(1 for v in board.values() if v == c) for c in (0, 1)]
        products = [int(a) * int(b) for a, b in factors]
        winner, decided = decide(self.variant(state), products, stones)
        given = end.get("decided_by") if end else None
        if given in (PRODUCTS, FEWER_STONES, FIRST_PLAYER, DRAW):
            decided = given
        if end and "winner" in end:
            winner = end["winner"]
        return winner, decided, factors, stones

    def verdict(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        winner, decided, (f0, f1), (c0, c1) = self._decided(state, end)
        b, w = with_colour(names[0], "black"), with_colour(names[1], "white")
        if decided == PRODUCTS and winner in (0, 1):
            hi, lo = (f0, f1) if winner == 0 else (f1, f0)
            won, lost = possessive(names[winner]), possessive(names[1 - winner])
            return f"{names[winner]} wins: {won} product {times(hi)} beats {lost} {times(lo)} (R-E4)"
        same = f"the products are equal ({f0[0] * f0[1]} each)"
        if decided == FEWER_STONES and winner in (0, 1):
            mine, theirs = (c0, c1) if winner == 0 else (c1, c0)
            return (
                f"{names[winner]} wins: {same}, and {names[winner]} has fewer stones of their colour on the board "
                f"({mine} against {theirs}; R-E4a produto)"
            )
        if decided == FIRST_PLAYER:
            return f"{names[0]} wins: {same}, and equal products go to the first player (R-E4a abstractplay)"
        if self.variant(state) == "produto":
            return f"A draw: {same} and so are the stone counts ({b} {c0}, {w} {c1}; R-E4a)"
        return f"A draw: {same} (R-E4a {self.variant(state)})"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        return self.verdict(state, end, names) + "."

    # -- announcements -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {**super().handlers(), "place": self._place, "score": self._score}

    @staticmethod
    def _change(ctx: Context, e: Json) -> str:
        """ "Black's product rises to 4 TIMES 3 = 12"."""
        who = ctx.name(e.get("player"))
        to, was = e.get("to"), e.get("from")
        way = "rises" if isinstance(to, int) and isinstance(was, int) and to > was else "falls"
        factors = e.get("factors")
        value = times(factors) if isinstance(factors, list) and len(factors) == 2 else str(to)
        return f"{possessive(who)} product {way} to {value}"

    @staticmethod
    def _run(events: Sequence[Json], start: int, kind: str) -> list[Json]:
        """The events of ``kind`` in a row from ``start``."""
        out = []
        for x in events[start:]:
            if x.get("type") != kind:
                break
            out.append(x)
        return out

    def _place(self, ctx: Context, e: Json) -> list[str]:
        """The turn in one sentence, said at its first stone: its stones (the
        ``place`` events in a row) and the products they change (the ``score``
        events right after them)."""
        events, i = ctx.events, ctx.index
        if i > 0 and events[i - 1].get("type") == "place":
            return []  # said with the turn's first stone
        stones = self._run(events, i, "place")
        placed = [f"{LETTERS[x.get('color') == 'white']} {c}" for x in stones for c in x.get("cells") or ()]
        said = f"{ctx.name(e.get('player'))} places {and_list(placed)}"
        changes = [self._change(ctx, x) for x in self._run(events, i + len(stones), "score")]
        return [f"{said}: {and_list(changes)}." if changes else f"{said}."]

    def _score(self, ctx: Context, e: Json) -> list[str]:
        j = ctx.index
        while j > 0 and ctx.events[j - 1].get("type") == "score":
            j -= 1
        if j > 0 and ctx.events[j - 1].get("type") == "place":
            return []  # said with the stones that made it
        return [self._change(ctx, e) + "."]

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        return ["The board is full: the game is over (R-E4).", self.verdict(ctx.after, e, ctx.names) + "."]
