"""``bench overhead``'s yardsticks beside the app are what BENCHMARKS.md says they are (issue 20, "Cost per
request"): ``bench/unplumbed.py`` plays for real with none of the plumbing, ``bench/emptyview.py`` keeps every
piece of the plumbing and does nothing in ``play``.  Each is the app made by ``create_app`` and then changed, so a
change to how ``create_app`` wraps the app must not leave either measuring something else."""

from __future__ import annotations

import json

from engine.registry import get_game
from service import create_app
from service.web.guard import BodyGuard
from service.web.requestlog import HEADER, RequestLog


def play_body() -> bytes:
    g = get_game("catchup")
    return json.dumps({"state": g.dump(g.new({"size": 5})), "move": "E5"}).encode()


def test_the_empty_view_keeps_the_plumbing_and_does_nothing() -> None:
    from bench import emptyview

    app = emptyview.app
    assert isinstance(app.wsgi_app, BodyGuard) and isinstance(app.wsgi_app.app, RequestLog)
    answer = app.test_client().post("/v1/games/catchup/play", data=play_body(), content_type="application/json")
    assert answer.status_code == 200 and answer.get_json() == {"ok": True}  # no verdict: nothing was judged
    assert HEADER in answer.headers and answer.headers["X-Content-Type-Options"] == "nosniff"  # the request log's
    fresh = create_app({})  # whatever hooks the app has (flask-limiter's, when a budget asks for them), it keeps
    for hooks in ("before_request_funcs", "after_request_funcs", "teardown_request_funcs"):
        assert len(getattr(app, hooks).get(None, [])) == len(getattr(fresh, hooks).get(None, []))
    assert "umpire.limiter" in app.extensions


def test_the_unplumbed_app_plays_for_real_without_the_plumbing() -> None:
    from bench import unplumbed

    app = unplumbed.app
    answer = app.test_client().post("/v1/games/catchup/play", data=play_body(), content_type="application/json")
    assert answer.status_code == 200 and answer.get_json()["legal"] is True and answer.get_json()["state"]["ply"] == 1
    assert HEADER not in answer.headers  # no request log around it
    assert not any(hooks.get(None) for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs))
