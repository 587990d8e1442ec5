"""The contract's settings on managed matches, on real Redis: rate limits counted
in Redis per client address and per seat token (429 with Retry-After, while
others are served), duplicate keys refused on the move's hot path, the
Idempotency-Key's length, and the umpire token for creating matches."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from matchkit import NewMatch

from service.web.ratelimit import storage_uri

JSON = "application/json"


def test_a_duplicate_key_is_refused_on_the_hot_path(new_match: NewMatch, client: FlaskClient) -> None:
    """The plain move body is read with request.get_json(): the app's JSON provider refuses a key given twice."""
    m = new_match()
    raw = '{"move": "C3", "ply": 0, "ply": 1}'
    resp = client.post(f"/v1/matches/{m.id}/moves", data=raw, content_type=JSON, headers=m.auth(0))
    assert resp.status_code == 400
    assert resp.json["error"]["code"] == "duplicate_key" and resp.json["error"]["details"] == {"key": "ply"}
    assert m.state()["ply"] == 0


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_an_idempotency_key_is_1_to_200_characters(new_match: NewMatch, key: str) -> None:
    m = new_match()
    resp = m.move(0, "C3", 0, **{"Idempotency-Key": key})
    assert resp.status_code == 422 and resp.json["error"]["code"] == "invalid_header"


@pytest.mark.app_config(UMPIRE_TOKEN="umpire-secret")
def test_creating_a_match_needs_the_umpire_token_when_one_is_set(client: FlaskClient) -> None:
    body = {"game": "catchup", "options": {}}
    assert client.post("/v1/matches", json=body).json["error"]["code"] == "unauthorized"
    assert client.post("/v1/matches", json=body, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.post("/v1/matches", json=body, headers={"Authorization": "Bearer umpire-secret"}).status_code == 201


def test_the_limits_library_reads_the_apps_redis_url() -> None:
    assert storage_uri(None) == "memory://"
    assert storage_uri("unix:///tmp/r.sock") == "redis+unix:///tmp/r.sock"
    assert storage_uri("redis://h:6379/0") == "redis://h:6379/0"
    assert storage_uri("redis://:pw@h:7000/0", cluster=True) == "redis+cluster://:pw@h:7000"


@pytest.mark.app_config(RATE_LIMIT="5/minute")
def test_a_flooding_address_gets_429_while_another_is_served(client: FlaskClient, app: Flask, redis_url: str) -> None:
    flood = {"REMOTE_ADDR": "10.1.0.1"}
    answers = [client.get("/v1/games", environ_base=flood).status_code for _ in range(8)]
    assert answers == [200] * 5 + [429] * 3
    refused = client.get("/v1/games", environ_base=flood)
    assert refused.status_code == 429 and refused.json["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.json["error"]["details"] == {"limit": "5 per 1 minute"}
    assert client.get("/v1/games", environ_base={"REMOTE_ADDR": "10.1.0.2"}).status_code == 200
    assert client.get("/v1/health", environ_base=flood).status_code == 200  # load balancers are never limited
    # the counts are in the app's Redis, so every app process shares them
    limiter = app.extensions["umpire.limiter"]
    assert type(limiter.storage).__name__ == "RedisStorage"
    assert redis_url


@pytest.mark.app_config(RATE_LIMIT="4/minute")
def test_a_flooding_seat_gets_429_from_any_address_while_the_other_seat_is_served(
    new_match: NewMatch, client: FlaskClient
) -> None:
    m = new_match()  # one request of the creating address
    for i in range(4):
        assert (
            m.client.get(f"/v1/matches/{m.id}", headers=m.auth(0), environ_base={"REMOTE_ADDR": f"10.2.0.{i}"}).status_code == 200
        )
    refused = client.get(f"/v1/matches/{m.id}", headers=m.auth(0), environ_base={"REMOTE_ADDR": "10.2.1.1"})
    assert refused.status_code == 429 and refused.json["error"]["code"] == "rate_limited"
    assert client.get(f"/v1/matches/{m.id}", headers=m.auth(1), environ_base={"REMOTE_ADDR": "10.2.1.2"}).status_code == 200
    moved = client.post(
        f"/v1/matches/{m.id}/moves", json={"move": "C3", "ply": 0}, headers=m.auth(0), environ_base={"REMOTE_ADDR": "10.2.1.3"}
    )
    assert moved.status_code == 429


def test_no_rate_limit_by_default(new_match: NewMatch, client: FlaskClient, app: Flask) -> None:
    # RATE_LIMIT is unset: only the costly requests have budgets of their own (creating, drawing, suggesting)
    assert app.config["RATE_LIMIT"] is None
    assert all(client.get("/v1/games").status_code == 200 for _ in range(40))
