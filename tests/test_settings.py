"""The contract's settings on the stateless endpoints: signed states
(``STATE_SECRET``, ``STATE_SECRET_PREVIOUS``), CORS (``CORS_ORIGINS``), request
ids and the log (``X-Request-ID``, ``LOG_FORMAT``).  Every answer still passes
the spec check of the ``client`` fixture's class."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from openapi_check import SpecCheckedClient
from test_api_errors import error_of

from service import create_app
from service.web import requestlog, signing

OPTIONS = {"options": {"size": 3}}


def checked(**config: Any) -> FlaskClient:
    app = create_app({"TESTING": True, **config})
    app.test_client_class = SpecCheckedClient
    return app.test_client()


def canonical_hmac(state: dict[str, Any], secret: str) -> str:
    """The signature as a client would check it: HMAC-SHA256 of the sorted, spaceless JSON without sig."""
    body = json.dumps({k: v for k, v in state.items() if k != "sig"}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()


# -- signed states ------------------------------------------------------------------


def test_every_state_returned_is_signed_and_only_signed_states_are_read() -> None:
    client = checked(STATE_SECRET="s3cret")
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    assert state["sig"] == canonical_hmac(state, "s3cret")
    verdict = client.post("/v1/games/catchup/play", json={"state": state, "move": "C3"}).get_json()
    assert verdict["legal"] and verdict["state"]["sig"] == canonical_hmac(verdict["state"], "s3cret")
    illegal = client.post("/v1/games/catchup/play", json={"state": verdict["state"], "move": "C3"}).get_json()
    assert illegal["legal"] is False and illegal["state"] == verdict["state"]
    replay = client.post("/v1/games/catchup/replay", json={**OPTIONS, "moves": ["C3"]}).get_json()
    assert replay["state"] == verdict["state"]
    assert client.post("/v1/games/catchup/legal-moves", json={"state": state}).status_code == 200

    unsigned = {k: v for k, v in state.items() if k != "sig"}
    edited = {**verdict["state"], "to_move": 0, "ply": 2}  # an edit, signature kept
    forged = {**state, "sig": canonical_hmac(state, "guess")}
    for bad in (unsigned, edited, forged):
        for what, body in (("play", {"state": bad, "move": "C3"}), ("legal-moves", {"state": bad})):
            err = error_of(client.post(f"/v1/games/catchup/{what}", json=body), 422, "bad_signature")
            assert err["details"]["field"] == "state.sig"


def test_a_rotation_accepts_states_signed_with_the_previous_secret() -> None:
    old = checked(STATE_SECRET="old").post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    rotated = checked(STATE_SECRET="new", STATE_SECRET_PREVIOUS="old")
    verdict = rotated.post("/v1/games/catchup/play", json={"state": old, "move": "C3"}).get_json()
    assert verdict["legal"] and verdict["state"]["sig"] == canonical_hmac(verdict["state"], "new")  # signed anew with the new one
    after = checked(STATE_SECRET="new")
    error_of(after.post("/v1/games/catchup/play", json={"state": old, "move": "C3"}), 422, "bad_signature")
    with pytest.raises(ValueError, match="STATE_SECRET_PREVIOUS"):
        create_app({"STATE_SECRET_PREVIOUS": "old"})


def test_without_a_secret_nothing_is_signed_and_a_well_formed_sig_is_ignored(client: FlaskClient) -> None:
    state = client.post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    assert "sig" not in state
    signed = checked(STATE_SECRET="gone").post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    assert client.post("/v1/games/catchup/play", json={"state": signed, "move": "C3"}).get_json()["legal"] is True
    error_of(client.post("/v1/games/catchup/play", json={"state": {**state, "sig": ""}, "move": "C3"}), 422, "bad_signature")


def test_the_signature_is_over_canonical_json() -> None:
    assert signing.canonical({"b": 1, "a": "é", "sig": "x"}) == '{"a":"é","b":1}'.encode()


def test_secrets_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_SECRET", "from-env")
    state = create_app({"TESTING": True}).test_client().post("/v1/games/catchup/new", json=OPTIONS).get_json()["state"]
    assert state["sig"] == canonical_hmac(state, "from-env")


# -- CORS -----------------------------------------------------------------------------


def test_no_cors_headers_unless_origins_are_set(client: FlaskClient) -> None:
    resp = client.post("/v1/games/catchup/new", json=OPTIONS, headers={"Origin": "https://a.example"})
    assert not [h for h, _ in resp.headers.items() if h.lower().startswith("access-control")]


def test_cors_for_the_listed_origins() -> None:
    client = checked(CORS_ORIGINS="https://a.example, https://b.example")
    preflight = client.options(
        "/v1/games/catchup/play",
        headers={
            "Origin": "https://b.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Content-Type, Authorization, Idempotency-Key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://b.example"
    allowed = {h.strip().lower() for h in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "authorization", "idempotency-key"} <= allowed
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    resp = client.post("/v1/games/catchup/new", json=OPTIONS, headers={"Origin": "https://a.example"})
    assert resp.headers["Access-Control-Allow-Origin"] == "https://a.example"
    exposed = {h.strip() for h in resp.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Idempotent-Replayed", "X-Request-ID"} <= exposed
    other = client.post("/v1/games/catchup/new", json=OPTIONS, headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


# -- request ids and the log -------------------------------------------------------------


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    yield stream
    requestlog.configure("text")  # back to standard error


def test_a_valid_request_id_is_echoed_and_any_other_replaced(client: FlaskClient) -> None:
    resp = client.post("/v1/games/catchup/new", json=OPTIONS, headers={"X-Request-ID": "trace-1.2:3/x+y=z@w"})
    assert resp.headers["X-Request-ID"] == "trace-1.2:3/x+y=z@w"
    for bad in ("x" * 129, "has space", "new\u00e9", ""):
        made = client.post("/v1/games/catchup/new", json=OPTIONS, headers={"X-Request-ID": bad}).headers["X-Request-ID"]
        assert made != bad and len(made) == 32
    first = client.get("/v1/games").headers["X-Request-ID"]
    assert first != client.get("/v1/games").headers["X-Request-ID"]
    # errors carry it too
    assert client.post("/v1/games/catchup/new", data="{", content_type="application/json").headers["X-Request-ID"]
    assert client.get("/nowhere", headers={"X-Request-ID": "abc"}).headers["X-Request-ID"] == "abc"


def test_json_log_lines_name_the_request(log_lines: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    client = checked(LOG_FORMAT="json")
    requestlog.configure("json", log_lines)
    client.post("/v1/games/catchup/new", json=OPTIONS, headers={"X-Request-ID": "req-42"})

    def boom(*args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("engine.games.catchup.rules.Catchup.new", boom)
    client.post("/v1/games/catchup/new", json=OPTIONS, headers={"X-Request-ID": "req-43"})
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    first = lines[0]
    assert set(first) >= {"time", "level", "message", "request_id", "method", "path", "status", "duration_ms"}
    assert (first["request_id"], first["method"], first["path"], first["status"]) == (
        "req-42",
        "POST",
        "/v1/games/catchup/new",
        200,
    )
    assert first["level"] == "info" and first["duration_ms"] >= 0
    failure = [line for line in lines if line["request_id"] == "req-43"]
    assert [line["level"] for line in failure] == ["error", "info"]  # the traceback, then the answer
    assert "RuntimeError: boom" in failure[0]["exception"] and failure[1]["status"] == 500


def test_text_log_lines_name_the_request(log_lines: io.StringIO) -> None:
    client = checked(LOG_FORMAT="text")
    requestlog.configure("text", log_lines)
    client.get("/v1/games", headers={"X-Request-ID": "req-7"})
    (line,) = log_lines.getvalue().splitlines()
    assert "info [req-7] GET /v1/games 200" in line and line.endswith(" ms")
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        create_app({"LOG_FORMAT": "xml"})


def test_make_run_logs_json_by_default() -> None:
    from service.run import serve

    assert serve.environment({})["LOG_FORMAT"] == "json"
    assert serve.environment({"LOG_FORMAT": "text"})["LOG_FORMAT"] == "text"
    assert create_app().config["LOG_FORMAT"] == "text"  # a bare create_app()
    assert logging.getLogger("service").level == logging.INFO


# -- every setting documented -------------------------------------------------------


def documented_settings() -> dict[str, str]:
    """The table of docs/SETTINGS.md: each variable and its default as written."""
    from pathlib import Path

    table = (Path(__file__).resolve().parent.parent / "docs" / "SETTINGS.md").read_text(encoding="utf-8")
    assert table.startswith("# Settings\n")
    out: dict[str, str] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            names = [n.strip(" `") for n in cells[0].split(",")]
            defaults = [d.strip(" `") for d in cells[1].split(",")] if len(names) > 1 else [cells[1]]
            for name, default in zip(names, defaults, strict=True):
                out[name] = default
    return out


def test_every_setting_the_service_reads_is_documented_with_its_default() -> None:
    """A setting nobody can find is a setting nobody can use: each variable the app,
    its Redis layer and `make run` read is in the table of docs/SETTINGS.md, with
    the default the code has."""
    from service import DEFAULTS
    from service.api.suggest import SETTINGS
    from service.matches.db import CONFIG_DEFAULTS

    documented = documented_settings()
    code = {**DEFAULTS, **{k: v for k, v in CONFIG_DEFAULTS.items() if k != "MATCH_CLOCK"}, **SETTINGS}  # MATCH_CLOCK: tests only
    served = ("HOST", "PORT", "WEB_CONCURRENCY", "WORKER_CLASS", "WORKER_CONNECTIONS", "KEEP_ALIVE_S", "SWEEPER", "ACCESS_LOG")
    missing = [name for name in [*code, *served, "PROMETHEUS_MULTIPROC_DIR", "REDIS_APPENDFSYNC"] if name not in documented]
    assert missing == []
    for name, default in code.items():
        if isinstance(default, bool) or default is None:
            continue
        cell = documented[name]
        if isinstance(default, int | float):
            first = re.search(r"[0-9][0-9.]*", cell)
            assert first is not None and float(first.group()) == float(default), name
        else:
            assert f"`{default}`" in cell, name
