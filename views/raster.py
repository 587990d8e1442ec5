"""SVG to PNG in-process with resvg (the ``resvg-py`` package), drawing text
with the DejaVu fonts shipped in ``views/fonts`` (and no system fonts), so a
picture looks the same on any machine, a bare container included.

resvg takes tens of milliseconds for one of our pictures, most of it
anti-aliased shapes and text and its own PNG encoding (bench/bench_png.py
measures each part), so rendered pictures are kept by their SVG text."""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

import resvg_py

FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")


@cache
def font_files() -> list[str]:
    """Paths of the shipped fonts (package data, see pyproject.toml)."""
    folder = resources.files("views") / "fonts"
    paths = []
    for name in FONT_FILES:
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"The font {name} is missing from views/fonts: reinstall the package.")
        paths.append(str(path))
    return paths


CACHED = 128  # pictures kept (about 70 KB each at the default size): the last ones asked for


def render(svg: str, width: int | None = None) -> bytes:
    """PNG bytes of ``svg``, scaled to ``width`` pixels when given (height follows).

    The same SVG text gives the same bytes, so the last pictures are kept,
    found by that text (:func:`render_cached`): a picture asked for again - a
    match's position polled by its viewers, a post's link followed - costs a
    lookup instead of resvg's tens of milliseconds (bench/bench_png.py)."""
    if width is not None and (isinstance(width, bool) or not isinstance(width, int) or not 16 <= width <= 8192):
        raise ValueError(f"width must be a whole number of pixels from 16 to 8192, not {width!r}.")
    return render_cached(svg, width)


@lru_cache(maxsize=CACHED)
def render_cached(svg: str, width: int | None) -> bytes:
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, skip_system_fonts=True, font_files=font_files()))
