"""service/web/context.py: the app, its settings and the request without Flask's proxies (issue 20, "Cost per
request"), the same objects the proxies give, and the proxies' own refusal outside a context."""

from __future__ import annotations

import pytest
from flask import current_app, request

from service import create_app
from service.web import context


def test_the_app_its_settings_and_the_request_are_the_ones_flasks_proxies_give() -> None:
    one, other = create_app({"STATE_SECRET": "one"}), create_app({"STATE_SECRET": "two"})
    for app in (one, other):
        with app.test_request_context("/v1/games", method="POST"):
            assert context.app() is current_app._get_current_object() is app  # type: ignore[attr-defined]
            assert context.config() is app.config and context.config()["STATE_SECRET"] == app.config["STATE_SECRET"]
            assert context.current_request() is request._get_current_object()  # type: ignore[attr-defined]
            assert context.current_request().method == "POST"
        with app.app_context():  # an app without a request (a command, the sweeper)
            assert context.config() is app.config
            with pytest.raises(RuntimeError, match="request context"):
                context.current_request()


def test_outside_any_context_each_refuses_as_flask_does() -> None:
    for read in (context.app, context.config, context.current_request):
        with pytest.raises(RuntimeError, match="outside of"):
            read()
