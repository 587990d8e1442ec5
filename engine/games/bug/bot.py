"""What the built-in bots ask of Bug (engine/room.py): the greedy bot's
evaluation, and the sentence on what decided a game (RULES R-B1 to R-B8).

The evaluation, in order: the opponent's pieces fewest (what its eats took,
R-B4), its own largest bug largest (R-B7), then itself left with fewest
legal grows and the opponent with most (the player who cannot grow wins,
R-B6).  A move that leaves the opponent unable to grow hands them the game:
the greedy bot ranks that finished position last by its result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.bug.rules import BugState, grow_sets


def grows(state: BugState, player: int) -> int:
    """How many cells ``player`` could grow on in ``state`` (R-B3)."""
    largest = max(state.largest(0), state.largest(1))
    return grow_sets(state.board, state.bugs[player], largest, state.empty)[0].bit_count()


def evaluation(state: BugState, player: int) -> tuple[int, int, int]:
    opp = 1 - player
    return -state.stones[opp].bit_count(), state.largest(player), grows(state, opp) - grows(state, player)


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    winner = final.get("winner")
    if final.get("end") != "stuck" or winner is None:
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"{final.get('end')}: {who}, scores {final.get('scores')}"
    return (
        f"player {winner} was to move and could not grow, so player {winner} wins (R-B6); "
        f"pieces on the board {final.get('scores')}, largest bugs {final.get('largest')}"
    )
