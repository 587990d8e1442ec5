"""What the built-in bots ask of Crystal Connector (engine/room.py): the greedy
bot's evaluation, and the sentence on what decided a game (RULES R-X1 to R-X6).

The evaluation: in the shift phase, the lead in the running totals after the
turn (the turn's products and spike points included, R-X3, R-X5), then the
lead in the products the grid now gives (R-X3: what the next scoring
adds); in the draft, the product of the player's colours' largest groups
against the opponent's, as far as the draft has dealt them (R-X1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.games.crystal import grid as cg
from engine.games.crystal.rules import Crystal, CrystalState, threshold
from engine.room import Guide


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


# -- the strong bot's guide (engine/room.py Guide; umpire/bots/strong.py) ------------------------

GAME = Crystal()
# each single shift's text -> (file, direction, amount), and the text of the same rotation with the smaller amount
_SHIFT_OF = {cg.shift_text(f, s, a): (f, s, a) for f in range(12) for s in (-1, 1) for a in range(1, 6)}
_SAME_AS = {
    text: cg.shift_text(f, -s, cg.SIZE - a)
    for text, (f, s, a) in _SHIFT_OF.items()
    if cg.SIZE - a < a or (2 * a == cg.SIZE and s > 0)
}


def _lead(values: tuple[int, ...], colours: tuple[tuple[int, ...], tuple[int, ...]], player: int) -> int:
    return _product(values, colours[player]) - _product(values, colours[1 - player])


def value(state: CrystalState) -> float:
    """Player 0's chances.  In the shift phase: the lead in the totals (R-X3),
    weighing more as they near the threshold (R-X4), the lead in the products
    the grid gives now, and whether the player to move ends the round (R-X4
    looks only then); a logistic fit of those to the results of 300 games of
    ``greedy`` against itself (15% of moves random).  In the draft: the
    products of the colours known so far (R-X1)."""
    p = state.to_move
    assert p is not None
    values = cg.colour_values(state.grid)
    if state.phase != "shift":
        z = 0.027 * _lead(values, state.colors, 0)
        return 1.0 / (1.0 + math.exp(-z))
    lead = state.scores[p] - state.scores[1 - p]
    progress = max(state.scores) / threshold(state.anomalies)
    last = 1.0 if p != state.first else 0.0
    z = 0.19 + lead * (0.019 + 0.037 * progress) + 0.027 * _lead(values, state.colors, p) + 0.73 * last
    chance = 1.0 / (1.0 + math.exp(-z))
    return chance if p == 0 else 1.0 - chance


def priors(state: CrystalState, prefix: Sequence[str], steps: Sequence[str]) -> list[float]:
    """A shift (or conversion, R-X5) is likelier the more the product lead of
    the player to move on the grid it leaves (R-X3), less the spike points it
    hands over (R-X5); of two shifts that turn a file alike (``C up 1``,
    ``C down 5``) the longer is all but never tried.  Draft words: a colour by
    the size of its largest group (R-X1)."""
    p = state.to_move
    assert p is not None
    if state.phase != "shift":
        values = cg.colour_values(state.grid)
        return [values[cg.COLOUR_INDEX[s]] / 3 if s in cg.COLOUR_INDEX else 0.0 for s in steps]
    grid = state.grid if not prefix else GAME.preview(state, prefix).grid  # type: ignore[union-attr]
    mine, theirs = state.colors[p], state.colors[1 - p]
    spikes = grid[cg.SPIKES]
    present = set(steps)
    out = []
    for s in steps:
        shift = _SHIFT_OF.get(s)
        if shift is None:  # convert CELL
            after = _converted(grid, mine, cg.CELL_INDEX[s.split()[1].upper()])
            handed = 0
        else:
            f, sign, amount = shift
            if _SAME_AS.get(s) in present:
                out.append(-8.0)
                continue
            after = cg.shift(grid, f, sign, amount)
            handed = (spikes & cg.FILE[f]).bit_count() * amount
        values = cg.colour_values(after)
        out.append((_product(values, mine) - _product(values, theirs) - handed) / 6)
    return out


def _converted(grid: tuple[int, ...], mine: tuple[int, ...], cell: int) -> tuple[int, ...]:
    a, b = mine
    bit = 1 << cell
    src, dst = (a, b) if grid[a] & bit else (b, a)
    masks = list(grid)
    masks[src] &= ~bit
    masks[dst] |= bit
    return tuple(masks)


GUIDE = Guide(value, priors)
