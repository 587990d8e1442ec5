"""Every error code is listed, with its status, in openapi.yaml: the codes the
service raises (``ApiError("code", ...)``, Werkzeug's statuses, the
engine's field errors) are those of service/web/errors.py ``ERROR_CODES``, the one
table that gives each its status (no raise site names a status), the codes
of illegal moves those of engine/errors.py ``MOVE_ERROR_CODES``, and the spec's
tables are written from them.  Found in the source, so a new code cannot be
left out (nor a stale one kept)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from engine.errors import MOVE_ERROR_CODES
from engine.registry import GAMES, MOVE_CODES
from service.web.errors import _HTTP_CODES, ERROR_CODES, ApiError

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


def raised_api_errors() -> set[str]:
    calls = [c for c in _calls("service") if _name(c) in ("ApiError", "error_response")]
    # the handlers pass on what they caught (err.code): those are the codes found elsewhere
    found = {_const(c.args[0]) for c in calls if c.args and isinstance(c.args[0], ast.Constant)}
    assert len(found) >= 10
    found |= {code for code, _ in _HTTP_CODES.values()}
    found |= {"bad_state", "bad_options", "unknown_game", "internal_error", "invalid_body"}
    found |= {"bad_record"}  # the engine's FieldError of a record format (engine/games/catchup/littlegolem.py)
    return found


def test_no_raise_site_names_a_status() -> None:
    """A status is the table's to give: an ``ApiError`` or ``error_response`` whose first argument is a number
    would be a second place that maps a failure to HTTP."""
    calls = [c for c in _calls("service") if _name(c) in ("ApiError", "error_response")]
    numbered = [
        ast.unparse(c) for c in calls if c.args and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, int)
    ]
    assert numbered == []


def test_werkzeugs_statuses_have_the_tables_codes() -> None:
    for status, (code, _) in _HTTP_CODES.items():
        assert ERROR_CODES[code][0] == status, code


def test_a_code_not_in_the_table_is_refused_where_it_is_raised() -> None:
    with pytest.raises(ValueError, match="not in ERROR_CODES"):
        ApiError("no_such_code", "A code nobody listed.")
    assert ApiError("stale_ply", "x").status == 409


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
    assert raised_api_errors() == set(ERROR_CODES)


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


def test_the_contracts_example_codes_of_an_illegal_move_are_given() -> None:
    """API.md (the contract) names stable codes of a verdict by example: ``occupied``, ``too_many_stones``,
    ``would_merge``, ``too_large``, ``must_eat``, ``not_your_file``.  A client switching on them must meet
    them: each is a code some game gives (Crystal's barred file was ``file_barred``, a code the contract never named)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "API.md").read_text(encoding="utf-8")
    start = text.index("`error.code` is a stable")
    named = re.findall(r"`([a-z_]+)`", text[start : text.index("…", start)])
    assert "not_your_file" in named and len(named) >= 6
    assert set(named) <= set(MOVE_CODES) | set(MOVE_ERROR_CODES)
