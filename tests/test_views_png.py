"""PNG pictures: they decode, take the width asked for, and show their text
(drawn with the fonts shipped in views/fonts, no system font)."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from viewcases import catchup_worked_example, crystal_anomalies

import views
from views import raster as png_module


def image(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im.convert("L")


def dark_pixels(im: Image.Image) -> int:
    return sum(im.histogram()[:110])  # grey levels below 110: ink, not board or background


def dark(im: Image.Image, x: float, y: float, r: int = 8) -> int:
    """Dark pixels in the box of half-side ``r`` around (x, y)."""
    return dark_pixels(im.crop((int(x) - r, int(y) - r, int(x) + r, int(y) + r)))


def test_png_decodes_at_the_pictures_size() -> None:
    _, events, state = catchup_worked_example()[1]
    svg = views.svg(state, events=events)
    width, height = (float(v) for v in re.findall(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', svg)[0])
    data = views.png(state, events=events)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    assert abs(im.width - width) <= 1 and abs(im.height - height) <= 1


@pytest.mark.parametrize("width", [200, 640, 1200])
def test_width_scales_the_picture(width: int) -> None:
    _, events, state = crystal_anomalies()
    im = Image.open(io.BytesIO(views.png(state, events=events, width=width, palette="print")))
    natural = Image.open(io.BytesIO(views.png(state, events=events)))
    assert im.width == width
    assert abs(im.height - natural.height * width / natural.width) <= 1


def test_text_is_drawn() -> None:
    # The row letters (dark pixels where geometry puts them) and the panel's lines; without the
    # labels the same places are blank.
    _, events, state = catchup_worked_example()[1]
    geo = views.geometry("catchup", state["options"])
    svg = views.svg(state, events=events)
    im = image(png_module.render(svg))
    bare = image(png_module.render(re.sub(r'<g class="labels">.*?</g>', "", svg)))
    for label in geo["labels"]:
        assert dark(im, label["x"], label["y"]) > 8, label
        assert dark(bare, label["x"], label["y"]) == 0, label
    panel_top = int(geo["height"])
    title = im.crop((0, panel_top, im.width, panel_top + 30))
    assert dark_pixels(title) > 200  # "Catchup (standard), side 5, ply 2" in bold


def test_fonts_ship_with_the_package() -> None:
    files = png_module.font_files()
    assert [f.rsplit("/", 1)[-1] for f in files] == ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"]
    assert all("views/fonts" in f.replace("\\", "/") for f in files)


def test_bad_width() -> None:
    _, _, state = catchup_worked_example()[0]
    with pytest.raises(ValueError, match="width"):
        views.png(state, width=0)


def test_a_picture_asked_for_again_comes_from_the_cache() -> None:
    _, events, state = catchup_worked_example()[1]
    svg = views.svg(state, events=events)
    png_module.render_cached.cache_clear()
    first = png_module.render(svg, 300)
    again = png_module.render(views.svg(state, events=events), 300)  # the same text, another string
    assert again == first and png_module.render_cached.cache_info().hits == 1
    assert png_module.render(svg) != first  # another width is another picture
