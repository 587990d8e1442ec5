"""Wrong answers an attacker found (issue 20, items 4 to 6), on the stateless endpoints:
a lone surrogate anywhere in a body, signed states refused by the endpoints that
draw them, and a signature that said nothing about how a position arose.
Every answer passes the spec check of the ``client`` fixture's class."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from test_api_errors import error_of
from test_settings import canonical_hmac, checked

OPTIONS = {"options": {"size": 3}}

# -- 4. a lone surrogate is half of a character: a 422 naming the field, never a 500 -----------


def raw_post(client: FlaskClient, path: str, body: Any) -> Any:
    """``body`` as JSON text with every non-ASCII character escaped: ``"\\ud800"`` goes as those six characters."""
    return client.post(path, data=json.dumps(body), content_type="application/json")


def test_a_lone_surrogate_anywhere_is_a_422_naming_its_field() -> None:
    client = checked(STATE_SECRET="s3cret")  # signing encodes the state as UTF-8: where the 500 was
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    cases = [
        ("play", {"state": {**state, "game": "\ud800"}, "move": "C3"}, "state.game"),
        ("play", {"state": state, "move": "C3 \udfff"}, "move"),
        ("play", {"state": state, "move": ["C3", "\ud800"]}, "move.1"),
        ("legal-moves", {"state": {**state, "board": {"\ud800": 0}}}, "state.board.\\ud800"),
        ("render", {"state": state, "names": ["Ann", "B\udc00b"]}, "names.1"),
        ("replay", {"options": {"size": 3}, "moves": ["C3", "\ud83d"]}, "moves.1"),
        ("new", {"options": {"variant": "\ud800"}}, "options.variant"),
    ]
    for what, body, field in cases:
        err = error_of(raw_post(client, f"/v1/games/catchup/{what}", body), 422, "invalid_body")
        assert err["details"]["field"] == field, (what, err)
        assert "lone surrogate" in err["message"]


def test_a_surrogate_pair_is_one_character_and_reads_as_text(client: FlaskClient) -> None:
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    resp = raw_post(client, "/v1/games/catchup/render", {"state": state, "names": ["\U0001f600", "Bob"], "format": "text"})
    assert resp.status_code == 200 and "\U0001f600" in resp.get_data(as_text=True)


def test_a_body_in_utf16_is_looked_at_too(client: FlaskClient) -> None:
    body = json.dumps({"options": {"variant": "\ud800"}}).encode("utf-16")
    error_of(client.post("/v1/games/catchup/new", data=body, content_type="application/json"), 422, "invalid_body")


# -- 5. every endpoint that takes a state takes a signed one ------------------------------------


def test_render_and_post_take_the_servers_own_signed_states() -> None:
    client = checked(STATE_SECRET="s3cret")
    before = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    after = client.post("/v1/games/catchup/play", json={"state": before, "move": "C3"}).get_json()["state"]
    for fmt in ("svg", "text", "png"):
        assert client.post("/v1/games/catchup/render", json={"state": after, "format": fmt}).status_code == 200
    drawn = client.post("/v1/games/catchup/render", json={"state": after, "before": before, "move": "C3", "format": "text"})
    assert drawn.status_code == 200 and "C3" in drawn.get_data(as_text=True)
    post = client.post("/v1/games/catchup/post", json={"state": after, "before": before, "move": "C3"})
    assert post.status_code == 200 and "Red places C3." in post.get_data(as_text=True)
    # they judge nothing, so an unsigned state (a managed match's) is drawn; a wrong sig is refused
    bare = {k: v for k, v in after.items() if k not in ("sig", "origin")}
    assert client.post("/v1/games/catchup/render", json={"state": bare}).status_code == 200
    forged = {**after, "sig": canonical_hmac(after, "guess")}
    for what in ("render", "post"):
        err = error_of(client.post(f"/v1/games/catchup/{what}", json={"state": forged}), 422, "bad_signature")
        assert err["details"]["field"] == "state.sig"
    err = error_of(client.post("/v1/games/catchup/post", json={"state": after, "before": forged}), 422, "bad_signature")
    assert err["details"]["field"] == "before.sig"


# -- 6. a signature proves who made a state, origin says how its position arose ---------------


SETUP = {"options": {"size": 3, "position": {"C3": 0, "B2": 1, "B3": 1}, "bonus": True}}


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("catchup", {"size": 3, "position": {"C3": 0, "B2": 1, "B3": 1}}),
        ("catchup", {"size": 3, "blocked": ["A1"]}),
        ("bug", {"size": 3, "position": {"C3": 0}}),
        ("plur", {"size": 3, "position": {"C3": 0}}),
    ],
)
def test_a_set_up_position_is_signed_as_set_up_and_stays_so(game: str, options: dict[str, Any]) -> None:
    client = checked(STATE_SECRET="s3cret")
    state = client.post(f"/v1/games/{game}/new", json={"options": options}).get_json()["state"]
    assert state["origin"] == "setup" and state["sig"] == canonical_hmac(state, "s3cret")
    move = client.post(f"/v1/games/{game}/legal-moves", json={"state": state, "limit": 1}).get_json()["moves"][0]
    verdict = client.post(f"/v1/games/{game}/play", json={"state": state, "move": move}).get_json()
    assert verdict["legal"] and verdict["state"]["origin"] == "setup"


def test_a_played_position_is_signed_as_from_the_start() -> None:
    client = checked(STATE_SECRET="s3cret")
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    assert state["origin"] == "start"
    for move in ("C3", "B2 B3"):
        state = client.post("/v1/games/catchup/play", json={"state": state, "move": move}).get_json()["state"]
        assert state["origin"] == "start"
    replayed = client.post("/v1/games/catchup/replay", json={**OPTIONS, "moves": ["C3", "B2 B3"]}).get_json()["state"]
    assert replayed == state
    # the set-up of the same position is told apart, and a client cannot relabel it: origin is signed
    setup = client.post("/v1/games/catchup/new", json=SETUP).get_json()["state"]
    assert {k: v for k, v in setup.items() if k not in ("origin", "sig")} == {
        k: v for k, v in state.items() if k not in ("origin", "sig")
    }
    assert setup["origin"] == "setup"
    relabelled = {**setup, "origin": "start"}
    error_of(client.post("/v1/games/catchup/play", json={"state": relabelled, "move": "A1"}), 422, "bad_signature")
    replay_setup = client.post("/v1/games/catchup/replay", json={**SETUP, "moves": ["A1"]}).get_json()["state"]
    assert replay_setup["origin"] == "setup"


def test_a_state_signed_before_origin_existed_is_read_as_set_up() -> None:
    client = checked(STATE_SECRET="s3cret")
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    old = {k: v for k, v in state.items() if k not in ("origin", "sig")}
    old["sig"] = canonical_hmac(old, "s3cret")
    verdict = client.post("/v1/games/catchup/play", json={"state": old, "move": "C3"}).get_json()
    assert verdict["legal"] and verdict["state"]["origin"] == "setup"  # nobody can tell how it arose
    err = error_of(
        client.post("/v1/games/catchup/play", json={"state": {**state, "origin": "dreamt"}, "move": "C3"}), 422, "bad_signature"
    )
    assert err["details"]["field"] == "state.origin"


# -- 7. what a client sent never starts a log line of its own --------------------------------


FORGED = "/v1/x%0A2026-01-01T00:00:00.000+00:00 info [admin] POST /v1/matches/abc/abort 200 1.0 ms%E2%80%A8%1B[2J\\"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_newline_in_the_path_does_not_forge_a_log_line(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:

    from service.web import requestlog

    stream = io.StringIO()
    client = checked(LOG_FORMAT=fmt)
    requestlog.configure(fmt, stream)
    try:
        client.get(FORGED, headers={"X-Request-ID": "req-9"})

        def boom(*args: Any) -> Any:
            raise RuntimeError("a message\nwith a 2026-01-01T00:00:00.000+00:00 info [x] forged line")

        monkeypatch.setattr("engine.games.catchup.rules.Catchup.new", boom)
        client.post("/v1/games/catchup/new", json=OPTIONS, headers={"X-Request-ID": "req-10"})
    finally:
        requestlog.configure("text")
    lines = stream.getvalue().splitlines()
    own = [line for line in lines if not line.startswith("  | ")]
    assert len(own) == 3, lines  # the 404, then the failure's traceback and its answer
    if fmt == "json":
        assert (
            json.loads(own[0])["path"]
            == "/v1/x\n2026-01-01T00:00:00.000+00:00 info [admin] POST /v1/matches/abc/abort 200 1.0 ms\u2028\x1b[2J\\"
        )
        assert all(json.loads(line) for line in own)
    else:
        forged = "2026-01-01T00:00:00.000+00:00 info [admin] POST /v1/matches/abc/abort 200 1.0 ms"
        assert f"[req-9] GET /v1/x\\n{forged}\\u2028\\x1b[2J\\\\ 404 " in own[0]
        assert own[1].endswith("[req-10] unhandled error") and "  | RuntimeError: a message" in lines
        assert "  | with a 2026-01-01T00:00:00.000+00:00 info [x] forged line" in lines  # behind the bar, as all of it


# -- 8. defaults an operator would expect ------------------------------------------------------


def test_retry_after_only_on_429_and_503() -> None:
    client = checked(RATE_LIMIT="3/minute")
    answers = [client.post("/v1/games/catchup/new", json=OPTIONS) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert ["Retry-After" in a.headers for a in answers] == [False, False, False, True]
    assert int(answers[3].headers["Retry-After"]) >= 0
    assert "Retry-After" not in checked().get("/v1/games").headers  # the default budgets are on, too


def test_drawing_has_a_budget_of_its_own_by_default() -> None:
    from service import create_app
    from service.web.ratelimit import CREATE_DEFAULT, RENDER_DEFAULT

    app = create_app({"TESTING": True})
    assert (app.config["CREATE_RATE_LIMIT"], app.config["RENDER_RATE_LIMIT"]) == (CREATE_DEFAULT, RENDER_DEFAULT)
    client = checked(RENDER_RATE_LIMIT="2/minute")
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    drawn = [client.post("/v1/games/catchup/render", json={"state": state, "format": "text"}) for _ in range(3)]
    assert [d.status_code for d in drawn[:2]] == [200, 200]
    err = error_of(drawn[2], 429, "rate_limited")
    assert "2 per 1 minute" in err["details"]["limit"] and "Retry-After" in drawn[2].headers
    assert client.post("/v1/games/catchup/play", json={"state": state, "move": "C3"}).status_code == 200  # not a drawing
    off = checked(RENDER_RATE_LIMIT="off")
    assert all(off.post("/v1/games/catchup/render", json={"state": state}).status_code == 200 for _ in range(3))


def test_the_page_is_sent_with_security_headers(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "connect-src 'self'" in csp
    assert page.headers["X-Frame-Options"] == "DENY"
    for resp in (page, client.get("/v1/games"), client.get("/nowhere")):
        assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_metrics_may_need_a_token(client: FlaskClient) -> None:
    assert client.get("/metrics").status_code == 200  # unset: anyone
    guarded = checked(METRICS_TOKEN="m-token")
    error_of(guarded.get("/metrics"), 401, "unauthorized")
    error_of(guarded.get("/metrics", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized")
    ok = guarded.get("/metrics", headers={"Authorization": "Bearer m-token"})
    assert ok.status_code == 200 and b"umpire_http_request_duration_seconds" in ok.data


def test_a_chunked_body_over_the_limit_is_413_like_a_sized_one(client: FlaskClient) -> None:

    big = json.dumps({"options": {"size": 3}, "pad": "x" * 300_000}).encode()
    sized = client.post("/v1/games/catchup/new", data=big, content_type="application/json")
    error_of(sized, 413, "body_too_large")
    chunked = {"Transfer-Encoding": "chunked", "Content-Type": "application/json"}
    terminated = {"wsgi.input_terminated": True}  # what gunicorn says of a chunked body it de-chunks
    for path in ("/v1/games/catchup/new", "/v1/games/catchup/play"):
        resp = client.post(path, input_stream=io.BytesIO(big), headers=chunked, environ_overrides=terminated)
        error_of(resp, 413, "body_too_large")
    small = json.dumps(OPTIONS).encode()
    resp = client.post("/v1/games/catchup/new", input_stream=io.BytesIO(small), headers=chunked, environ_overrides=terminated)
    assert resp.status_code == 200


def test_a_request_without_a_body_never_waits_for_a_reading_slot() -> None:
    """gunicorn marks every request's input terminated, a GET's too; only a request with a body (sized,
    or ``Transfer-Encoding: chunked``) takes one of its address's reading slots (service/web/guard.py).
    Before, a GET was read as a chunked body: with the address's slots taken by slow bodies it waited for
    one and was answered ``429 too_many_concurrent``."""
    from service import create_app

    app = create_app({"TESTING": True, "MAX_BODIES_PER_ADDRESS": 1, "BODY_TIMEOUT_S": 0.2})
    guard = app.wsgi_app
    assert guard._enter("127.0.0.1", time.monotonic() + 1)  # type: ignore[attr-defined]  # a slow body holds the slot
    try:
        client = app.test_client()
        terminated = {"wsgi.input_terminated": True, "REMOTE_ADDR": "127.0.0.1"}
        assert client.get("/v1/games", environ_overrides=terminated).status_code == 200
        # A body, though, waits for the slot, and none frees up in time.
        chunked = {"Transfer-Encoding": "chunked", "Content-Type": "application/json"}
        body = io.BytesIO(b'{"options": {}}')
        busy = client.post("/v1/games/catchup/new", input_stream=body, headers=chunked, environ_overrides=terminated)
        error_of(busy, 429, "too_many_concurrent")
    finally:
        guard._leave("127.0.0.1")  # type: ignore[attr-defined]
