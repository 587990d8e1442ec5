"""engine/ holds the rules and nothing else, and views/ is pure like it (it
may use engine/): importing every module of either loads neither Flask,
Redis, marshmallow nor anything of the service (docs/DESIGN.md "The engine is pure")."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("flask", "redis", "marshmallow", "werkzeug", "gunicorn", "service", "orjson")


@pytest.mark.parametrize(
    ("package", "expected"),
    [
        (
            "engine",
            {"games.catchup.rules", "games.bug.rules", "games.crystal.rules", "games.catchup.show", "show", "clock", "registry"},
        ),
        ("views", {"hexsvg", "gridsvg", "glyphs", "svgkit", "raster"}),
    ],
)
def test_package_imports_no_io_library_and_no_service(package: str, expected: set[str]) -> None:
    path = importlib.import_module(package).__path__
    modules = sorted(m.name for m in pkgutil.walk_packages(path, f"{package}."))
    assert {f"{package}.{name}" for name in expected} <= set(modules), modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{package}/ pulled in: {out.stdout.strip()}"
