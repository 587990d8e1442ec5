"""How a board may fill, estimated fast: shared by the games' guides for the
``strong`` bot (engine/room.py ``Guide``; each game's ``bot.py``).

A game that ends when its board is full (Catchup, Plur, Too, Product) is
decided by the groups of the full board, so a guide may judge a position by
boards it could fill to:

* :func:`nearest`: each empty cell to the side whose stones it is nearer to
  (rings grown from both sides at once; a cell both reach at once is left
  empty): the board as each side would fill its own surroundings;
* :func:`scatter`: the empty cells split at random (a random game's end,
  when the order of the stones does not matter: only the full board does).

Pure functions of bit sets (engine/hexboard.py); a random split is drawn from
the generator given, which a guide seeds from the position, so that a value
is the same every time it is asked.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.hexboard import HexBoard


def nearest(board: HexBoard, a: int, b: int, empty: int) -> tuple[int, int]:
    """``a`` and ``b`` (two sides' stones) each grown over the empty cells
    nearer to it than to the other (``empty`` the cells to share)."""
    free = empty
    while free:
        ga = board.dilate(a) & free
        gb = board.dilate(b) & free
        if not (ga | gb):
            break
        both = ga & gb
        a |= ga & ~both
        b |= gb & ~both
        free &= ~(ga | gb)
    return a, b


def scatter(cells: Sequence[int], rng: random.Random, ones: int | None = None) -> tuple[int, int]:
    """``cells`` (bit indices) split at random into two bit sets: each cell to
    either side with even odds, or, given ``ones``, exactly that many to the
    first (a random subset)."""
    first = second = 0
    if ones is None:
        r = rng.getrandbits(len(cells)) if cells else 0
        for i, b in enumerate(cells):
            if r >> i & 1:
                first |= 1 << b
            else:
                second |= 1 << b
        return first, second
    chosen = set(rng.sample(range(len(cells)), ones))
    for i, b in enumerate(cells):
        if i in chosen:
            first |= 1 << b
        else:
            second |= 1 << b
    return first, second
