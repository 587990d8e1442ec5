"""Issue 20, cost per request: what the shortcuts of the request path keep (the figures are in BENCHMARKS.md,
measured by ``python -m bench overhead``, never here)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import service
from service import create_app
from service.web import http
from service.web.errors import ApiError


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


def test_a_view_with_a_budget_still_answers_flask_limiters_headers_and_deducts() -> None:
    # RENDER_RATE_LIMIT's budget is checked by the view's decorator: its headers come from the after-request hook
    # that now runs only where a limit was checked.
    app = create_app({"RENDER_RATE_LIMIT": "2/minute", "PNG_RATE_LIMIT": "off"})
    client = app.test_client()
    state = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
    body = {"state": state, "format": "text"}
    first = client.post("/v1/games/catchup/render", json=body)
    assert first.status_code == 200
    assert first.headers["X-RateLimit-Limit"] == "2"
    assert first.headers["X-RateLimit-Remaining"] == "1"
    assert "X-RateLimit-Reset" in first.headers
    assert client.post("/v1/games/catchup/render", json=body).headers["X-RateLimit-Remaining"] == "0"
    refused = client.post("/v1/games/catchup/render", json=body)
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "rate_limited"
    assert "Retry-After" in refused.headers


def test_with_only_budgets_no_request_pays_for_the_limiters_hooks_but_the_budgeted_ones() -> None:
    """service/web/ratelimit.py ``_only_on_budgeted_views``: flask-limiter's after-request hook and teardown are
    asked by the budgeted views for their own request, not by the app for every request; a budgeted view's
    answer that is an error (its body refused) still carries the headers, without ``Retry-After``, and the
    limiter's per-request context is reset at its end as its teardown did."""
    app = create_app({"RENDER_RATE_LIMIT": "5/minute", "PNG_RATE_LIMIT": "off"})
    assert not app.after_request_funcs.get(None) and not app.teardown_request_funcs.get(None)
    contexts: list[Any] = []

    @app.teardown_request
    def _look(_: BaseException | None) -> None:
        from flask.globals import request_ctx

        contexts.append(getattr(request_ctx._get_current_object(), "_limiter_request_context", None))  # type: ignore[attr-defined]

    client = app.test_client()
    refused = client.post("/v1/games/catchup/render", json={"state": {"game": "catchup"}, "format": "text"})
    assert refused.status_code == 422
    assert refused.headers["X-RateLimit-Limit"] == "5" and refused.headers["X-RateLimit-Remaining"] == "4"
    assert "Retry-After" not in refused.headers
    (kept,) = contexts
    assert kept is not None and all(c.view_rate_limit is None and not c.seen_limits for c in kept.values())
    assert not any(h.startswith("X-RateLimit") for h, _ in client.get("/v1/games").headers.items())


def test_a_flask_limiter_naming_its_hooks_otherwise_keeps_them_app_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.web import ratelimit

    monkeypatch.setattr(ratelimit, "INJECT_HEADERS", "_Limiter__some_other_name")
    app = create_app({"RENDER_RATE_LIMIT": "2/minute", "PNG_RATE_LIMIT": "off"})
    assert app.after_request_funcs.get(None) and app.teardown_request_funcs.get(None)
    client = app.test_client()
    state = client.post("/v1/games/catchup/new", json={"options": {}}).get_json()["state"]
    answer = client.post("/v1/games/catchup/render", json={"state": state, "format": "text"})
    assert answer.status_code == 200 and answer.headers["X-RateLimit-Remaining"] == "1"
    assert "Retry-After" not in answer.headers  # the rule still runs, after flask-limiter's hook


def test_rate_limit_puts_its_headers_on_every_answer() -> None:
    client = create_app({"RATE_LIMIT": "5/minute"}).test_client()
    answer = client.get("/v1/games")
    assert answer.headers["X-RateLimit-Limit"] == "5"
    assert answer.headers["X-RateLimit-Remaining"] == "4"


def test_a_view_without_a_budget_leaves_the_limiter_untouched() -> None:
    app = create_app({})
    seen: list[bool] = []

    @app.teardown_request
    def _look(_: BaseException | None) -> None:
        from flask.globals import request_ctx

        seen.append(hasattr(request_ctx._get_current_object(), "_limiter_request_context"))  # type: ignore[attr-defined]

    answer = app.test_client().get("/v1/games")
    assert answer.status_code == 200
    assert not any(h.startswith("X-RateLimit") for h, _ in answer.headers.items())
    assert seen == [False]


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


@settings(max_examples=2000, deadline=None)
@given(st.floats(min_value=0, max_value=4_102_444_800, allow_nan=False) | st.integers(0, 4_102_444_800).map(lambda s: s - 5e-7))
def test_a_log_lines_time_is_what_datetime_writes(created: float) -> None:
    import datetime

    from service.web.requestlog import _Clock

    clock = _Clock()
    expected = datetime.datetime.fromtimestamp(created, datetime.UTC).isoformat(timespec="milliseconds")
    assert clock(created) == expected
    assert clock(created) == expected  # and again, from the second it kept


