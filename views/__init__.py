"""What a human umpire posts, made from a game's JSON state: pictures (SVG,
PNG), monospace diagrams, announcements in plain English, and a whole forum
post in Markdown; plus each board's geometry for front ends that draw their own.

Pure functions of data: no Flask, no Redis, nothing from ``service``.  A
state is the JSON the service gives clients (``engine.get_game(name).dump(state)``);
``events`` are the engine's events of the move that led to it (``play``'s
``events``, a managed match's record entries); ``clock`` is a managed
match's clock JSON (``service.matches.referee.clock_json``).

What a game shows lives in its own folder: its room's ``show``
(:class:`engine.show.Show`, found through :data:`engine.registry.ROOMS`)
describes a position as data - a :class:`~engine.show.Picture` - and says
the announcements.  This package draws any picture and names no game::

    svg(state, events=..., palette=..., coords=..., names=..., clock=...) -> str
    png(state, width=..., **the same keywords) -> bytes
    text(state, events=..., coords=..., names=...) -> str
    announcements(before, events, after, names=..., clock=...) -> list[str]
    post(state, events=..., before=..., move=..., png_url=..., clock=..., names=..., ply=...) -> str
    alt_text(state, events=..., names=...) -> str
    geometry(game, options) -> dict
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.registry import ROOMS
from engine.show import BoardShape, Line, Picture, Show
from engine.words import possessive
from views import diagram, posts, raster
from views.gridsvg import grid_board_svg, grid_diagram, grid_layout
from views.hexsvg import hex_board_svg, hex_layout, hex_picture_diagram
from views.kit import Json, clock_lines, num, player_names, seat_clock
from views.layout import Layout
from views.svgkit import MIN_WIDTH, PALETTES, check_palette, document, scale_text

__all__ = ["PALETTES", "alt_text", "announcements", "geometry", "png", "post", "show_for", "svg", "text"]


def show_for(game: Any) -> Show:
    """The show of ``game`` (its room's, :data:`engine.registry.ROOMS`); ValueError naming the games that have one."""
    room = ROOMS.get(game) if isinstance(game, str) else None
    if room is None:
        raise ValueError(f"There is no view for the game {game!r}; views exist for: {', '.join(ROOMS)}.")
    return room.show


def show_of(state: Any) -> Show:
    """The show of a state's ``game``."""
    if not isinstance(state, Mapping):
        raise ValueError("A state must be a JSON object with a 'game' field, as the service gives it.")
    return show_for(state.get("game"))


def natural_layout(game: str, shape: BoardShape) -> Layout:
    """Where a board goes at its own size (any board kind a show declares)."""
    if shape.kind == "grid":
        return grid_layout(game, shape)
    return hex_layout(game, shape)


def fit(show: Show, natural: Layout) -> tuple[float, float]:
    """How much larger than its natural size a board is drawn, and the panel's
    text: the picture is at least as wide as the panel's lines need
    (``MIN_WIDTH`` and the show's ``extra_width``), and the board always
    fills that width - a small board is drawn large, never small beside the
    text (issue 22) - while the text grows with a picture wider than that,
    keeping its share of it."""
    least = MIN_WIDTH + show.extra_width
    board = round(max(1.0, least / natural.width), 4)  # as the SVG writes it (scale_text), so geometry's places are the picture's
    return board, round(natural.width * board / least, 4)


def layout(game: str, show: Show, shape: BoardShape) -> Layout:
    """Where everything of the board is in the picture, its scale included."""
    natural = natural_layout(game, shape)
    return natural.scaled(fit(show, natural)[0])


def _board_svg(picture: Picture, where: Layout, coords: bool) -> list[str]:
    if picture.board.kind == "grid":
        return grid_board_svg(picture, where, coords)
    return hex_board_svg(picture, coords)


def _diagram(picture: Picture, coords: bool) -> list[str]:
    if picture.board.kind == "grid":
        return grid_diagram(picture)
    return hex_picture_diagram(picture, coords)


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
    show = show_of(state)
    who = player_names(names, show.default_names)
    picture = show.picture(state, _events(events), who)
    natural = natural_layout(str(state["game"]), picture.board)
    board_scale, text_scale = fit(show, natural)
    body = _board_svg(picture, natural, coords)
    if board_scale != 1:  # the board drawn larger: places, strokes and labels alike (views.geometry says where)
        body = [f'<g transform="scale({scale_text(board_scale)})">', *body, "</g>"]
    lines: list[Line] = list(picture.lines)
    if clock:
        lines.append(Line("Clock: " + "; ".join(clock_lines(clock, who)), "line"))
    lines += picture.notes
    width, height = num(natural.width * board_scale), num(natural.height * board_scale)
    return document(float(width), float(height), palette, show.styles, picture.title, str(state["game"]), body, lines, text_scale)


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
    half-cell offsets; a grid with its column letters), a legend, the same
    lines as under the picture, and last the ``[State ...]`` line that makes
    the diagram the whole position when it is read back (views/diagram.py).
    ``coords`` names empty cells."""
    show = show_of(state)
    picture = show.picture(state, _events(events), player_names(names, show.default_names))
    lines = [*picture.lines, *picture.notes]
    out = [lines[0].text, *_diagram(picture, coords), picture.legend]
    out += [line.text for line in lines[1:]]
    out.append(diagram.state_line(show, state))
    return "\n".join(out) + "\n"


def result(state: dict[str, Any], *, events: Sequence[dict[str, Any]] = (), names: Sequence[str] | None = None) -> str | None:
    """How a finished game ended, as its post's result line says it (the winner and why); None while it is on."""
    if state.get("status") != "finished":
        return None
    show = show_of(state)
    return show.result(state, _events(events), player_names(names, show.default_names))


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
    show = show_of(after)
    if before is not None and not (type(before) is dict and before.get("game") == after["game"]):
        show_of(before)  # a state of the same game as after needs no second look
    who = player_names(names, show.default_names)
    evs = _events(events)
    said = show.announce(before, evs, after, who)
    if clock:
        mover = show.mover(before, evs)
        if mover is not None:
            said.append(f"{possessive(who[mover])} clock: {seat_clock(clock, mover)}.")
    return said


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
    format: str = "markdown",
) -> str:
    """The umpire's post: a heading, the announcements as a list, the picture
    (``png_url``), the text diagram in a code block (its last line the rest of
    the position: views/diagram.py reads a pasted post back whole), the scores,
    whose turn it is (or the result) and both players' clocks; written in ``format``
    (:data:`views.posts.FORMATS`: Markdown, Discord's, BBCode or plain text)."""
    posts.check_format(format)
    show = show_of(state)
    who = player_names(names, show.default_names)
    evs = _events(events)
    picture = show.picture(state, evs, who)
    lines = [*picture.lines, *picture.notes]
    number = state.get("ply") if ply is None else ply
    heading = f"{picture.name}, ply {number}"  # the variant and the anomalies too (issue 35)
    mover = picture.last.mover
    if picture.said and move in (None, picture.last.move):  # in the rules' words: Crystal's draft says 'first' (issue 35)
        heading += f": {picture.said}"
    elif move and mover in (0, 1):
        heading += f": {who[mover]} plays {move}"
    elif move:
        heading += f": {move}"
    said = show.announce(before, evs, state, who) if evs else []
    shown = [line for line in lines[1:] if line.kind != "last"]
    made = posts.Post(
        heading=heading,
        said=tuple(said),
        picture_url=png_url or None,
        picture_alt=_alt(picture),
        diagram=(*_diagram(picture, False), picture.legend, diagram.state_line(show, state)),  # read back whole (issue 35)
        status=tuple((line.text, line.kind in ("turn", "result")) for line in shown),
        clock=tuple(clock_lines(clock, who)) if clock else (),
    )
    return posts.write(made, format)


