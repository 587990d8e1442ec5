"""Crystal Connector's 6x6 grid as bit sets: layout, shifts, groups, scoring,
the seeded deal and the six-string text form (RULES R-H5, R-X1 to R-X5).

Coordinate systems, and where each is used::

    notation  "C4"          column letter A-F (left to right) + row 1-6 (top
                            to bottom), R-H5; files are "A".."F" (columns)
                            and "1".."6" (rows)
    bit       r*7 + c       a cell's index inside the engine (r, c 0-based)
    file      0..11         0-5 the columns A-F, 6-11 the rows 1-6

Column 6 of every row is padding and always empty, so the left/right
neighbour shifts of a flood fill (``<<1``, ``>>1``) never carry a cell into
the next row, and ``<<7``/``>>7`` fall off the top or bottom edge: groups
are orthogonal and never wrap (R-H5).

A grid is a tuple of nine int bit sets indexed by the kind constants below:
one per colour (``RED``..``YELLOW``), one per object (``BOMB``,
``CHAMELEON``, ``PYLON``, ``ROCK``) and ``SPIKES``, the crystals that carry
spikes (a subset of the colour sets).  A shift rotates every set that meets
the file, which is a mask, two shifts and an ``or`` per set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache

from engine.errors import InvalidMove

STRIDE = 7
SIZE = 6

RED, BLUE, GREEN, YELLOW, BOMB, CHAMELEON, PYLON, ROCK, SPIKES = range(9)
KINDS = 9
COLOURS = ("red", "blue", "green", "yellow")  # API.md symbol order R B G Y; also the canonical order of a pair
COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}
SYMBOLS = "RBGY*@+#"  # kind -> symbol (spiked crystals are the lower-case letters)
SYMBOL_KIND = {s: k for k, s in enumerate(SYMBOLS)}

Grid = tuple[int, ...]

COLUMN = tuple(sum(1 << (r * STRIDE + c) for r in range(SIZE)) for c in range(SIZE))
ROW = tuple(0b111111 << (r * STRIDE) for r in range(SIZE))
FILE = COLUMN + ROW  # file index -> its cells
BOARD = sum(ROW)
FILE_NAMES = ("A", "B", "C", "D", "E", "F", "1", "2", "3", "4", "5", "6")
FILE_INDEX = {name: i for i, name in enumerate(FILE_NAMES)}
CELLS = tuple(r * STRIDE + c for r in range(SIZE) for c in range(SIZE))  # reading order
CELL_NAMES = {r * STRIDE + c: f"{'ABCDEF'[c]}{r + 1}" for r in range(SIZE) for c in range(SIZE)}
CELL_INDEX = {name: b for b, name in CELL_NAMES.items()}


def cell_name(bit: int) -> str:
    return CELL_NAMES[bit]


def parse_cell(text: str) -> int | None:
    """``C4``/``c4`` -> bit, or None when it is not a cell of the grid."""
    return CELL_INDEX.get(text.strip().upper())


def _position(f: int, b: int) -> int:
    """0-based place of cell ``b`` along file ``f`` (row for a column, column for a row)."""
    return b // STRIDE if f < SIZE else b % STRIDE


# -- shifts (R-X2) --------------------------------------------------------------

# A shift is (file, sign, amount): sign +1 moves toward higher positions (down
# a column, right along a row), -1 toward lower ones (up, left).  Rotating by
# ``amount`` backwards is rotating by ``6 - amount`` forwards; only the wrap
# test and the spike count (cells travelled) care which way it went.


def _rotation(f: int, forward: int) -> tuple[int, int, int, int]:
    """(file mask, everything else, left shift, right shift) rotating file ``f`` forward."""
    step = STRIDE if f < SIZE else 1
    return FILE[f], BOARD & ~FILE[f], step * forward, step * (SIZE - forward)


# ROT[f][sign][amount]: sign +1 indexes slot 1, sign -1 indexes slot -1 (== 2)
ROT: tuple[tuple[tuple[tuple[int, int, int, int], ...], ...], ...] = tuple(
    (
        (),
        tuple([_rotation(f, 1)] + [_rotation(f, a) for a in range(1, SIZE)]),
        tuple([_rotation(f, 1)] + [_rotation(f, SIZE - a) for a in range(1, SIZE)]),
    )
    for f in range(12)
)

# WRAP[f][sign][amount]: the cells of file f that cross the edge in that shift
WRAP: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    (
        (),
        tuple([0] + [sum(1 << b for b in CELLS if FILE[f] >> b & 1 and _position(f, b) >= SIZE - a) for a in range(1, SIZE)]),
        tuple([0] + [sum(1 << b for b in CELLS if FILE[f] >> b & 1 and _position(f, b) < a) for a in range(1, SIZE)]),
    )
    for f in range(12)
)


def shift(grid: Grid, f: int, sign: int, amount: int) -> Grid:
    """The grid after shifting file ``f`` by ``amount`` (1-5) in direction ``sign``; everything on the file moves."""
    fm, rest, left, right = ROT[f][sign][amount]
    return tuple([((m & rest) | (((m & fm) << left | (m & fm) >> right) & fm)) if m & fm else m for m in grid])


def shift_text(f: int, sign: int, amount: int) -> str:
    """``C up 2`` / ``2 right 3`` (R-X2)."""
    if f < SIZE:
        return f"{FILE_NAMES[f]} {'down' if sign > 0 else 'up'} {amount}"
    return f"{FILE_NAMES[f]} {'right' if sign > 0 else 'left'} {amount}"


# -- groups and scoring (R-X3, R-X5) ----------------------------------------------


@lru_cache(maxsize=4096)
def doubled(pylons: int) -> int:
    """R-X5 pylons: the cells on a row or column that holds at least two pylons
    (a cell on both such a row and such a column is still counted once: 2, never 4)."""
    out = 0
    for fm in FILE:
        if (pylons & fm).bit_count() >= 2:
            out |= fm
    return out


def colour_value(cells: int, bombs: int, double: int) -> int:
    """The largest group's size for one colour (R-X3) with the anomalies' twists (R-X5).

    ``cells`` are the colour's crystals plus the chameleons (which count as every
    colour, so they may join groups and form groups of their own); a group that
    touches a bomb does not count, so a colour whose groups all do scores 0; a
    cell in ``double`` (pylon lines) counts 2."""
    # Lone cells (no neighbour in the set) are groups of one: value them in bulk
    # and flood only the rest; most of a colour's groups are lone cells.
    lone = cells & ~(cells << 1 | cells >> 1 | cells << STRIDE | cells >> STRIDE)
    ok = lone & ~(bombs << 1 | bombs >> 1 | bombs << STRIDE | bombs >> STRIDE) if bombs else lone  # a lone cell by a bomb
    best = (2 if ok & double else 1) if ok else 0
    rest = cells ^ lone
    while rest:
        if rest.bit_count() + (rest & double).bit_count() <= best:
            break  # nothing left could beat it
        g = rest & -rest
        while True:
            n = (g | g << 1 | g >> 1 | g << STRIDE | g >> STRIDE) & cells
            if n == g:
                break
            g = n
        rest ^= g
        if bombs and (g << 1 | g >> 1 | g << STRIDE | g >> STRIDE) & bombs:
            continue
        v = g.bit_count() + (g & double).bit_count()
        if v > best:
            best = v
    return best


def colour_values(grid: Grid) -> tuple[int, int, int, int]:
    """Each colour's largest-group value (red, blue, green, yellow)."""
    cham = grid[CHAMELEON]
    bombs = grid[BOMB]
    double = doubled(grid[PYLON]) if grid[PYLON] else 0
    return (
        colour_value(grid[RED] | cham, bombs, double),
        colour_value(grid[BLUE] | cham, bombs, double),
        colour_value(grid[GREEN] | cham, bombs, double),
        colour_value(grid[YELLOW] | cham, bombs, double),
    )


