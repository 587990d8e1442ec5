"""engine/ holds the rules and nothing else: importing every engine module
loads neither Flask, Redis, marshmallow nor the service (DESIGN.md)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import engine

FORBIDDEN = ("flask", "redis", "marshmallow", "werkzeug", "gunicorn", "service", "orjson")


def test_engine_imports_no_io_library() -> None:
    modules = sorted(f"engine.{m.name}" for m in pkgutil.iter_modules(engine.__path__))
    assert {"engine.catchup", "engine.bug", "engine.crystal", "engine.clock"} <= set(modules)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine/ pulled in: {out.stdout.strip()}"
