"""views/ is pure like engine/: importing every views module loads neither
Flask, Redis, marshmallow nor anything of the service (it may use engine/)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import views

FORBIDDEN = ("flask", "redis", "marshmallow", "werkzeug", "gunicorn", "service", "orjson")


def test_views_import_no_io_library_and_no_service() -> None:
    modules = sorted(f"views.{m.name}" for m in pkgutil.iter_modules(views.__path__))
    assert {"views.catchup", "views.bug", "views.crystal", "views.plur", "views.too", "views.hexsvg"} <= set(modules)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"views/ pulled in: {out.stdout.strip()}"