def test_a_log_lines_time_follows_the_clock_across_seconds() -> None:
    import datetime

    from service.web.requestlog import _Clock

    clock = _Clock()
    for created in (1_700_000_000.9994, 1_700_000_000.9999996, 1_700_000_001.0004, 1_699_999_999.5, 1_700_000_001.25):
        assert clock(created) == datetime.datetime.fromtimestamp(created, datetime.UTC).isoformat(timespec="milliseconds")


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
    (service/web/requestlog.py ``RequestLog``), not from four Flask hooks each reaching ``request`` and ``g``
    through their proxies (about a fifth of ``GET /v1/games`` through gunicorn, BENCHMARKS.md): only
    flask-limiter's hooks are left on every request, and every kind of answer still gets them all."""
    app = create_app({})
    every = (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs)
    hooks = [f for funcs in every for f in funcs.get(None, [])]
    assert [f.__module__ for f in hooks] == ["service.web.ratelimit"] * len(hooks)

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
from prometheus_client import CollectorRegistry, multiprocess, values
from service.web import metrics, requestlog

assert values.ValueClass is metrics.MULTIPROCESS_VALUE  # every value made from here on asks process_id()
child = metrics.REQUESTS.labels("GET", "/fork", "200")
child.observe(0.001)
ids = [requestlog.new_id() for _ in range(3)]
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # the child: its own figures, its own ids
    child.observe(0.001)
    child.observe(0.001)
    os.write(write, json.dumps([metrics.process_id(), [requestlog.new_id() for _ in range(3)]]).encode())
    os._exit(0)
os.waitpid(pid, 0)
seen_pid, child_ids = json.loads(os.read(read, 65536))
parent_ids = [requestlog.new_id() for _ in range(3)]
registry = CollectorRegistry()
multiprocess.MultiProcessCollector(registry)
labels = {"method": "GET", "route": "/fork", "status": "200"}
count = registry.get_sample_value("umpire_http_request_duration_seconds_count", labels)
files = sorted(os.listdir(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
print(json.dumps({"parent": os.getpid(), "child": pid, "seen": seen_pid, "files": files, "count": count,
                  "ids": ids + parent_ids, "child_ids": child_ids}))
"""


def test_a_forked_worker_keeps_its_own_figures_and_ids_without_asking_the_system_each_time(tmp_path: Path) -> None:
    """Metrics in multiprocess mode ask service/web/metrics.py ``process_id`` (no system call) whether the process
    forked, and request ids come from a generator of the process's own: both made again in a forked child,
    as gunicorn forks its workers.  The child's figures go to a file of its own and are summed with the parent's;
    its ids are not the parent's."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", FORKED], env=env, capture_output=True, text=True, timeout=60, cwd=Path(__file__).parent.parent
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["seen"] == got["child"] != got["parent"]
    assert f"histogram_{got['parent']}.db" in got["files"] and f"histogram_{got['child']}.db" in got["files"]
    assert got["count"] == 3.0  # one observation in the parent, two in the child
    ids = got["ids"] + got["child_ids"]
    assert len(set(ids)) == len(ids) and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


PATCHED = r"""
from gevent import monkey
monkey.patch_all()
from gevent import Timeout
from service.web import guard

assert guard._gevent_timeout() is Timeout
monkey.is_module_patched = lambda name: (_ for _ in ()).throw(AssertionError("asked again"))
assert guard._gevent_timeout() is Timeout  # kept: gevent is not asked on every body
print("ok")
"""


def test_the_guard_asks_gevent_once_whether_it_patched_the_process() -> None:
    """service/web/guard.py reads each body under a gevent.Timeout in a gevent worker; whether it is one is asked
    once, not on every body (1% of a worker's time on a ``play``, issue 20)."""
    import subprocess
    import sys

    from service.web import guard

    assert guard._gevent_timeout() is None  # this process is not patched, and that is not kept
    assert guard._patched == []
    root = Path(__file__).parent.parent
    out = subprocess.run([sys.executable, "-c", PATCHED], capture_output=True, text=True, timeout=60, cwd=root)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


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


def test_with_no_hooks_registered_a_request_never_looks_for_them_by_blueprint(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flask looks up hooks by the request's blueprints three times a request; with none registered the app
    answers without asking (the blueprints come through the request proxy), and the teardown signal still goes."""
    from flask import Request, request_tearing_down

    app = create_app({})
    monkeypatch.setattr(Request, "blueprints", property(lambda self: pytest.fail("hooks looked up by blueprint")))
    torn: list[Any] = []

    def heard(sender: Any, exc: BaseException | None = None, **kwargs: Any) -> None:
        torn.append((sender, exc))

    with request_tearing_down.connected_to(heard, app):
        answer = app.test_client().post("/v1/games/catchup/new", json={"options": {"size": 5}})
    assert answer.status_code == 200 and answer.get_json()["state"]["ply"] == 0
    assert torn == [(app, None)]


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
