"""Issue 20, cost per request: what the shortcuts of the request path keep (the figures are in BENCHMARKS.md,
measured by ``python -m bench overhead``, never here)."""

from __future__ import annotations

from typing import Any

import pytest

import service
from service import create_app


def test_a_hook_is_asked_whether_it_is_async_once_not_on_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    real = service.iscoroutinefunction  # type: ignore[attr-defined]

    def counting(func: Any) -> bool:
        asked.append(func)
        return real(func)

    monkeypatch.setattr(service, "iscoroutinefunction", counting)
    app = create_app({})
    client = app.test_client()
    assert client.get("/v1/games").status_code == 200
    first = len(asked)
    assert first > 0  # the hooks and the view were asked the first time
    for _ in range(3):
        assert client.get("/v1/games").status_code == 200
    assert len(asked) == first


def test_an_async_function_is_still_wrapped_as_flask_does() -> None:
    app = create_app({})

    async def view() -> str:  # pragma: no cover - never awaited here
        return "x"

    def plain() -> str:
        return "x"

    assert app.ensure_sync(plain) is plain
    # Flask wraps an async function with asgiref's async_to_sync (not installed here: Flask says so);
    # either way it is never handed back as it is, the first time or the second.
    for _ in range(2):
        try:
            wrapped = app.ensure_sync(view)
        except RuntimeError as e:
            assert "async" in str(e)
        else:
            assert wrapped is not view


def test_functions_made_per_request_do_not_grow_the_memo_past_its_size() -> None:
    app = create_app({})
    for _ in range(app.MEMO_SIZE + 50):  # type: ignore[attr-defined]

        def fresh() -> None:
            return None

        assert app.ensure_sync(fresh) is fresh
    assert len(app._plain) <= app.MEMO_SIZE  # type: ignore[attr-defined]