# -- text form (API.md: six strings, top row first) -----------------------------------


def render(grid: Grid) -> list[str]:
    """Six strings, one per row, top first: ``R B G Y`` crystals (lower case when
    spiked), ``*`` bomb, ``@`` chameleon, ``+`` pylon, ``#`` rock."""
    rows = []
    spikes = grid[SPIKES]
    for r in range(SIZE):
        chars = []
        for c in range(SIZE):
            b = r * STRIDE + c
            for k in range(SPIKES):
                if grid[k] >> b & 1:
                    ch = SYMBOLS[k]
                    chars.append(ch.lower() if spikes >> b & 1 else ch)
                    break
            else:
                chars.append("?")  # cannot happen for a valid grid: every cell holds a piece
        rows.append("".join(chars))
    return rows


def parse_rows(rows: object) -> Grid:
    """Six strings of six symbols -> grid.  Raises ``ValueError(path, message)``
    with ``path`` the row (``"2"``) or cell (``"C4"``) at fault."""
    if not isinstance(rows, list | tuple) or len(rows) != SIZE:
        raise ValueError("", "must be a list of six strings, one per row, top first")
    masks = [0] * KINDS
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != SIZE:
            raise ValueError(str(r), f"row {r + 1} must be a string of six symbols")
        for c, ch in enumerate(row):
            b = r * STRIDE + c
            k = SYMBOL_KIND.get(ch.upper())
            if k is None:
                raise ValueError(CELL_NAMES[b], f"{CELL_NAMES[b]} holds {ch!r}, which is none of R B G Y r b g y * @ + #")
            masks[k] |= 1 << b
            if ch.islower():
                masks[SPIKES] |= 1 << b
    return tuple(masks)


def counts(grid: Grid) -> tuple[int, ...]:
    return tuple(m.bit_count() for m in grid)


