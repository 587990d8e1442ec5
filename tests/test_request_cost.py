"""What the request path keeps, through public behaviour only (issue 20, "Cost per request"; issue 33: the
plumbing through the libraries' documented interfaces): budgets charged by the views that have one and by no
other request, one middleware for what every answer carries, every answer timed, no sessions.  The figures
are in BENCHMARKS.md, measured by ``python -m bench overhead``, never here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import create_app
from service.web import http
from service.web.errors import ApiError


def test_a_view_with_a_budget_answers_its_headers_and_deducts() -> None:
    # RENDER_RATE_LIMIT's budget is charged by the view itself (service/web/ratelimit.py ``budgeted``, the limits
    # library), its headers as flask-limiter writes them.
    app = create_app({"RENDER_RATE_LIMIT": "2/minute", "PNG_RATE_LIMIT": "off"})
    client = app.test_client()
    state = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
    body = {"state": state, "format": "text"}
    first = client.post("/v1/games/catchup/render", json=body)
    assert first.status_code == 200
    assert first.headers["X-RateLimit-Limit"] == "2"
    assert first.headers["X-RateLimit-Remaining"] == "1"
    assert int(first.headers["X-RateLimit-Reset"]) > 0
    assert client.post("/v1/games/catchup/render", json=body).headers["X-RateLimit-Remaining"] == "0"
    refused = client.post("/v1/games/catchup/render", json=body)
    assert refused.status_code == 429
    assert refused.get_json()["error"] == {
        "code": "rate_limited",
        "message": "Too many requests: wait for Retry-After seconds, then send again.",
        "details": {"limit": "2 per 1 minute"},
    }
    assert int(refused.headers["Retry-After"]) >= 1 and refused.headers["X-RateLimit-Remaining"] == "0"


def test_with_only_budgets_no_request_but_the_budgeted_ones_meets_a_limiter() -> None:
    """The budgets of a few views are charged by those views, so the app registers no hook of any kind,
    flask-limiter's or another, and makes no flask-limiter: every other request goes as through a bare Flask
    app.  A budgeted view's answer that is an error (its body refused) still carries the budget's headers,
    without ``Retry-After``."""
    app = create_app({"RENDER_RATE_LIMIT": "5/minute", "PNG_RATE_LIMIT": "off"})
    every = (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs, app.url_value_preprocessors)
    assert [f for funcs in every for f in funcs.get(None, [])] == []
    assert "limiter" not in app.extensions  # flask-limiter is made only for RATE_LIMIT
    client = app.test_client()
    refused = client.post("/v1/games/catchup/render", json={"state": {"game": "catchup"}, "format": "text"})
    assert refused.status_code == 422
    assert refused.headers["X-RateLimit-Limit"] == "5" and refused.headers["X-RateLimit-Remaining"] == "4"
    assert "Retry-After" not in refused.headers
    assert not any(h.startswith("X-RateLimit") for h, _ in client.get("/v1/games").headers.items())


def test_a_budget_of_two_items_tells_the_one_with_least_left() -> None:
    app = create_app({"RENDER_RATE_LIMIT": "100/hour;3/minute", "PNG_RATE_LIMIT": "off"})
    client = app.test_client()
    state = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
    body = {"state": state, "format": "text"}
    answers = [client.post("/v1/games/catchup/render", json=body) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a.headers["X-RateLimit-Limit"] for a in answers] == ["3"] * 4  # the minute's: fewer left than the hour's
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert answers[3].get_json()["error"]["details"] == {"limit": "3 per 1 minute"}


def test_rate_limit_puts_its_headers_on_every_answer_and_retry_after_on_refusals_only() -> None:
    client = create_app({"RATE_LIMIT": "2/minute"}).test_client()
    answers = [client.get("/v1/games") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert [a.headers["X-RateLimit-Limit"] for a in answers] == ["2"] * 3
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["1", "0", "0"]
    assert ["Retry-After" in a.headers for a in answers] == [False, False, True]


# The quick look at a body's limits (http.within_limits) must refuse exactly what the walk that names the field
# (http.check_limits) refuses: tried on small limits, where random bodies reach them.
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_json_values)
def test_the_quick_look_at_a_bodys_limits_agrees_with_the_walk_that_names_the_field(data: Any) -> None:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in (("MAX_DEPTH", 3), ("MAX_STRING_CHARS", 3), ("MAX_ARRAY_ITEMS", 3), ("MAX_OBJECT_MEMBERS", 3)):
            mp.setattr(http, name, value)
        try:
            http.check_limits(data)
        except ApiError:
            refused = True
        else:
            refused = False
        assert http.within_limits(data) is not refused


def test_a_body_at_the_limits_passes_and_one_past_them_is_refused() -> None:
    deep: Any = "x" * http.MAX_STRING_CHARS
    for _ in range(http.MAX_DEPTH):
        deep = [deep]
    assert http.within_limits(deep)
    assert not http.within_limits([deep])
    assert not http.within_limits({"a": ["x" * (http.MAX_STRING_CHARS + 1)]})
    assert not http.within_limits({"k" * (http.MAX_STRING_CHARS + 1): 1})
    assert not http.within_limits({"a": list(range(http.MAX_ARRAY_ITEMS + 1))})
    assert not http.within_limits({"a": {str(i): i for i in range(http.MAX_OBJECT_MEMBERS + 1)}})


def _count(method: str, route: str, status: str) -> float:
    from prometheus_client import REGISTRY

    value = REGISTRY.get_sample_value(
        "umpire_http_request_duration_seconds_count", {"method": method, "route": route, "status": status}
    )
    return value or 0.0


def test_every_request_is_timed_by_route_and_status_from_the_request_logs_start() -> None:
    client = create_app({}).test_client()
    games, missing, wrong = _count("GET", "/v1/games", "200"), _count("GET", "(none)", "404"), _count("PUT", "(none)", "405")
    for _ in range(3):
        assert client.get("/v1/games").status_code == 200
    assert client.get("/nowhere").status_code == 404
    assert client.put("/v1/games").status_code == 405
    assert _count("GET", "/v1/games", "200") == games + 3
    assert _count("GET", "(none)", "404") == missing + 1
    assert _count("PUT", "(none)", "405") == wrong + 1
    before = _count("GET", "/metrics", "200")
    assert client.get("/metrics").status_code == 200
    assert _count("GET", "/metrics", "200") == before  # the scrape itself is not counted


def test_a_body_the_guard_read_is_parsed_from_its_bytes_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """service/web/guard.py reads every body (within its deadline) before the app runs; ``json_body`` parses
    those bytes rather than reading the stream a second time through Werkzeug."""
    from werkzeug.wrappers import Request

    client = create_app({"TESTING": True}).test_client()

    def no_second_read(self: Any, *args: Any, **kwargs: Any) -> bytes:
        raise AssertionError("the body was read again")

    monkeypatch.setattr(Request, "get_data", no_second_read)
    resp = client.post("/v1/games/catchup/new", json={"options": {"size": 3}})
    assert resp.status_code == 200 and resp.json["state"]["options"]["size"] == 3
    # Refusals still name what they name: the same checks on the same bytes.
    dup = client.post("/v1/games/catchup/new", data=b'{"options": {}, "options": {}}', content_type="application/json")
    assert dup.status_code == 400 and dup.json["error"]["code"] == "duplicate_key"


def test_what_every_answer_gets_is_given_around_the_app_not_by_flask_hooks() -> None:
    """The request id, ``nosniff``, the log line and the figures come from one WSGI middleware
    (service/web/requestlog.py ``RequestLog``), not from Flask hooks each reaching ``request`` and ``g``
    through their proxies (about a fifth of ``GET /v1/games`` through gunicorn, BENCHMARKS.md): the app
    registers no hook at all by default, and every kind of answer still gets them all."""
    app = create_app({})
    every = (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs, app.url_value_preprocessors)
    assert [f for funcs in every for f in funcs.get(None, [])] == []

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("a view that fails")

    client = app.test_client()
    answers = {
        "a view's": client.get("/v1/games"),
        "a conditional": client.get("/v1/games", headers={"If-None-Match": client.get("/v1/games").headers["ETag"]}),
        "routing's": client.get("/nowhere"),
        "a method's": client.put("/v1/games"),
        "a refusal's": client.post("/v1/games/catchup/new", data="{", content_type="application/json"),
        "a failure's": client.get("/boom"),
    }
    assert [r.status_code for r in answers.values()] == [200, 304, 404, 405, 400, 500]
    for name, r in answers.items():
        assert len(r.headers.getlist("X-Request-ID")) == 1 and len(r.headers["X-Request-ID"]) == 32, name
        assert r.headers.getlist("X-Content-Type-Options") == ["nosniff"], name
    assert _count("GET", "/boom", "500") == 1  # a failed answer is timed under its route


FORKED = r"""
import json, os, sys
from prometheus_client import CollectorRegistry, multiprocess
from service.web import metrics, requestlog

