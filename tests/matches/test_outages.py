"""Clocks through an outage (issue 21; RULES R-T3): a seat whose move the service could not take
because its match store was out of reach does not lose on time for it."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from flask.testing import FlaskClient

from service.matches import sweeper
from service.matches.db import get_store
from service.run.embedded import EmbeddedRedis

Start = Callable[..., EmbeddedRedis]
ClientFor = Callable[..., FlaskClient]


def test_an_outage_is_credited_to_the_clocks_it_stopped(private_redis: Start, client_for: ClientFor, tmp_path: Path) -> None:
    server = private_redis(tmp_path / "r")
    client = client_for(REDIS_URL=server.url, REDIS_TIMEOUT_S=0.5, REDIS_CONNECT_TIMEOUT_S=0.5)
    store = get_store(client.application)
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 3, "bank_s": 0}})
    match_id, seat0 = r.json["match_id"], {"Authorization": "Bearer " + r.json["seats"]["0"]}
    deadline = store.deadline(match_id)
    assert deadline is not None
    stop = threading.Event()
    running = threading.Thread(target=sweeper.run, args=(store, 0.1, stop), daemon=True)
    running.start()
    try:
        end = time.monotonic() + 5
        while store.r.get(store.beat_key(int(match_id[:2], 16))) is None:  # the sweeper looked at the shard
            assert time.monotonic() < end
            time.sleep(0.05)
        assert time.time() * 1000 < deadline - 1000, "too slow to start the outage before the deadline"
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGSTOP)  # the match store is out of reach...
        stopped = time.monotonic()
        time.sleep(0.5)
        tried = client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=seat0)
        assert (tried.status_code, tried.json["error"]["code"]) == (503, "unavailable")  # the seat tried in time
        while time.time() * 1000 < deadline + 1500 or time.monotonic() - stopped < 4.5:  # longer than OUTAGE_MS
            time.sleep(0.1)
        os.kill(server.process.pid, signal.SIGCONT)  # ...until its turn of 3 s ran out
        answers = []
        for _ in range(40):  # Redis may still be waking up: a timeout, for a moment
            r = client.post(f"/v1/matches/{match_id}/moves", json={"move": "C3", "ply": 0}, headers=seat0)
            answers.append((r.status_code, str((r.json.get("error") or {}).get("details"))))
            if r.status_code != 503:
                break
            time.sleep(0.1)
        assert r.status_code == 200, answers  # not 410: the outage was not charged to seat 0 (R-T3)
        assert set(answers[:-1]) <= {(503, "{'redis': 'timeout'}")}, answers
        move = client.get(f"/v1/matches/{match_id}/moves").json["moves"][0]
        assert move["kind"] == "move"
        credited = store.deadline(match_id)  # seat 1's turn now: not flagged either
        assert credited is not None
    finally:
        if server.process is not None and server.process.poll() is None:
            os.kill(server.process.pid, signal.SIGCONT)
        stop.set()
        running.join(10)


def test_a_request_credits_the_outage_once_when_no_sweeper_is_left(client: FlaskClient) -> None:
    """R-T3 without a sweeper: a request finding a shard unwatched for more than OUTAGE_MS credits the gap
    itself (before applying any flag), once; it marks the beat, so the next request does not credit again
    and the clock runs out as usual."""
    store = get_store(client.application)
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 1, "bank_s": 0}})
    match_id = r.json["match_id"]
    shard = int(match_id[:2], 16)
    deadline = store.deadline(match_id)
    assert deadline is not None
    store.beat(store.r, [shard], deadline - 3000)  # the last sweeper looked 2 s before the turn began
    time.sleep(1.3)  # the turn of 1 s ran out, unwatched
    seen = client.get(f"/v1/matches/{match_id}").json
    assert seen["state"]["status"] == "ongoing"  # credited: not flagged
    credited = store.deadline(match_id)
    assert credited is not None and credited - deadline >= 3000
    assert str(store.r.get(store.beat_key(shard))).endswith(":r")
    time.sleep(max(0.0, (credited - store.now_ms(match_id)) / 1000) + 0.2)
    assert client.get(f"/v1/matches/{match_id}").json["state"]["end"] == "flag"  # credited once, not forever


def test_no_credit_without_an_outage(client: FlaskClient, store: object) -> None:
    """A sweeper's beat that is fresh credits nothing: flags fall at their deadline (R-T1)."""
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 1, "bank_s": 0}})
    match_id = r.json["match_id"]
    real = get_store(client.application)
    deadline = real.deadline(match_id)
    stop = threading.Event()
    running = threading.Thread(target=sweeper.run, args=(real, 0.1, stop), daemon=True)
    running.start()
    try:
        end = time.monotonic() + 5
        while real.deadline(match_id) is not None and time.monotonic() < end:
            time.sleep(0.05)
        rec = client.get(f"/v1/matches/{match_id}/moves").json
        assert rec["end"] == "flag" and rec["moves"][0]["kind"] == "flag"
        assert deadline is not None and real.now_ms(match_id) - deadline < 1500
    finally:
        stop.set()
        running.join(10)