def _alt(picture: Picture) -> str:
    """What the picture shows, in words: its title, the move that led to it, whose turn it is or the result."""
    after = f", after {picture.said}" if picture.said else ""
    status = next((line.text for line in reversed(picture.lines) if line.kind in ("turn", "result")), "")
    return f"The board of {picture.title}{after}. {status}".strip()


def alt_text(state: dict[str, Any], *, events: Sequence[dict[str, Any]] = (), names: Sequence[str] | None = None) -> str:
    """The picture's alternative text, for a post's image or an attachment's description: the
    game, its ply, the move that led to it and whose turn it is (or the result), with the players'
    names ("The board of Bug (green-meadow), 2 cells blackened, ply 38, after Ann plays C4 B3. Bob
    to move: ...")."""
    show = show_of(state)
    return _alt(show.picture(state, _events(events), player_names(names, show.default_names)))


def geometry(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """Every cell of ``game``'s board for ``options`` (the game's own option
    names: ``size``, ``variant``, ``blocked``) with its name, neighbours and
    centre (x, y) in the units and places the SVG uses, plus the labels and
    the board area's width and height, so a front end can draw its own board."""
    show = show_for(game)
    if not isinstance(options, Mapping):
        raise ValueError("options must be an object, as the game's options.")
    blocked = options.get("blocked") or ()
    if isinstance(blocked, str) or not isinstance(blocked, Sequence):
        raise ValueError("blocked must be a list of cells.")
    return layout(game, show, show.shape(options, blocked)).to_json()
