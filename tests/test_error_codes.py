"""Every error code is listed, with its status, in openapi.yaml: the codes the
service raises (``ApiError(status, "code", ...)``, Werkzeug's statuses, the
engine's field errors) are those of service/web/errors.py ``ERROR_CODES``, the codes
of illegal moves those of engine/errors.py ``MOVE_ERROR_CODES``, and the spec's
tables are written from them.  Found in the source, so a new code cannot be
left out (nor a stale one kept)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from engine.errors import MOVE_ERROR_CODES
from engine.registry import GAMES, MOVE_CODES
from service.web.errors import _HTTP_CODES, ERROR_CODES

ROOT = Path(__file__).resolve().parent.parent


def _calls(folder: str) -> list[ast.Call]:
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        out += [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    return out


def _name(call: ast.Call) -> str | None:
    return getattr(call.func, "id", None) or getattr(call.func, "attr", None)


def _const(node: ast.expr | None) -> Any:
    assert isinstance(node, ast.Constant), ast.dump(node) if node else None
    return node.value


def raised_api_errors() -> set[tuple[int, str]]:
    calls = [c for c in _calls("service") if _name(c) in ("ApiError", "error_response")]
    # the handlers pass on what they caught (err.status, err.code, code): those are the codes found elsewhere
    found = {(_const(c.args[0]), _const(c.args[1])) for c in calls if all(isinstance(a, ast.Constant) for a in c.args[:2])}
    assert len(found) >= 10
    found |= {(status, code) for status, (code, _) in _HTTP_CODES.items()}
    found |= {(422, "bad_state"), (422, "bad_options"), (404, "unknown_game"), (500, "internal_error"), (422, "invalid_body")}
    found |= {(422, "bad_record")}  # the engine's FieldError of a record format (engine/games/catchup/littlegolem.py)
    return found


def raised_move_codes(folder: str = "engine") -> set[str]:
    codes = set()
    for call in _calls(folder):
        if _name(call) in ("IllegalMove", "MoveError"):
            codes.add(_const(call.args[0]))
        elif _name(call) == "InvalidMove":
            code = next((k.value for k in call.keywords if k.arg == "code"), call.args[1] if len(call.args) > 1 else None)
            codes.add("bad_notation" if code is None else _const(code))
    return codes


def test_every_error_the_service_raises_is_listed_with_its_status() -> None:
    listed = {(status, code) for code, (status, _) in ERROR_CODES.items()}
    assert raised_api_errors() == listed


def test_every_code_of_an_illegal_move_is_listed() -> None:
    assert raised_move_codes() == set(MOVE_CODES)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_declares_the_codes_it_gives_in_its_own_room(name: str) -> None:
    """The codes raised in a game's folder are the common ones and those it declares
    (``Game.move_codes``): a new game's codes are written in its room, not elsewhere."""
    raised = raised_move_codes(f"engine/games/{name}")
    assert raised <= set(MOVE_ERROR_CODES) | set(GAMES[name].move_codes)
    assert set(GAMES[name].move_codes) <= raised  # and no code declared that it never gives


def test_the_spec_lists_every_code(spec: dict[str, Any]) -> None:
    text = spec["info"]["description"]
    for code, (status, _) in ERROR_CODES.items():
        assert f"| `{code}` | {status} |" in text
    for code in MOVE_CODES:
        assert f"| `{code}` |" in text
    for needle in ("MAX_BODY_BYTES", "16 levels", "1000 characters", "10000 items", "1000 members", "Idempotency-Key", "1000000"):
        assert needle in text, needle
    assert "200" in text and "422" in text and "Illegal moves: 200 in `play`, 422 in a match" in text


def test_each_status_of_an_operation_names_its_codes(spec: dict[str, Any]) -> None:
    """A documented error response says which codes it carries."""
    responses = spec["components"]["responses"]
    for name, response in responses.items():
        if "content" not in response:  # 304: no body, so no code
            continue
        codes = [code for code in ERROR_CODES if f"`{code}`" in response["description"]]
        assert codes, name
