"""The parts of every picture that are not the board: the palettes (one CSS
``<style>`` block, so a palette is swapped without touching a shape), the
information panel under the board (scores, turn, result, clock) with its
line wrapping, and the document around them.

Colours appear nowhere but in :func:`stylesheet`: every shape carries classes.
Three palettes:

* ``default`` - the Okabe-Ito colours, safe for the common colour-vision
  deficiencies; pieces differ by a mark as well (player 0's stones carry a dot,
  player 1's a ring; crystals carry their letter);
* ``colorblind`` - Paul Tol's high-contrast colours on a white board: the two
  players differ strongly in lightness too, so they part even in grey;
* ``print`` - black and white (greys for crystals), for paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from engine.show import Line, Style
from views.glyphs import icon_svg
from views.kit import num, xml

PALETTES: tuple[str, ...] = ("default", "colorblind", "print")

FONT = "DejaVu Sans"
MARGIN = 14.0
MIN_WIDTH = 400.0  # the panel's sentences need room: a smaller board is drawn larger (views.fit)
LINE = 21.0  # panel line height
TEXT_PX = 14.0
# DejaVu Sans averages about 0.55 em a character in English text (bold about 0.62): lines are wrapped on that
_EM = {"title": 16 * 0.62, "result": TEXT_PX * 0.62, "turn": TEXT_PX * 0.62, "note": 12 * 0.56}

# role -> colour, per palette.  Piece roles: red, blue, black, white (a
# show's styles pick theirs), crystal colours cR cB cG cY with their letters' ink.
_COLOURS: dict[str, dict[str, str]] = {
    "default": {
        "bg": "#ffffff",
        "ink": "#1a1a1a",
        "muted": "#5c5c5c",
        "board": "#f3ead7",
        "grid": "#8a7a5e",
        "off": "#262626",
        "off-line": "#8a7a5e",
        "last": "#f9ef9a",
        "lastline": "#111111",
        "bonus": "#bfe3f5",
        "eaten": "#cc3311",
        "red": "#d55e00",
        "red-line": "#6e3000",
        "red-mark": "#ffffff",
        "blue": "#0072b2",
        "blue-line": "#003a5c",
        "blue-mark": "#ffffff",
        "black": "#1f1f1f",
        "black-line": "#000000",
        "black-mark": "#ffffff",
        "white": "#fcfcfc",
        "white-line": "#303030",
        "white-mark": "#303030",
        "cR": "#d55e00",
        "cB": "#0072b2",
        "cG": "#009e73",
        "cY": "#f0e442",
        "cR-ink": "#ffffff",
        "cB-ink": "#ffffff",
        "cG-ink": "#ffffff",
        "cY-ink": "#1a1a1a",
        "piece-line": "#1a1a1a",
        "bomb": "#1a1a1a",
        "spark": "#e69f00",
        "pylon": "#7a7a7a",
        "rock": "#8c6d4f",
        "rock-ink": "#ffffff",
    },
    "colorblind": {
        "bg": "#ffffff",
        "ink": "#000000",
        "muted": "#444444",
        "board": "#ffffff",
        "grid": "#555555",
        "off": "#000000",
        "off-line": "#555555",
        "last": "#dddddd",
        "lastline": "#000000",
        "bonus": "#bbbbbb",
        "eaten": "#000000",
        "red": "#bb5566",
        "red-line": "#5a1f2a",
        "red-mark": "#ffffff",
        "blue": "#004488",
        "blue-line": "#001a33",
        "blue-mark": "#ffffff",
        "black": "#000000",
        "black-line": "#000000",
        "black-mark": "#ffffff",
        "white": "#ffffff",
        "white-line": "#000000",
        "white-mark": "#000000",
        "cR": "#bb5566",
        "cB": "#004488",
        "cG": "#117733",
        "cY": "#ddaa33",
        "cR-ink": "#ffffff",
        "cB-ink": "#ffffff",
        "cG-ink": "#ffffff",
        "cY-ink": "#000000",
        "piece-line": "#000000",
        "bomb": "#000000",
        "spark": "#ddaa33",
        "pylon": "#666666",
        "rock": "#7a6a55",
        "rock-ink": "#ffffff",
    },
    "print": {
        "bg": "#ffffff",
        "ink": "#000000",
        "muted": "#333333",
        "board": "#ffffff",
        "grid": "#000000",
        "off": "#000000",
        "off-line": "#ffffff",  # a white edge: neighbouring black cells stay apart on paper (issue 22)
        "last": "#d0d0d0",
        "lastline": "#000000",
        "bonus": "#a8a8a8",
        "eaten": "#000000",
        "red": "#000000",
        "red-line": "#000000",
        "red-mark": "#ffffff",
        "blue": "#ffffff",
        "blue-line": "#000000",
        "blue-mark": "#000000",
        "black": "#000000",
        "black-line": "#000000",
        "black-mark": "#ffffff",
        "white": "#ffffff",
        "white-line": "#000000",
        "white-mark": "#000000",
        "cR": "#404040",
        "cB": "#808080",
        "cG": "#c0c0c0",
        "cY": "#ffffff",
        "cR-ink": "#ffffff",
        "cB-ink": "#ffffff",
        "cG-ink": "#000000",
        "cY-ink": "#000000",
        "piece-line": "#000000",
        "bomb": "#000000",
        "spark": "#ffffff",
        "pylon": "#909090",
        "rock": "#505050",
        "rock-ink": "#ffffff",
    },
}


# A black or blocked cell's edge, where it is light (print: white on black) is drawn wide enough
# to show between two such cells side by side even in a small picture (tests/test_views_print.py).
_OFF_EDGE = {"print": 2.4}


def check_palette(palette: str) -> None:
    if palette not in _COLOURS:
        raise ValueError(f"There is no palette {palette!r}; palettes: {', '.join(PALETTES)}.")


@cache
def stylesheet(palette: str, styles: tuple[Style, ...]) -> str:
    """The one ``<style>`` block: every colour of the picture.  ``styles`` are
    the show's stone classes (``p0``, ``p1``...) with their palette roles
    (``red``, ``black``...) and marks."""
    check_palette(palette)
    c = _COLOURS[palette]
    rules = [
        f".bg{{fill:{c['bg']}}}",
        f".hex,.tile{{fill:{c['board']};stroke:{c['grid']};stroke-width:1.2}}",
        f".off{{fill:{c['off']};stroke:{c['off-line']};stroke-width:{_OFF_EDGE.get(palette, 1.2):g}}}",
        f".last{{fill:{c['last']};stroke:{c['lastline']};stroke-width:3}}",
        f".bonus{{fill:{c['bonus']};stroke:{c['lastline']};stroke-width:3}}",
        f".badge{{fill:{c['ink']};stroke:{c['bg']};stroke-width:1.2}}",
        f".star{{fill:{c['bg']};font-size:10px;text-anchor:middle;dominant-baseline:central}}",
        f".eaten{{fill:none;stroke:{c['eaten']};stroke-width:2.2;stroke-dasharray:4 3}}",
        f".lbl{{fill:{c['ink']};font-size:15px;font-weight:bold;text-anchor:middle;dominant-baseline:central}}",
        f".coord{{fill:{c['muted']};font-size:9px;text-anchor:middle;dominant-baseline:central}}",
        f".title{{fill:{c['ink']};font-size:16px;font-weight:bold}}",
        f".line,.last-move{{fill:{c['ink']};font-size:{TEXT_PX:g}px}}",
        f".turn{{fill:{c['ink']};font-size:{TEXT_PX:g}px;font-weight:bold}}",
        f".result{{fill:{c['ink']};font-size:{TEXT_PX:g}px;font-weight:bold}}",
        f".note{{fill:{c['muted']};font-size:12px}}",
    ]
    for style in styles:
        cls, role = style.name, style.role
        rules.append(f".{cls}{{fill:{c[role]};stroke:{c[role + '-line']};stroke-width:1.5}}")
        if style.mark == "dot":  # one side's stones carry a dot, the other's a ring: never hue alone
            rules.append(f".{cls}-mark{{fill:{c[role + '-mark']};stroke:none}}")
        else:
            rules.append(f".{cls}-mark{{fill:none;stroke:{c[role + '-mark']};stroke-width:2}}")
        rules.append(f".{cls}-coord{{fill:{c[role + '-mark']};font-size:9px;text-anchor:middle;dominant-baseline:central}}")
    for k in "RBGY":
        rules.append(f".x{k}{{fill:{c['c' + k]};stroke:{c['piece-line']};stroke-width:1.2}}")
        rules.append(
            f".t{k}{{fill:{c['c' + k + '-ink']};font-size:17px;font-weight:bold;text-anchor:middle;dominant-baseline:central}}"
        )
    rules += [
        f".spike{{fill:{c['ink']};stroke:none}}",
        f".bomb{{fill:{c['bomb']};stroke:{c['piece-line']};stroke-width:1.2}}",
        f".fuse{{fill:none;stroke:{c['piece-line']};stroke-width:2}}",
        f".spark{{fill:{c['spark']};stroke:{c['piece-line']};stroke-width:1}}",
        f".pylon{{fill:{c['pylon']};stroke:{c['piece-line']};stroke-width:1.2}}",
        f".rock{{fill:{c['rock']};stroke:{c['piece-line']};stroke-width:1.2}}",
        f".sym{{fill:{c['bg']};font-size:13px;font-weight:bold;text-anchor:middle;dominant-baseline:central}}",
        f".symd{{fill:{c['ink']};font-size:13px;font-weight:bold;text-anchor:middle;dominant-baseline:central}}",
        f".shifted{{fill:none;stroke:{c['lastline']};stroke-width:3.5}}",
        f".arrow{{fill:{c['ink']};font-size:12px;font-weight:bold;text-anchor:middle;dominant-baseline:central}}",
        f".barred{{fill:{c['muted']};font-size:15px;text-decoration:line-through;text-anchor:middle;dominant-baseline:central}}",
        f".strike{{stroke:{c['muted']};stroke-width:1.5}}",
    ]
    return "<style>" + "".join(rules) + "</style>"


# -- the information panel --------------------------------------------------------------------


def wrap(lines: Sequence[Line], width: float) -> list[tuple[Line, list[str]]]:
    """Each line with its text broken to fit ``width`` pixels (estimated)."""
    out = []
    for line in lines:
        room = width - 2 * MARGIN - len(line.icons) * 18
        chars = max(20, int(room / _EM.get(line.kind, TEXT_PX * 0.56)))
        out.append((line, _wrap(line.text, chars)))
    return out


def _wrap(text: str, chars: int) -> list[str]:
    """Greedy wrapping at spaces (textwrap's result for plain sentences, several times faster)."""
    if len(text) <= chars:
        return [text]
    lines: list[str] = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= chars:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines or [""]


def panel_height(wrapped: Sequence[tuple[Line, list[str]]]) -> float:
    return sum(len(parts) for _, parts in wrapped) * LINE + (8.0 if wrapped else 0.0)


def scale_text(k: float) -> str:
    """A scale factor for SVG: four decimals at most (two, as coordinates have, would draw a
    large board a pixel or more away from where views.geometry says)."""
    return f"{k:.4f}".rstrip("0").rstrip(".")


def panel_svg(wrapped: Sequence[tuple[Line, list[str]]], top: float, scale: float = 1.0) -> str:
    """The panel's lines from ``top`` down, drawn ``scale`` times their own size
    (the text grows with the picture: :func:`document`)."""
    transform = "" if scale == 1 else f' transform="scale({scale_text(scale)})"'
    parts = [f'<g class="panel"{transform}>']
    y = top / scale + 8.0 + LINE * 0.7
    for line, texts in wrapped:
        x = MARGIN
        for glyph in line.icons:
            parts.append(icon_svg(glyph, x + 7, y - 5))
            x += 18
        for t in texts:
            cls = "last-move" if line.kind == "last" else line.kind
            parts.append(f'<text class="{cls}" x="{num(x)}" y="{num(y)}">{xml(t)}</text>')
            y += LINE
    parts.append("</g>")
    return "".join(parts)


def document(
    width: float,
    height: float,
    palette: str,
    styles: tuple[Style, ...],
    title: str,
    game: str,
    body: Sequence[str],
    panel: Sequence[Line],
    text_scale: float = 1.0,
) -> str:
    """The whole SVG: the board's ``body`` (drawn in a ``width`` x ``height``
    area at the top) and the panel under it, its lines wrapped for a picture
    ``width / text_scale`` wide and drawn ``text_scale`` times their size, so
    the text keeps its share of the picture whatever the board's size."""
    wrapped = wrap(panel, width / text_scale)
    total = height + (panel_height(wrapped) + MARGIN / 2) * text_scale
    w, h = num(width), num(total)
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" ',
            f'font-family="{FONT}, sans-serif" class="umpire {game}">',
            f"<title>{xml(title)}</title>",
            stylesheet(palette, styles),
            f'<rect class="bg" width="{w}" height="{h}"/>',
            *body,
            panel_svg(wrapped, height, text_scale),
            "</svg>",
        ]
    )


def colours(palette: str) -> Mapping[str, str]:
    """A palette's colours by role (for tests and front ends that want them)."""
    check_palette(palette)
    return dict(_COLOURS[palette])
