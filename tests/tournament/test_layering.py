"""umpire/ is a client like any other: nothing in engine/ or service/ imports it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_and_service_never_import_umpire() -> None:
    offenders = []
    for package in ("engine", "service"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "umpire"]
    assert not offenders, offenders


def test_bots_live_outside_engine_and_service() -> None:
    import umpire.bots

    assert Path(umpire.bots.__file__).resolve().parent == ROOT / "umpire" / "bots"
