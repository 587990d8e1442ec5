"""What the built-in bots ask of Crystal Connector (engine/room.py): the greedy
bot's evaluation, and the sentence on what decided a game (RULES R-X1 to R-X6).

The evaluation: in the shift phase, the lead in the running totals after the
turn (the turn's products and spike points included, R-X3, R-X5), then the
lead in the products the grid now gives (R-X3: what the next scoring
adds); in the draft, the product of the player's colours' largest groups
against the opponent's, as far as the draft has dealt them (R-X1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import CrystalState


def _product(values: tuple[int, ...], colours: tuple[int, ...]) -> int:
    product = 1 if colours else 0
    for c in colours:
        product *= values[c]
    return product


def evaluation(state: CrystalState, player: int) -> tuple[int, int]:
    values = cg.colour_values(state.grid)
    products = _product(values, state.colors[player]) - _product(values, state.colors[1 - player])
    return state.scores[player] - state.scores[1 - player], products


def end_detail(final: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    winner = final.get("winner")
    scores = final.get("scores")
    if final.get("end") != "threshold" or winner is None or not scores:
        who = "a draw" if winner is None else f"player {winner} wins"
        return f"{final.get('end')}: {who}, scores {scores}"
    turns = final.get("turns") or []
    return (
        f"after {max(turns) if turns else '?'} rounds the totals were {scores[winner]} to {scores[1 - winner]} "
        f"(threshold {final.get('threshold')}): the higher total wins (R-X4)"
    )