child = metrics.REQUESTS.labels("GET", "/fork", "200")
child.observe(0.001)
ids = [requestlog.new_id() for _ in range(3)]
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # the child: its own figures, its own ids
    child.observe(0.001)
    child.observe(0.001)
    os.write(write, json.dumps([requestlog.new_id() for _ in range(3)]).encode())
    os._exit(0)
os.waitpid(pid, 0)
child_ids = json.loads(os.read(read, 65536))
parent_ids = [requestlog.new_id() for _ in range(3)]
registry = CollectorRegistry()
multiprocess.MultiProcessCollector(registry)
labels = {"method": "GET", "route": "/fork", "status": "200"}
count = registry.get_sample_value("umpire_http_request_duration_seconds_count", labels)
files = sorted(os.listdir(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
print(json.dumps({"parent": os.getpid(), "child": pid, "files": files, "count": count,
                  "ids": ids + parent_ids, "child_ids": child_ids}))
"""


def test_a_forked_worker_keeps_its_own_figures_and_ids(tmp_path: Path) -> None:
    """prometheus_client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``) as gunicorn forks its workers: the
    child's figures go to a file of its own and ``MultiProcessCollector`` sums them with the parent's; its
    request ids are not the parent's."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", FORKED], env=env, capture_output=True, text=True, timeout=60, cwd=Path(__file__).parent.parent
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert f"histogram_{got['parent']}.db" in got["files"] and f"histogram_{got['child']}.db" in got["files"]
    assert got["count"] == 3.0  # one observation in the parent, two in the child
    ids = got["ids"] + got["child_ids"]
    assert len(set(ids)) == len(ids) and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_no_request_opens_or_saves_a_session_and_writing_one_fails_as_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service keeps no sessions: every request reads the one null session (no signing key looked up, no
    session made), nothing is saved, and a write fails as Flask's own null session fails without SECRET_KEY."""
    from flask import session
    from flask.sessions import NullSession, SecureCookieSessionInterface

    app = create_app({})
    monkeypatch.setattr(SecureCookieSessionInterface, "open_session", lambda *a: pytest.fail("a session was opened"))
    monkeypatch.setattr(type(app.session_interface), "save_session", lambda *a: pytest.fail("a session was saved"))
    seen: list[Any] = []

    @app.get("/_session")
    def peek() -> dict[str, Any]:
        seen.append(session._get_current_object())  # type: ignore[attr-defined]
        with pytest.raises(RuntimeError, match="secret key"):
            session["seat"] = "x"
        return {"held": session.get("seat")}

    client = app.test_client()
    assert [client.get("/_session").get_json() for _ in range(2)] == [{"held": None}] * 2
    assert isinstance(seen[0], NullSession) and seen[0] is seen[1]
    assert "Set-Cookie" not in client.get("/v1/games").headers


def test_hooks_registered_run_as_flask_runs_them() -> None:
    """Any hook of a kind registered (app-wide or on a blueprint), or one made for a request, puts that step back
    on Flask's own path: each runs, in Flask's order, with what Flask gives it."""
    from flask import Blueprint, after_this_request, g

    app = create_app({})
    ran: list[str] = []
    bp = Blueprint("probe", __name__)

    @bp.url_value_preprocessor
    def pre(endpoint: str | None, values: dict[str, Any] | None) -> None:
        ran.append(f"url {endpoint} {values}")

    @bp.before_request
    def before() -> None:
        g.seen = "yes"
        ran.append("before")

    @bp.get("/probe/<int:n>")
    def probe(n: int) -> dict[str, Any]:
        @after_this_request
        def once(response: Any) -> Any:
            ran.append("after this request")
            return response

        return {"n": n, "seen": g.seen}

    @app.after_request
    def after(response: Any) -> Any:
        response.headers["X-After"] = "1"
        ran.append("after")
        return response

    @app.teardown_request
    def down(exc: BaseException | None) -> None:
        ran.append(f"teardown {exc}")

    app.register_blueprint(bp)
    answer = app.test_client().get("/probe/7")
    assert answer.get_json() == {"n": 7, "seen": "yes"} and answer.headers["X-After"] == "1"
    assert ran == ["url probe.probe {'n': 7}", "before", "after this request", "after", "teardown None"]
