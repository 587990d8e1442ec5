"""Pictures under attack (issue 20, "Pictures"): PNGs are rendered by a
bounded pool of processes (service/api/renderer.py), a full queue is answered
at once with ``503 render_busy`` and ``Retry-After``, a match's picture of a
position that can no longer change is rendered once for every app process
(Redis), and renderings are charged on a budget of their own.  On real Redis,
through the spec-checked client."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from matchkit import NewMatch
from test_records import play_some

from service.api.pictures import render_pool
from service.matches import db


def started(app: Flask) -> int:
    """Renderer processes the app has started (none before its first PNG)."""
    pool = app.extensions.get("umpire.renderers")
    return 0 if pool is None else pool.started


def test_the_width_is_capped_at_2048(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    r = client.get(f"/v1/matches/{m.id}/board.png", query_string={"width": 2049})
    assert r.status_code == 422 and r.json["error"]["details"] == {"parameter": "width"}
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 3}}).json["state"]
    r = client.post("/v1/games/catchup/render", json={"state": state, "format": "png", "width": 8192})
    assert r.status_code == 422 and "width" in r.json["error"]["details"]["fields"]


def test_a_settled_picture_is_rendered_once_for_every_app_process(
    client: FlaskClient, app: Flask, new_match: NewMatch, client_for: Callable[..., FlaskClient]
) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 3)
    first = client.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": 2, "width": 300})
    assert first.status_code == 200 and first.headers["Cache-Control"].endswith("immutable")
    assert started(app) == 1
    # another app process on the same Redis: the picture comes from the match's cache, nothing is rendered
    other = client_for(REDIS_URL=app.config["REDIS_URL"], REDIS_CLUSTER=app.config["REDIS_CLUSTER"])
    try:
        again = other.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": 2, "width": 300})
        assert again.status_code == 200 and again.data == first.data
        assert started(other.application) == 0
        # a picture of the latest position (the clock runs) is never cached: this one renders
        latest = other.get(f"/v1/matches/{m.id}/board.png", query_string={"width": 300})
        assert latest.status_code == 200 and latest.headers["Cache-Control"] == "no-store"
        assert started(other.application) == 1
    finally:
        db.close(other.application)
    keys = db.get_store(app).r.hkeys(db.get_store(app).pictures_key(m.id))
    assert keys == [first.headers["ETag"].strip('"')]


@pytest.mark.app_config(PICTURE_CACHE_PER_MATCH=2, PICTURE_CACHE_TTL_S=60)
def test_the_cache_of_a_match_is_bounded_and_expires(client: FlaskClient, app: Flask, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 4)
    for ply in range(4):
        assert client.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": ply, "width": 64}).status_code == 200
    store = db.get_store(app)
    assert store.r.hlen(store.pictures_key(m.id)) == 2
    assert 0 < store.r.ttl(store.pictures_key(m.id)) <= 60


@pytest.mark.app_config(PNG_RATE_LIMIT="2/minute")
def test_renderings_have_a_budget_of_their_own_and_cached_pictures_are_free(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    play_some(m, "catchup", 3)
    for ply in (0, 1):
        assert client.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": ply}).status_code == 200
    over = client.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": 2})
    assert over.status_code == 429 and over.json["error"]["code"] == "rate_limited"
    assert over.json["error"]["details"]["limit"] == "2 per 1 minute (render)"
    assert 1 <= int(over.headers["Retry-After"]) <= 60
    # what is cached costs nothing; SVG and every other route are not on this budget
    assert client.get(f"/v1/matches/{m.id}/board.png", query_string={"ply": 1}).status_code == 200
    assert client.get(f"/v1/matches/{m.id}/board.svg", query_string={"ply": 2}).status_code == 200
    assert client.get(f"/v1/matches/{m.id}").status_code == 200


@pytest.mark.app_config(RENDER_PROCESSES=1, RENDER_QUEUE=0, PNG_RATE_LIMIT="", RENDER_NICE=0, RENDER_TIMEOUT_S=120.0)
def test_a_full_queue_is_answered_at_once_with_503_and_retry_after(client: FlaskClient, app: Flask) -> None:
    state = client.post("/v1/games/catchup/new", json={"options": {"size": 10}}).json["state"]
    big: dict[str, Any] = {"state": state, "format": "png", "width": 2048}
    first: list[int] = []
    worker = threading.Thread(
        target=lambda: first.append(app.test_client().post("/v1/games/catchup/render", json=big).status_code)
    )
    worker.start()
    pool = render_pool(app)
    deadline = time.monotonic() + 10
    while pool.inflight == 0 and time.monotonic() < deadline:  # the first is with the renderer
        time.sleep(0.001)
    assert pool.inflight == 1
    start = time.monotonic()
    r = client.post("/v1/games/catchup/render", json={**big, "coords": True})
    took = time.monotonic() - start
    assert r.status_code == 503 and r.json["error"]["code"] == "render_busy"
    assert r.headers["Retry-After"] == "1"
    assert took < 0.5  # refused at once, not after the first one's second of rendering
    worker.join(30)
    assert first == [200]
