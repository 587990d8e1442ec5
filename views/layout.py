"""Where a board goes in a picture: :class:`Layout`, the geometry record a
front end gets (:func:`views.geometry`) and the picture draws - every cell's
name, centre and playing neighbours, the off cells, the labels, the size.
Built from a show's :class:`~engine.show.BoardShape` by
:mod:`views.hexsvg` or :mod:`views.gridsvg`."""

from __future__ import annotations

from dataclasses import dataclass, replace

from views.kit import Json, num


@dataclass(frozen=True)
class CellPos:
    """One cell of a picture: its name, centre and, for a playing cell, the
    playing cells it touches (R-H2, R-H4, R-H5)."""

    name: str
    x: float
    y: float
    neighbours: tuple[str, ...] = ()


@dataclass(frozen=True)
class Label:
    text: str
    x: float
    y: float


@dataclass(frozen=True)
class Layout:
    """Where everything of a board goes in the picture (SVG user units)."""

    game: str
    kind: str  # "hexhex", "green-meadow" or "grid"
    cells: tuple[CellPos, ...]  # playing cells, reading order
    off: tuple[CellPos, ...]  # black or blocked cells, drawn but not played on
    labels: tuple[Label, ...]  # row letters (and Green Meadow's diagonals, a grid's columns)
    rows: tuple[str, ...]
    columns: tuple[str, ...]  # Green Meadow's diagonals, a grid's columns; none for hexhex
    width: float
    height: float
    cell_size: float  # hexagon circumradius, or a square's side
    side: int | None = None

    def scaled(self, k: float) -> Layout:
        """The same board drawn ``k`` times as large: every place, the size and the cell's."""
        if k == 1:
            return self

        def at(c: CellPos) -> CellPos:
            return replace(c, x=round(c.x * k, 2), y=round(c.y * k, 2))

        return replace(
            self,
            cells=tuple(at(c) for c in self.cells),
            off=tuple(at(c) for c in self.off),
            labels=tuple(Label(lb.text, round(lb.x * k, 2), round(lb.y * k, 2)) for lb in self.labels),
            width=round(self.width * k, 2),
            height=round(self.height * k, 2),
            cell_size=round(self.cell_size * k, 2),
        )

    def to_json(self) -> Json:
        out: Json = {
            "game": self.game,
            "kind": self.kind,
            "cells": [{"name": c.name, "neighbours": list(c.neighbours), "x": c.x, "y": c.y} for c in self.cells],
            "off": [{"name": c.name, "x": c.x, "y": c.y} for c in self.off],
            "rows": list(self.rows),
            "labels": [{"text": lb.text, "x": lb.x, "y": lb.y} for lb in self.labels],
            "width": self.width,
            "height": self.height,
            "cell_size": self.cell_size,
            "shape": "square" if self.kind == "grid" else "hexagon-pointy-top",
        }
        if self.columns:
            out["diagonals" if self.kind == "green-meadow" else "columns"] = list(self.columns)
        if self.side is not None:
            out["side"] = self.side
        return out


def labels_svg(labels: tuple[Label, ...], barred: frozenset[str]) -> str:
    """The labels; a ``barred`` one struck out (a file the player to move may not use)."""
    out = ['<g class="labels">']
    for lb in labels:
        if lb.text in barred:
            out.append(f'<text class="barred" x="{num(lb.x)}" y="{num(lb.y)}">{lb.text}</text>')
            out.append(f'<line class="strike" x1="{num(lb.x - 7)}" y1="{num(lb.y)}" x2="{num(lb.x + 7)}" y2="{num(lb.y)}"/>')
        else:
            out.append(f'<text class="lbl" x="{num(lb.x)}" y="{num(lb.y)}">{lb.text}</text>')
    out.append("</g>")
    return "".join(out)
