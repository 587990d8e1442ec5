"""What a human umpire posts, made from a game's JSON state: pictures (SVG,
PNG), monospace diagrams, announcements in plain English, and a whole forum
post in Markdown; plus each board's geometry for front ends that draw their own.

Pure functions of data: no Flask, no Redis, nothing from ``service``.  A
state is the JSON the service gives clients (``engine.get_game(name).dump(state)``);
``events`` are the engine's events of the move that led to it (``play``'s
``events``, a managed match's record entries); ``clock`` is a managed
match's clock JSON (``service.referee.clock_json``).

Each game's knowledge lives in one module (``views/catchup.py``, ...),
listed by name in :mod:`views.registry`::

    svg(state, events=..., palette=..., coords=..., names=..., clock=...) -> str
    png(state, width=..., **the same keywords) -> bytes
    text(state, events=..., coords=..., names=...) -> str
    announcements(before, events, after, names=..., clock=...) -> list[str]
    post(state, events=..., before=..., move=..., png_url=..., clock=..., names=..., ply=...) -> str
    geometry(game, options) -> dict
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from views import raster
from views.kit import Json, clock_lines, markdown, player_names
from views.registry import VIEWS, view_for, view_of
from views.svgkit import PALETTES, check_palette, document

__all__ = ["PALETTES", "VIEWS", "announcements", "geometry", "png", "post", "svg", "text"]


def _events(events: Sequence[Json] | None) -> list[Json]:
    if events is None:
        return []
    if isinstance(events, Mapping | str):
        raise ValueError("events must be a list of the engine's event objects.")
    out = []
    for e in events:
        if not isinstance(e, Mapping):
            raise ValueError(f"Each event must be an object with a 'type', not {e!r}.")
        out.append(dict(e))
    return out


def svg(
    state: dict[str, Any],
    *,
    events: Sequence[dict[str, Any]] = (),
    palette: str = "default",
    coords: bool = False,
    names: Sequence[str] | None = None,
    clock: dict[str, Any] | None = None,
) -> str:
    """The position as an SVG picture: the board with its labels (and each
    cell's name with ``coords``), the last move marked from ``events``, and
    under it the scores, whose turn it is or the result, and the clock.

    Every playing cell is one element with ``data-cell``; colours come only
    from the one ``<style>`` block (``palette``).  Same input, same bytes."""
    check_palette(palette)
    view = view_of(state)
    who = player_names(names, view.default_names)
    evs = _events(events)
    layout = view.state_layout(state)
    marks = view.marks(evs, state)
    body = view.board_svg(state, layout, marks, coords)
    lines = view.status(state, evs, who, clock)
    title = lines[0].text if lines else view.title
    return document(layout.width, layout.height, palette, view.pieces, title, view.game, body, lines, view.icon)


def png(
    state: dict[str, Any],
    *,
    width: int | None = None,
    events: Sequence[dict[str, Any]] = (),
    palette: str = "default",
    coords: bool = False,
    names: Sequence[str] | None = None,
    clock: dict[str, Any] | None = None,
) -> bytes:
    """:func:`svg` rendered to PNG (resvg, with the fonts shipped in
    ``views/fonts``); ``width`` in pixels scales the picture."""
    picture = svg(state, events=events, palette=palette, coords=coords, names=names, clock=clock)
    return raster.render(picture, width)


def text(
    state: dict[str, Any],
    *,
    events: Sequence[dict[str, Any]] = (),
    coords: bool = False,
    names: Sequence[str] | None = None,
) -> str:
    """The position as a monospace diagram in the seeds' layout (row labels,
    half-cell offsets; Crystal's grid with its file labels), a legend, and
    the same lines as under the picture.  ``coords`` names empty cells."""
    view = view_of(state)
    who = player_names(names, view.default_names)
    evs = _events(events)
    marks = view.marks(evs, state)
    lines = view.status(state, evs, who, None)
    out = [lines[0].text, *view.diagram(state, marks, coords), view.legend(state, who)]
    out += [line.text for line in lines[1:]]
    return "\n".join(out) + "\n"


def announcements(
    before: dict[str, Any] | None,
    events: Sequence[dict[str, Any]],
    after: dict[str, Any],
    *,
    names: Sequence[str] | None = None,
    clock: dict[str, Any] | None = None,
) -> list[str]:
    """What the umpire says about one move (or flag, resignation, forfeit):
    one sentence per thing announced, from the engine's ``events`` and the
    states ``before`` and ``after`` it.  With ``clock``, the mover's clock too."""
    view = view_of(after)
    if before is not None:
        view_of(before)
    who = player_names(names, view.default_names)
    return view.announce(before, _events(events), after, who, clock)


def post(
    state: dict[str, Any],
    *,
    events: Sequence[dict[str, Any]] = (),
    before: dict[str, Any] | None = None,
    move: str | None = None,
    png_url: str | None = None,
    clock: dict[str, Any] | None = None,
    names: Sequence[str] | None = None,
    ply: int | None = None,
) -> str:
    """A forum post in Markdown: a heading, the announcements as a list, the
    picture (``png_url``), the text diagram in a fenced block, the scores,
    whose turn it is (or the result) and both players' clocks."""
    view = view_of(state)
    who = player_names(names, view.default_names)
    evs = _events(events)
    marks = view.marks(evs, state)
    lines = view.status(state, evs, who, None)
    number = state.get("ply") if ply is None else ply
    heading = f"{view.title}, ply {number}"
    mover = marks.mover
    if move is None and marks.move is not None:
        move = marks.move
    if move and mover in (0, 1):
        heading += f": {who[mover]} plays {move}"
    elif move:
        heading += f": {move}"
    out = [f"**{markdown(heading)}**", ""]
    said = view.announce(before, evs, state, who, None) if evs else []
    if said:
        out += [f"- {markdown(s)}" for s in said]
        out.append("")
    if png_url:
        out += [f"![{markdown(lines[0].text)}](<{png_url.replace('>', '%3E')}>)", ""]
    out += ["```text", *view.diagram(state, marks, False), view.legend(state, who), "```", ""]
    shown = [line for line in lines[1:] if line.kind != "last"]
    for i, line in enumerate(shown):
        body = markdown(line.text)
        if line.kind in ("turn", "result"):
            body = f"**{body}**"
        out.append(body + ("  " if i < len(shown) - 1 else ""))
    if clock:
        out += ["", "Clock:"]
        out += [f"- {markdown(line)}" for line in clock_lines(clock, who)]
    return "\n".join(out).rstrip() + "\n"


def geometry(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """Every cell of ``game``'s board for ``options`` (the game's own option
    names: ``size``, ``variant``, ``blocked``) with its name, neighbours and
    centre (x, y) in the units and places the SVG uses, plus the labels and
    the board area's width and height, so a front end can draw its own board."""
    view = view_for(game)
    if not isinstance(options, Mapping):
        raise ValueError("options must be an object, as the game's options.")
    blocked = options.get("blocked") or ()
    if isinstance(blocked, str) or not isinstance(blocked, Sequence):
        raise ValueError("blocked must be a list of cells.")
    return view.layout(options, blocked).to_json()