# -- the seeded deal (R-X1) -------------------------------------------------------------
#
# The same seed and options give the same grid on every machine and Python
# version, so the deal uses nothing but SHA-256 and integer arithmetic:
#
# * a byte stream: block i is SHA-256(key || i as 8 bytes big-endian), where
#   key = b"crystal-connector/grid/v1" 0x00 seed(UTF-8) 0x00 anomalies
#   (canonical names, sorted, joined by ","); the stream is read 4 bytes at a
#   time as big-endian unsigned 32-bit words;
# * ``below(n)``: draw words until one is < 2**32 - (2**32 mod n), answer it mod n
#   (rejection sampling, so every value is exactly equally likely);
# * ``shuffle(xs)``: Fisher-Yates from the end, for i = len-1 .. 1 swap xs[i] with
#   xs[below(i + 1)].
#
# The deal: (1) with rocks, shuffle the rows 0-5 and the columns 0-5 and put
# rock i on (row i, column i) of the first four of each, so the rocks start on
# four different rows and columns (R-X5); (2) shuffle the remaining pieces,
# listed red, blue, green, yellow, bombs, chameleons, pylons, and lay them on
# the free cells in reading order; (3) with spikes, for red, blue, green,
# yellow in turn shuffle that colour's cells (reading order) and spike the
# first two.


class SeedStream:
    """A deterministic stream of uniform integers from SHA-256 in counter mode."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def word(self) -> int:
        if self._pos + 4 > len(self._buf):
            self._buf = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pos = 0
        w = int.from_bytes(self._buf[self._pos : self._pos + 4], "big")
        self._pos += 4
        return w

    def below(self, n: int) -> int:
        limit = (1 << 32) - (1 << 32) % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, xs: list[int]) -> None:
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]


def piece_counts(anomalies: Iterable[str]) -> tuple[int, ...]:
    """How many of each kind a fresh grid holds (R-X1, R-X5), SPIKES included."""
    a = set(anomalies)
    n = [9, 9, 9, 9, 0, 0, 0, 0, 0]
    if "bombs" in a:
        n[RED] -= 1
        n[BLUE] -= 1
        n[BOMB] = 2
    if "chameleons" in a:
        n[GREEN] -= 1
        n[YELLOW] -= 1
        n[CHAMELEON] = 2
    for anomaly, kind in (("pylons", PYLON), ("rocks", ROCK)):
        if anomaly in a:
            for c in range(4):
                n[c] -= 1
            n[kind] = 4
    if "spikes" in a:
        n[SPIKES] = 8
    return tuple(n)


def deal(seed: str, anomalies: Sequence[str]) -> Grid:
    """The grid for ``seed`` and the (canonical, sorted) ``anomalies``; see the algorithm above."""
    key = b"crystal-connector/grid/v1\x00" + seed.encode("utf-8") + b"\x00" + ",".join(sorted(anomalies)).encode("ascii")
    stream = SeedStream(key)
    n = piece_counts(anomalies)
    masks = [0] * KINDS
    free = list(CELLS)
    if n[ROCK]:
        rows = list(range(SIZE))
        cols = list(range(SIZE))
        stream.shuffle(rows)
        stream.shuffle(cols)
        for i in range(n[ROCK]):
            b = rows[i] * STRIDE + cols[i]
            masks[ROCK] |= 1 << b
            free.remove(b)
    pieces = [k for k in range(ROCK) for _ in range(n[k])]
    stream.shuffle(pieces)
    for b, k in zip(free, pieces, strict=True):
        masks[k] |= 1 << b
    if n[SPIKES]:
        for colour in range(4):
            cells = [b for b in CELLS if masks[colour] >> b & 1]
            stream.shuffle(cells)
            for b in cells[:2]:
                masks[SPIKES] |= 1 << b
    return tuple(masks)


def parse_shift(text: str, step: int) -> tuple[int, int, int]:
    """``C up 2`` / ``2 right 3`` -> (file, sign, amount); InvalidMove ``bad_shift``
    naming the shift by its text, item ``step`` of the move."""
    words = text.split()
    where = repr(text.strip())

    def bad(message: str, rule: str = "R-X2") -> InvalidMove:
        return InvalidMove(message, code="bad_shift", step=step, rule=rule)

    if len(words) != 3:
        raise bad(f"{where} is not a shift: write a file, a direction and an amount, like 'C up 2' or '2 right 3'.")
    name, direction, amount_text = words[0].upper(), words[1].lower(), words[2]
    f = FILE_INDEX.get(name)
    if f is None:
        raise bad(f"{where} names no file: columns are A-F and rows 1-6.", "R-H5")
    if f < SIZE:
        if direction not in ("up", "down"):
            raise bad(f"{where}: column {name} shifts up or down, not {direction!r}.")
        sign = 1 if direction == "down" else -1
    else:
        if direction not in ("left", "right"):
            raise bad(f"{where}: row {name} shifts left or right, not {direction!r}.")
        sign = 1 if direction == "right" else -1
    if not (amount_text.isascii() and amount_text.isdigit()) or not 1 <= int(amount_text) <= 5:  # '²' is a digit int() refuses
        raise bad(f"{where}: the amount must be a whole number from 1 to 5.")
    return f, sign, int(amount_text)
