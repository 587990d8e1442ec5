"""Where a PNG picture's time goes: ``python -m bench png``.

The same mid-game Catchup position (side 5, the picture ``views.png`` draws,
400 px wide) rendered by resvg (``resvg_py``) in variants that each take one
thing away or change one setting, so the difference says what that thing
costs: the text (and the fonts given per call), the strokes, the CSS
``<style>`` block against the same colours written as attributes, hexagons
drawn once and placed with ``<use>``, anti-aliasing (``shape_rendering``,
``text_rendering``), the picture's pixel size, and a blank picture of the
same size (the floor: the pixel buffer and the PNG encoding, which resvg_py
does itself, with no setting for it).  Our pictures use no filter, gradient,
mask or image, so none is measured.

Then the cache (``views.raster``): a picture already rendered, found by its
SVG text.

Figures are CPU time of this process per picture, the best of several runs
(steadier than wall time on a shared machine).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

import resvg_py

import views
from bench.bench_render import engine_position
from views import raster

REPEAT = 12


def cpu_ms(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    """CPU time of one call in ms, the best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1000


def inline_css(svg: str) -> str:
    """The same picture with every class's declarations written as presentation attributes, and no <style>."""
    style = re.search(r"<style>(.*?)</style>", svg)
    assert style is not None
    rules: dict[str, list[str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", style.group(1)):
        for cls in selector.split(","):
            rules.setdefault(cls.strip().lstrip("."), []).append(body)

    def attributes(m: re.Match[str]) -> str:
        props: dict[str, str] = {}
        for cls in m.group(1).split():
            for body in rules.get(cls, []):
                for decl in body.split(";"):
                    if ":" in decl:
                        key, value = decl.split(":", 1)
                        props[key.strip()] = value.strip()
        return " ".join(f'{k}="{v}"' for k, v in props.items())

    return re.sub(r'class="([^"]*)"', attributes, svg.replace(style.group(0), ""))


def with_use(svg: str) -> str:
    """Each empty hexagon as a <use> of one hexagon defined once."""
    outlines = re.findall(r'<polygon class="hex" points="([^"]*)"/>', svg)
    points = [tuple(float(v) for v in p.split(",")) for p in outlines[0].split()]
    cx, cy = sum(x for x, _ in points) / 6, sum(y for _, y in points) / 6
    shape = " ".join(f"{x - cx:.2f},{y - cy:.2f}" for x, y in points)

    def use(m: re.Match[str]) -> str:
        pts = [tuple(float(v) for v in p.split(",")) for p in m.group(1).split()]
        return f'<use href="#h" x="{sum(x for x, _ in pts) / 6:.2f}" y="{sum(y for _, y in pts) / 6:.2f}"/>'

    svg = svg.replace("</style>", f'</style><defs><polygon id="h" class="hex" points="{shape}"/></defs>', 1)
    return re.sub(r'<polygon class="hex" points="([^"]*)"/>', use, svg)


def main() -> None:
    state, events, _ = engine_position("catchup", {"size": 5}, 20, random.Random(2024))
    svg = views.svg(state, events=events)
    fonts = raster.font_files()
    size = re.search(r'width="([\d.]+)" height="([\d.]+)"', svg)
    assert size is not None
    w, h = size.groups()
    no_text = re.sub(r"<text[^>]*>.*?</text>", "", svg)
    blank = f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="{w}" height="{h}" fill="#fff"/></svg>'
    counts = f"{len(svg):,} bytes, {svg.count('<text')} texts, {svg.count('<polygon')} polygons, {svg.count('<circle')} circles"
    print(f"Catchup side 5, mid-game: {w}x{h} px; {counts}")

    def render(text: str, **options: object) -> Callable[[], object]:
        return lambda: resvg_py.svg_to_bytes(svg_string=text, skip_system_fonts=True, **options)  # type: ignore[arg-type]

    variants: list[tuple[str, Callable[[], object]]] = [
        ("as served (views.raster, fonts given per call)", render(svg, font_files=fonts)),
        ("no text", render(no_text, font_files=fonts)),
        ("no text, no fonts given", render(no_text)),
        ("no strokes", render(re.sub(r"stroke-width:[0-9.]+", "stroke-width:0", svg), font_files=fonts)),
        ("CSS as attributes, no <style>", render(inline_css(svg), font_files=fonts)),
        ("empty hexagons as <use>", render(with_use(svg), font_files=fonts)),
        ("shape_rendering optimize_speed (no AA)", render(svg, font_files=fonts, shape_rendering="optimize_speed")),
        ("shape_rendering crisp_edges", render(svg, font_files=fonts, shape_rendering="crisp_edges")),
        ("text_rendering optimize_speed", render(svg, font_files=fonts, text_rendering="optimize_speed")),
        ("width 200 (a quarter of the pixels)", render(svg, font_files=fonts, width=200)),
        ("width 800 (four times the pixels)", render(svg, font_files=fonts, width=800)),
        ("a blank picture of the same size (the floor)", render(blank)),
    ]
    base = 0.0
    variants[0][1]()  # the first picture of the process also reads the font files
    print(f"{'variant':<48} {'ms/PNG':>8} {'vs served':>10}")
    for label, fn in variants:
        ms = cpu_ms(fn)
        base = base or ms
        print(f"{label:<48} {ms:>8.2f} {ms / base:>9.2f}x", flush=True)

    raster.render_cached.cache_clear()
    cold = cpu_ms(lambda: (raster.render_cached.cache_clear(), raster.render(svg)), repeat=5)
    warm = cpu_ms(lambda: raster.render(svg), repeat=200)
    both = cpu_ms(lambda: raster.render(views.svg(state, events=events)), repeat=200)
    print(f"{'views.raster.render, not cached':<48} {cold:>8.2f}")
    print(f"{'views.raster.render, cached (same SVG text)':<48} {warm:>8.3f}")
    print(f"{'views.svg + cached render (a repeated PNG)':<48} {both:>8.3f}")


if __name__ == "__main__":
    main()
