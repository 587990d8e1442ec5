"""SVG to PNG in-process with resvg (the ``resvg-py`` package), drawing text
with the DejaVu fonts shipped in ``views/fonts`` (and no system fonts), so a
picture looks the same on any machine, a bare container included."""

from __future__ import annotations

from functools import cache
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


def render(svg: str, width: int | None = None) -> bytes:
    """PNG bytes of ``svg``, scaled to ``width`` pixels when given (height follows)."""
    if width is not None and (isinstance(width, bool) or not isinstance(width, int) or not 16 <= width <= 8192):
        raise ValueError(f"width must be a whole number of pixels from 16 to 8192, not {width!r}.")
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, skip_system_fonts=True, font_files=font_files()))
