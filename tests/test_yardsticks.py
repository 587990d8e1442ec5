"""``bench overhead``'s yardsticks beside the app are what BENCHMARKS.md says they are (issue 20, "Cost per
request"): ``bench/unplumbed.py`` plays for real with none of the plumbing, ``bench/emptyview.py`` keeps every
piece of the plumbing and does nothing in ``play``.  Each is the app made by ``create_app`` and then changed, so a
change to how ``create_app`` wraps the app must not leave either measuring something else."""

from __future__ import annotations

import json
import logging
from typing import Any

from engine.registry import get_game
from service import create_app
from service.web import requestlog
from service.web.guard import BodyGuard
from service.web.requestlog import HEADER, OBSERVERS, RequestLog


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
    fresh = create_app({})  # whatever hooks the app has (none, unless RATE_LIMIT is set), it keeps
    for hooks in ("before_request_funcs", "after_request_funcs", "teardown_request_funcs"):
        assert len(getattr(app, hooks).get(None, [])) == len(getattr(fresh, hooks).get(None, []))


def test_the_unplumbed_app_plays_for_real_without_the_plumbing() -> None:
    from bench import unplumbed

    app = unplumbed.app
    answer = app.test_client().post("/v1/games/catchup/play", data=play_body(), content_type="application/json")
    assert answer.status_code == 200 and answer.get_json()["legal"] is True and answer.get_json()["state"]["ply"] == 1
    assert HEADER not in answer.headers  # no request log around it
    assert not any(hooks.get(None) for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs))


def test_each_cut_of_play_stops_after_its_step_and_the_whole_one_is_the_apps() -> None:
    """bench/cutview.py (``bench served_steps``): a cut before ``answer`` answers ``{"ok": true}`` once its step
    ran (a body the step refuses shows how far it got); ``answer`` is the verdict without announcements; ``play``
    is the app's own view, answering what the app answers."""
    from bench import cutview

    body = play_body()
    unknown_move = json.dumps({**json.loads(body), "move": "Z99"}).encode()
    bad_state = json.dumps({**json.loads(body), "state": {"game": "catchup"}}).encode()
    real = create_app({}).test_client().post("/v1/games/catchup/play", data=body, content_type="application/json")

    def ask(cut: str, data: bytes, unplumb: str = "") -> Any:
        client = cutview.make(cut, unplumb).test_client()
        return client.post("/v1/games/catchup/play", data=data, content_type="application/json")

    assert ask("body", b"{not json").get_json() == {"ok": True}  # nothing parsed
    assert ask("parse", b"{not json").status_code == 400 and ask("parse", bad_state).get_json() == {"ok": True}
    assert ask("load", bad_state).status_code == 422 and ask("load", unknown_move).get_json() == {"ok": True}
    assert ask("rules", body).get_json() == {"ok": True}  # an illegal move is a verdict, not an error: nothing to see
    answer = ask("answer", body).get_json()
    assert answer["legal"] is True and answer["announcements"] == [] and answer["state"] == real.get_json()["state"]
    whole = ask("play", body)
    assert whole.get_json() == real.get_json() and whole.get_json()["announcements"]


def test_each_piece_of_plumbing_is_taken_out_alone() -> None:
    from bench import cutview

    body = play_body()
    for piece, guarded, logged in (("guard", False, True), ("log", True, False), ("all", False, False)):
        app = cutview.make("body", piece)
        assert isinstance(app.wsgi_app, BodyGuard) is guarded, piece
        answer = app.test_client().post("/v1/games/catchup/play", data=body, content_type="application/json")
        assert answer.get_json() == {"ok": True} and (HEADER in answer.headers) is logged, piece
    app = cutview.make("body", "metrics")
    assert app.extensions[OBSERVERS] == [] and isinstance(app.wsgi_app, BodyGuard)
    level = requestlog.access.level
    try:
        cutview.make("body", "line")
        assert not requestlog.access.isEnabledFor(logging.INFO)
    finally:
        requestlog.access.setLevel(level)


def test_the_instructions_bench_serves_each_of_its_servers_as_served_and_refuses_a_wrong_answer(monkeypatch: Any) -> None:
    """``bench instructions``' child (what cachegrind watches, run here without it): each server answers every
    request 200 through its whole WSGI stack, one log line each; a server answering otherwise stops the bench
    rather than counting an error's cost."""
    import pytest

    from bench import bench_instructions

    monkeypatch.setattr(bench_instructions, "WARM", 3)
    for kind in ("bare", "body", "answer", "play"):
        bench_instructions.child(kind, 2)
    monkeypatch.setattr(get_game("catchup"), "load", lambda data: (_ for _ in ()).throw(RuntimeError("broken")))
    with pytest.raises(SystemExit, match="500"):
        bench_instructions.child("play", 1)
