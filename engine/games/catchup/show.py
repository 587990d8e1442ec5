"""Catchup as an umpire shows it (seeds 000, 001, 004; RULES R-C1 to R-C5):
the board with the last turn's stones marked, both scores and both players'
group sizes (the R-C4 tie-break reads them), who may place how many stones
next (R-C3), and the result with the group that decided it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.catchup.rules import Catchup, tie_break
from engine.hexshow import HexShow
from engine.show import Context, Handler, Json, LastMove, Line, Style
from engine.words import and_list, number, ordinal, plural, possessive, sizes


def explain_tie_break(a: Sequence[int], b: Sequence[int], names: tuple[str, str], rank: int | None = None) -> str:
    """Why ``a`` (player 0's sizes) and ``b`` (player 1's) give the result the
    engine's R-C4 tie-break gives: "Red's 11-8-8-3 beats Blue's 11-8-7-4-1 at
    the third group (8 against 7)".  ``rank`` is the end event's ``decided_at``
    when it has one."""
    sign, found = tie_break(list(a), list(b))
    if rank is None or rank < 1:
        rank = found or 0
    if sign == 0:
        return f"{possessive(names[0])} groups {sizes(a)} and {possessive(names[1])} {sizes(b)} are equal all the way"
    w, l_ = (0, 1) if sign > 0 else (1, 0)
    mine, theirs = (a, b) if w == 0 else (b, a)
    x = mine[rank - 1] if rank <= len(mine) else 0
    y = theirs[rank - 1] if rank <= len(theirs) else 0
    y_text = str(y) if rank <= len(theirs) else f"0: {names[l_]} has no {ordinal(rank)} group"
    head = f"{possessive(names[w])} groups {sizes(mine)} beat {possessive(names[l_])} {sizes(theirs)}"
    if rank == 1:
        return f"{head} on the largest group ({x} against {y_text})"
    return f"{head} at the {ordinal(rank)} group ({x} against {y_text})"


class CatchupShow(HexShow):
    title = Catchup.title
    default_names = ("Red", "Blue")
    styles = (Style("p0", "red", "dot"), Style("p1", "blue", "ring"))
    natural_end = Catchup.natural_ends[0]
    not_the_mover = frozenset({"score", "bonus"})
    default_size = 5
    min_size = 3

    def name_of(self, state: Mapping[str, Any]) -> str:
        return f"Catchup ({(state.get('options') or {}).get('variant', 'standard')})"

    def describe(self, state: Mapping[str, Any]) -> str:
        return f"{self.name_of(state)}, {self.size_text(state)}{self.blocked_note(state)}, ply {state.get('ply', 0)}"

    def legend(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        return f"X {names[0]}, O {names[1]}{self.off_note(state)}; lower case: the last turn's stones"

    def last_move(self, events: Sequence[Json], state: Mapping[str, Any]) -> LastMove:
        return self.placed(events)

    def scores(self, state: Mapping[str, Any], names: tuple[str, str]) -> list[Line]:
        score = state.get("scores") or [1, 1]
        g0, g1 = self.board_sizes(state)
        lines = [
            Line(f"{names[0]}: score {score[0]}, groups {sizes(g0)}", icons=(self.stone(0),)),
            Line(f"{names[1]}: score {score[1]}, groups {sizes(g1)}", icons=(self.stone(1),)),
        ]
        if state.get("status") != "finished" and (g0 or g1):
            sign, rank = tie_break(g0, g1)
            if sign and rank:
                lead = names[0] if sign > 0 else names[1]
                lines.append(Line(f"Tie-break if the game ended now (R-C4): {lead} ahead at the {ordinal(rank)} group", "note"))
        return lines

    def turn(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        p = state.get("to_move")
        if p not in (0, 1):
            return "Nobody is to move."
        return f"{names[p]} to move: {self.allowance(state, names)}"

    def allowance(self, state: Mapping[str, Any], names: tuple[str, str]) -> str:
        """What the player to move may place (R-C1, R-C3), in words."""
        p = state.get("to_move")
        most = int(state.get("max_stones") or 0)
        variant = (state.get("options") or {}).get("variant", "standard")
        if not state.get("board"):
            return "the opening stone, exactly 1 (R-C1)"
        if state.get("bonus") and p in (0, 1):
            why = "made the largest group" if variant == "mindsports" else "led"
            extra = "" if most == 3 else f" ({plural(most, 'cell')} left)"
            return f"up to 3 stones, since {names[1 - p]} {why} last turn (R-C3){extra}"
        if variant == "bolanos":
            return "1 stone, or 2 that leave the largest group on the board the same size (R-C3)"
        if most == 1:
            return "1 stone (one cell left)"
        return "1 or 2 stones"

    def natural_result(self, state: Mapping[str, Any], end: Json | None, names: tuple[str, str]) -> str:
        g0, g1 = self._end_groups(state, end)
        rank = end.get("decided_at") if end else None
        why = explain_tie_break(g0, g1, names, rank if isinstance(rank, int) else None)
        winner = state.get("winner")
        if winner in (0, 1):
            return f"{names[winner]} wins: the board is full and {why} (R-C4)."
        return f"The board is full: a draw, {why} (R-C4)."

    def _end_groups(self, state: Mapping[str, Any], end: Json | None) -> tuple[list[int], list[int]]:
        groups = end.get("groups") if end else None
        if isinstance(groups, list) and len(groups) == 2:
            return [int(x) for x in groups[0]], [int(x) for x in groups[1]]
        return self.board_sizes(state)

    # -- announcements -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {**super().handlers(), "place": self._place, "score": self._score, "bonus": self._bonus}

    def _place(self, ctx: Context, e: Json) -> list[str]:
        who = ctx.name(e.get("player"))
        cells = [str(c) for c in e.get("cells") or ()]
        out = [f"{who} places {and_list(cells)}."]
        before = ctx.before
        allowed = int(before.get("max_stones") or 0) if before is not None and before.get("bonus") else 0
        if allowed > len(cells):  # 3, or fewer when fewer cells are left
            out.append(f"{who} placed {plural(len(cells), 'stone')} of the {allowed} allowed: the bonus lapses unused (R-C3).")
        return out

    def _score(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        who = ctx.name(p)
        rise = f"{possessive(who)} score rises from {e.get('from')} to {e.get('to')}"
        bonus_follows = any(x.get("type") == "bonus" for x in ctx.events)
        variant = (ctx.after.get("options") or {}).get("variant", "standard")
        if bonus_follows or variant != "standard" or p not in (0, 1) or ctx.after.get("status") == "finished":
            return [rise + "."]
        theirs = (ctx.after.get("scores") or [0, 0])[1 - p]
        return [f"{rise}, but stays below {possessive(ctx.name(1 - p))} {theirs}, so {who} is not leading (R-C3)."]

    def _bonus(self, ctx: Context, e: Json) -> list[str]:
        p = e.get("player")
        who, other = ctx.name(p), ctx.other(p)
        most = e.get("max_stones", 3)
        # three, or as many cells as are left (R-C3 with R-C4: the board fills)
        up_to = f"up to {number(most)} stone{'' if most == 1 else 's'}" if isinstance(most, int) else "up to three stones"
        variant = (ctx.after.get("options") or {}).get("variant", "standard")
        if variant == "mindsports":
            why = f"{other} made a group larger than any on the board at the start of the turn"
        else:
            scores = ctx.after.get("scores") or [0, 0]
            mover = 1 - p if p in (0, 1) else 0
            why = f"{other} is leading ({scores[mover]} against {possessive(who)} {scores[1 - mover]})"
        return [f"{why}, so {who} may place {up_to} next turn (R-C3)."]

    def after_move(self, ctx: Context) -> list[str]:
        after = ctx.after
        kinds = {e.get("type") for e in ctx.events}
        if after.get("status") == "finished" or "bonus" in kinds or "end" in kinds or "place" not in kinds:
            return []
        p = after.get("to_move")
        if p not in (0, 1):
            return []
        return [f"{ctx.name(p)} may place {self.allowance(after, ctx.names)} next turn."]

    def natural_end_sentences(self, ctx: Context, e: Json) -> list[str]:
        g0, g1 = self._end_groups(ctx.after, e)
        rank = e.get("decided_at")
        why = explain_tie_break(g0, g1, ctx.names, rank if isinstance(rank, int) else None)
        winner = e.get("winner")
        out = ["The board is full: the game is over (R-C4)."]
        if winner in (0, 1):
            out.append(f"{ctx.name(winner)} wins: {why}.")
        else:
            out.append(f"It is a draw: {why}.")
        return out
