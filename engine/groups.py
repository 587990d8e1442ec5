"""Connected groups on hex boards, as bit sets (shared by the hex games).

A group is grown from one stone by repeated dilation (six shifts and a mask)
until it stops changing; each pass adds a whole ring, so the cost is the
group's diameter in big-int operations, not its size in Python steps.
"""

from __future__ import annotations

from engine.hexboard import HexBoard


def _grow(w: int, grp: int, stones: int) -> int:
    """Dilate ``grp`` inside ``stones`` (board stride ``w``) until it stops changing: the maximal group around it.

    The shifts are written out rather than calling :meth:`HexBoard.dilate`, which
    would add a call and a mask per ring; this one call per group costs the
    functions below 1-4%, nothing measurable in ``python -m bench catchup|bug``."""
    while True:
        nxt = (grp | (grp << 1) | (grp >> 1) | (grp << w) | (grp >> w) | (grp >> (w - 1)) | (grp << (w - 1))) & stones
        if nxt == grp:
            return grp
        grp = nxt


def group_of(board: HexBoard, stones: int, bit: int) -> int:
    """The maximal group of ``stones`` containing ``bit`` (which must be in it)."""
    return _grow(board.width, 1 << bit, stones)


def groups(board: HexBoard, stones: int) -> list[int]:
    """Every maximal group of ``stones``, each a bit set, in order of lowest bit.

    Each group is grown from its lowest stone and the stones that touch it, read from the board's
    neighbour table; a stone touching none is a group by itself, without a dilation (issue 20: most
    groups of a position in play are one or two stones, and every ``load`` finds them all).  The
    table knows playing cells only, so a set with any other bit is grown by dilation alone."""
    out = []
    w = board.width
    rest = stones
    if stones & ~board.mask:
        while rest:
            grp = _grow(w, rest & -rest, stones)
            out.append(grp)
            rest &= ~grp
        return out
    nbrs = board.neighbours
    while rest:
        low = rest & -rest
        touch = nbrs[low.bit_length() - 1] & stones
        grp = _grow(w, low | touch, stones) if touch else low
        out.append(grp)
        rest &= ~grp
    return out


def group_sizes(board: HexBoard, stones: int) -> list[int]:
    """Sizes of every group of ``stones``, largest first (R-C4's comparison list)."""
    return sorted((g.bit_count() for g in groups(board, stones)), reverse=True)


def largest_group(board: HexBoard, stones: int) -> int:
    """Size of the largest group of ``stones`` (0 when there are none)."""
    best = 0
    w = board.width
    rest = stones
    while rest:
        if rest.bit_count() <= best:
            break  # nothing left could beat it
        grp = _grow(w, rest & -rest, stones)
        size = grp.bit_count()
        if size > best:
            best = size
        rest &= ~grp
    return best


def place(groups: tuple[int, ...], touch: int, bit: int) -> tuple[int, ...]:
    """``groups`` (one colour's, each a bit set) after a stone at ``bit`` that
    touches the stones ``touch`` of that colour: the groups it touches merge
    with it into the last group of the result, the others stay as they are.
    Only those groups are looked at, so a stone never re-floods the board."""
    if not touch:
        return (*groups, bit)
    merged = bit
    keep = []
    for g in groups:
        if g & touch:
            merged |= g
        else:
            keep.append(g)
    keep.append(merged)
    return tuple(keep)
