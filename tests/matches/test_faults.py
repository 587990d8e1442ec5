"""Durability and faults on private Redis servers: a restart loses nothing, a dead
or slow Redis answers 503 quickly in the error shape, and the app recovers by
itself when Redis is back."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from matchkit import NewMatch
from redis.exceptions import ClusterDownError

from bench.common import TcpRedis, free_port
from bench.proxy import Proxy
from service.matches.db import get_store
from service.matches.store import Store
from service.run.embedded import EmbeddedRedis

Start = Callable[..., EmbeddedRedis]
ClientFor = Callable[..., FlaskClient]


def create(client: FlaskClient, **body: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, **body})
    assert r.status_code == 201, r.json
    seats = r.json["seats"]
    return r.json["match_id"], {"Authorization": "Bearer " + seats["0"]}, {"Authorization": "Bearer " + seats["1"]}


@pytest.mark.parametrize("how", ["shutdown", "kill"])
def test_restart_of_app_and_redis_loses_nothing(private_redis: Start, client_for: ClientFor, tmp_path: Path, how: str) -> None:
    # "kill" is a crash: with appendfsync always not even the last write is lost
    server = private_redis(tmp_path / "r", appendfsync="always" if how == "kill" else "everysec")
    client = client_for(REDIS_URL=server.url)
    match_id, h0, h1 = create(client)
    assert client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=h0).status_code == 200
    before = client.get(f"/v1/matches/{match_id}").json
    record = client.get(f"/v1/matches/{match_id}/moves").json
    score = get_store(client.application).deadline(match_id)
    assert score is not None
    # stop both: the app (dropped) and Redis
    del client
    server.stop() if how == "shutdown" else server.kill()
    server = private_redis(tmp_path / "r")
    client = client_for(REDIS_URL=server.url)
    after = client.get(f"/v1/matches/{match_id}").json
    assert after["state"] == before["state"]
    assert after["clock"]["deadline"] == before["clock"]["deadline"]  # the deadline is intact
    assert [seat["bank_s"] for seat in after["clock"]["seats"].values()] == [
        seat["bank_s"] for seat in before["clock"]["seats"].values()
    ]
    assert client.get(f"/v1/matches/{match_id}/moves").json["moves"] == record["moves"]
    assert get_store(client.application).deadline(match_id) == score
    # the seats' tokens still work, and a retry still gets its first answer
    assert client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=h0).status_code == 200
    assert client.post(f"/v1/matches/{match_id}/moves", json={"move": "C2 B2", "ply": 1}, headers=h1).status_code == 200


def test_redis_killed_mid_run_503_quickly_then_recovers(private_redis: Start, client_for: ClientFor, tmp_path: Path) -> None:
    server = private_redis(tmp_path / "r", appendfsync="always")
    client = client_for(REDIS_URL=server.url, REDIS_TIMEOUT_S=0.5)
    match_id, h0, _ = create(client)
    server.kill()
    calls = [
        ("get", "/v1/health", None, {}),
        ("get", f"/v1/matches/{match_id}", None, {}),
        ("get", f"/v1/matches/{match_id}/moves", None, {}),
        ("post", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, h0),
        ("post", f"/v1/matches/{match_id}/resign", None, h0),
        ("post", "/v1/matches", {"game": "catchup"}, {}),
        ("get", f"/v1/matches/{match_id}/board.svg", None, {}),
        ("get", f"/v1/matches/{match_id}/board.png", None, {}),
        ("get", f"/v1/matches/{match_id}/post", None, {}),
    ]
    for method, path, body, headers in calls:
        start = time.monotonic()
        r = getattr(client, method)(path, json=body, headers=headers)
        took = time.monotonic() - start
        assert r.status_code == 503, (path, r.status_code, r.json)
        assert r.json["error"]["code"] == "unavailable" and r.json["error"]["details"]["redis"] in ("down", "timeout")
        assert took < 2.0, (path, took)
    # Redis comes back: the same app answers again, nothing lost
    private_redis(tmp_path / "r")
    r = client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=h0)
    assert r.status_code == 200
    assert client.get("/v1/health").json == {"status": "ok", "redis": "ok"}


def test_slow_redis_answers_503_within_the_timeout(private_redis: Start, client_for: ClientFor, tmp_path: Path) -> None:
    server = private_redis(tmp_path / "r")
    client = client_for(REDIS_URL=server.url, REDIS_TIMEOUT_S=0.3)
    match_id, _, _ = create(client)
    sleeper = threading.Thread(target=lambda: redis.Redis.from_url(server.url).execute_command("DEBUG", "SLEEP", "1.5"))
    sleeper.start()
    time.sleep(0.1)  # Redis is now stuck for 1.5 s
    start = time.monotonic()
    r = client.get(f"/v1/matches/{match_id}")
    took = time.monotonic() - start
    assert (r.status_code, r.json["error"]["details"]) == (503, {"redis": "timeout"})
    assert took < 1.0
    sleeper.join()
    assert client.get(f"/v1/matches/{match_id}").status_code == 200


def test_unreachable_redis_at_start(client_for: ClientFor, tmp_path: Path) -> None:
    client = client_for(REDIS_URL=f"unix://{tmp_path}/no.sock", REDIS_TIMEOUT_S=0.3)
    r = client.post("/v1/matches", json={"game": "catchup"})
    assert (r.status_code, r.json["error"]["code"]) == (503, "unavailable")
    r = client.get("/v1/health")
    assert (r.status_code, r.json["error"]["details"]) == (503, {"redis": "down"})


def test_scripts_redis_forgot_are_loaded_again(client: FlaskClient) -> None:
    # After a restart (or SCRIPT FLUSH) Redis knows none of the Lua scripts run by their SHA-1.
    match_id, h0, _ = create(client)
    redis.Redis.from_url(client.application.config["REDIS_URL"]).script_flush()
    r = client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=h0)
    assert r.status_code == 200 and r.json["ply"] == 1


# -- outcome_unknown: Redis timed out on the commit, which may or may not have run ---------------------------


def commit_times_out(monkeypatch: pytest.MonkeyPatch, store: Store, *, ran: bool) -> list[int]:
    """The store's next commit times out (as a slow or lost answer from Redis would), after the
    script ran (``ran``) or before it reached Redis; later commits go through.  Returns the calls seen."""
    real = store._commit
    calls: list[int] = []

    def commit(keys: Sequence[str], args: Sequence[str | int]) -> Any:
        calls.append(len(calls))
        if len(calls) == 1:
            if ran:
                real(keys, args)
            raise redis.TimeoutError("Timeout reading from socket")
        return real(keys, args)

    monkeypatch.setattr(store, "_commit", commit)
    return calls


def unknown(r: Any) -> None:
    assert r.status_code == 503, r.json
    error: dict[str, Any] = r.get_json()["error"]
    assert (error["code"], error["details"]) == ("outcome_unknown", {"retry": True})
    assert "Send the same request again, with the same ply and Idempotency-Key" in error["message"]
    assert "safe" in error["message"]


@pytest.mark.parametrize("ran", [True, False], ids=["applied", "not-applied"])
def test_a_move_of_unknown_outcome_is_retried_safely(
    new_match: NewMatch, store: Store, monkeypatch: pytest.MonkeyPatch, ran: bool
) -> None:
    m = new_match("catchup", {"size": 3})
    calls = commit_times_out(monkeypatch, store, ran=ran)
    unknown(m.move(0, "C3", 0, **{"Idempotency-Key": "k-1"}))
    assert m.state()["ply"] == (1 if ran else 0)  # what Redis did, which the client could not know
    again = m.move(0, "C3", 0, **{"Idempotency-Key": "k-1"})
    assert again.status_code == 200 and (again.json["move"], again.json["ply"]) == ("C3", 1)
    # applied: the retry is the first answer, rebuilt from the record; not applied: the retry applies it
    assert again.headers.get("Idempotent-Replayed") == ("true" if ran else None)
    assert len(calls) == (1 if ran else 2)
    once_more = m.move(0, "C3", 0, **{"Idempotency-Key": "k-1"})
    assert once_more.headers.get("Idempotent-Replayed") == "true" and once_more.get_data() == again.get_data()
    moves = m.record()["moves"]
    assert [(e["kind"], e["ply"], e["move"]) for e in moves] == [("move", 0, "C3")]  # applied exactly once
    assert m.move(1, "C2 B2", 1).status_code == 200  # and the match goes on


def test_a_cluster_outage_is_a_503_and_a_warning_not_a_traceback(
    client: FlaskClient, new_match: NewMatch, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """CLUSTERDOWN (a master failed, no replica took over) is an expected outage: the
    same 503 as Redis down, logged as one warning line rather than an error with a traceback."""
    m = new_match("catchup", {"size": 3})

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ClusterDownError("CLUSTERDOWN The cluster is down")

    monkeypatch.setattr(Store, "read", down)
    with caplog.at_level(logging.INFO, logger="service"):
        r = client.get(f"/v1/matches/{m.id}")
    assert r.status_code == 503 and r.json["error"]["details"] == {"redis": "down"}
    said = [rec for rec in caplog.records if rec.name == "service.matches.failures"]
    assert [(rec.levelname, rec.exc_info) for rec in said] == [("WARNING", None)]
    assert "CLUSTERDOWN" in said[0].getMessage()


# -- a reply lost after Redis applied the commit (issue 21, "Honest answers") ---------------------------------


@pytest.fixture
def tcp_redis(tmp_path: Path) -> Iterator[TcpRedis]:
    server = TcpRedis(tmp_path / "tcp", free_port(), appendfsync="always").start()
    yield server
    server.stop()


def test_a_reply_lost_after_the_commit_is_never_a_plain_unavailable(tcp_redis: TcpRedis, client_for: ClientFor) -> None:
    """A proxy lets Redis apply the commit, drops its reply and refuses the reconnect.  redis-py
    retries the broken connection once and the retry's error says "Error connecting": that used
    to be read as "never reached Redis" and answered `503 unavailable` while Redis held the move
    (the client's next try for that ply then got 409 stale_ply).  Once the commit may have been
    sent, a failure is `503 outcome_unknown`, and the retry gets the first answer."""
    proxy = Proxy(tcp_redis.port)
    try:
        client = client_for(REDIS_URL=proxy.url, REDIS_TIMEOUT_S=1.0, REDIS_CONNECT_TIMEOUT_S=0.3)
        match_id, h0, _ = create(client)
        store = get_store(client.application)
        direct = redis.Redis.from_url(tcp_redis.url, decode_responses=True)
        direct.script_load(store._commit.text)  # so that the EVALSHA runs (no NOSCRIPT)
        proxy.drop_reply_after(store._commit.sha.encode())  # the commit script, by its SHA-1 (EVALSHA)
        r = client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers={**h0, "Idempotency-Key": "k"})
        assert proxy.dropped.is_set()
        unknown(r)
        assert '"p":0' in direct.lindex(store.keys(match_id)[1], 0)  # Redis holds the move the 503 did not confirm
        direct.close()
        proxy.accept()
        again = client.post(
            f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers={**h0, "Idempotency-Key": "k"}
        )
        assert (again.status_code, again.headers.get("Idempotent-Replayed"), again.json["ply"]) == (200, "true", 1)
    finally:
        proxy.close()


def test_a_match_created_without_its_answer_is_outcome_unknown(tcp_redis: TcpRedis, client_for: ClientFor) -> None:
    proxy = Proxy(tcp_redis.port)
    try:
        client = client_for(REDIS_URL=proxy.url, REDIS_TIMEOUT_S=1.0, REDIS_CONNECT_TIMEOUT_S=0.3)
        create(client)  # the scripts are known to Redis: the next create is an EVALSHA
        proxy.drop_reply_after(get_store(client.application)._create.sha.encode())
        r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}})
        assert proxy.dropped.is_set()
        assert (r.status_code, r.json["error"]["code"]) == (503, "outcome_unknown"), r.json
        assert "Create it again" in r.json["error"]["message"]
    finally:
        proxy.close()
