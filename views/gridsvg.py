"""Square grids drawn (R-H5: columns lettered from A, rows numbered from 1 at
the top), as SVG and as monospace diagrams, for any show's picture: a tile
per cell, its glyph, the column letters above and the row numbers at the
left (struck out when barred), and each shifted file outlined with its
arrows (below a column, right of a row).
"""

from __future__ import annotations

from functools import cache, lru_cache

from engine.show import BoardShape, Picture
from views.glyphs import glyph_svg
from views.kit import num
from views.layout import CellPos, Label, Layout, labels_svg
from views.svgkit import MARGIN

S = 48.0  # a cell's side
LEFT, TOP, RIGHT, BOTTOM = 26.0, 26.0, 44.0, 24.0  # label and arrow strips around the grid


def column_name(c: int) -> str:
    return chr(65 + c)


@cache
def _geometry(columns: int, rows: int) -> tuple[float, float, float, float]:
    """(x0, y0, width, height): the grid's top-left corner and the board area's natural size."""
    width = MARGIN + LEFT + columns * S + RIGHT + MARGIN
    x0 = MARGIN + LEFT
    y0 = MARGIN + TOP
    return x0, y0, width, y0 + rows * S + BOTTOM + MARGIN


@lru_cache(maxsize=64)
def grid_layout(game: str, shape: BoardShape) -> Layout:
    """The grid's layout at its natural size (the picture scales it: :func:`views.fit`)."""
    cols, rows = shape.columns, shape.rows
    x0, y0, width, height = _geometry(cols, rows)
    off = frozenset(shape.off)

    def centre(c: int, r: int) -> tuple[float, float]:
        return x0 + S * c + S / 2, y0 + S * r + S / 2

    cells, offs = [], []
    for r in range(rows):
        for c in range(cols):
            name = f"{column_name(c)}{r + 1}"
            x, y = centre(c, r)
            if name in off:
                offs.append(CellPos(name, x, y))
                continue
            nbrs = []
            for dc, dr in ((0, -1), (-1, 0), (1, 0), (0, 1)):  # orthogonal, no wrap-around (R-H5); reading order
                other = f"{column_name(c + dc)}{r + dr + 1}"
                if 0 <= c + dc < cols and 0 <= r + dr < rows and other not in off:
                    nbrs.append(other)
            cells.append(CellPos(name, x, y, tuple(nbrs)))
    labels = [Label(column_name(c), centre(c, 0)[0], y0 - 14) for c in range(cols)]
    labels += [Label(str(r + 1), x0 - 15, centre(0, r)[1]) for r in range(rows)]
    return Layout(
        game=game,
        kind="grid",
        cells=tuple(cells),
        off=tuple(offs),
        labels=tuple(labels),
        rows=tuple(str(r + 1) for r in range(rows)),
        columns=tuple(column_name(c) for c in range(cols)),
        width=width,
        height=height,
        cell_size=S,
    )


@cache
def _tile(name: str, x: float, y: float, mark: str) -> str:
    """A cell's element and its square (marked when the last move touched it), left open for its piece."""
    cls = f"tile {mark}" if mark else "tile"
    return (
        f'<g class="cell" data-cell="{name}"><rect class="{cls}" x="{num(x - S / 2)}" y="{num(y - S / 2)}" '
        f'width="{num(S)}" height="{num(S)}"/>'
    )


def grid_board_svg(picture: Picture, layout: Layout, coords: bool) -> list[str]:
    """The grid's SVG elements: labels, tiles with their glyphs, shifted files."""
    kinds: dict[str, set[str]] = {}
    for m in picture.last.marks:
        kinds.setdefault(m.cell, set()).add(m.kind)
    pieces = {p.cell: p.glyph for p in picture.pieces}
    out = [labels_svg(layout.labels, frozenset(picture.barred)), '<g class="board">']
    for cell in layout.off:
        out.append(f'<rect class="off" x="{num(cell.x - S / 2)}" y="{num(cell.y - S / 2)}" width="{num(S)}" height="{num(S)}"/>')
    for cell in layout.cells:
        marked = kinds.get(cell.name, set())
        mark = "bonus" if "bonus" in marked else "last" if "last" in marked else ""
        out.append(_tile(cell.name, cell.x, cell.y, mark))
        if "eaten" in marked:
            h = S * 0.4
            out.append(
                f'<rect class="eaten" x="{num(cell.x - h)}" y="{num(cell.y - h)}" width="{num(2 * h)}" height="{num(2 * h)}"/>'
            )
        glyph = pieces.get(cell.name)
        if glyph is not None:
            out.append(glyph_svg(glyph, cell.x, cell.y))
        if coords:
            out.append(f'<text class="coord" x="{num(cell.x + S / 2 - 10)}" y="{num(cell.y + S / 2 - 7)}">{cell.name}</text>')
        out.append("</g>")
    out.append("</g>")
    out.extend(_files(picture, layout))
    return out


def _files(picture: Picture, layout: Layout) -> list[str]:
    """Each shifted row or column outlined, its arrows beside it."""
    if not layout.cells and not layout.off:
        return []
    first = min([*layout.cells, *layout.off], key=lambda c: (c.y, c.x))
    x0, y0 = first.x - S / 2, first.y - S / 2
    cols, rows = len(layout.columns), len(layout.rows)
    out = []
    for mark in picture.last.files:
        if mark.file in layout.columns:
            x = x0 + S * layout.columns.index(mark.file)
            out.append(f'<rect class="shifted" x="{num(x)}" y="{num(y0)}" width="{num(S)}" height="{num(rows * S)}"/>')
            out.append(f'<text class="arrow" x="{num(x + S / 2)}" y="{num(y0 + rows * S + 12)}">{mark.arrows}</text>')
        elif mark.file in layout.rows:
            y = y0 + S * layout.rows.index(mark.file)
            out.append(f'<rect class="shifted" x="{num(x0)}" y="{num(y)}" width="{num(cols * S)}" height="{num(S)}"/>')
            out.append(f'<text class="arrow" x="{num(x0 + cols * S + RIGHT / 2)}" y="{num(y + S / 2)}">{mark.arrows}</text>')
    return out


def grid_diagram(picture: Picture) -> list[str]:
    """The grid as text: column letters above, each row's number and its symbols ("." for an empty cell, "#" off)."""
    shape = picture.board
    symbols = {p.cell: p.symbol for p in picture.pieces}
    off = frozenset(shape.off)
    pad = len(str(shape.rows))
    lines = [" " * (pad + 2) + " ".join(column_name(c) for c in range(shape.columns))]
    for r in range(shape.rows):
        names = [f"{column_name(c)}{r + 1}" for c in range(shape.columns)]
        row = ["#" if n in off else symbols.get(n, ".") for n in names]
        lines.append(f"{str(r + 1).ljust(pad)}  " + " ".join(row))
    return lines
