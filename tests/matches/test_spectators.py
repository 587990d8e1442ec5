"""Spectators (issue 20): every event stream of a match in one process
shares one feed (service/matches/events.py ``Feed``), so an event is built once per
process, not once per listener, and a change is read from Redis once for all
of them; listeners are capped per match (``503 too_many_listeners``) and per
client address (``429 too_many_concurrent``).  On real Redis, through the
spec-checked client, streams read in threads."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from matchkit import Match, NewMatch

from service.matches import events
from service.matches.db import get_hub


def until(check: Callable[[], bool], timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


class Reader(threading.Thread):
    """One event stream of the match, read until ``count`` events (comments aside) have come."""

    def __init__(self, app: Flask, match_id: str, count: int) -> None:
        super().__init__(daemon=True)
        self.app, self.match_id, self.count = app, match_id, count
        self.names: list[str] = []

    def run(self) -> None:
        # Flask's own client: the spec-checked one reads a whole body before handing it over
        resp = FlaskClient(self.app).get(f"/v1/matches/{self.match_id}/events", buffered=False)
        try:
            for chunk in resp.response:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                self.names += [line[7:] for line in text.splitlines() if line.startswith("event: ")]
                if len(self.names) >= self.count:
                    return
        finally:
            resp.close()


@pytest.mark.app_config(EVENTS_HEARTBEAT_S=60.0)
def test_each_event_is_built_once_per_process_whatever_the_listeners(app: Flask, new_match: NewMatch, monkeypatch: Any) -> None:
    built: list[int] = []
    reads: list[int] = []
    describe_step, settled = events.describe_step, events.settled
    monkeypatch.setattr(events, "describe_step", lambda *a: built.append(1) or describe_step(*a))
    monkeypatch.setattr(events, "settled", lambda *a: reads.append(1) or settled(*a))
    m: Match = new_match("catchup", {"size": 3})
    readers = [Reader(app, m.id, 1 + 3) for _ in range(20)]  # the state, then three moves
    for r in readers:
        r.start()
    until(lambda: all(r.names for r in readers))
    reads_before = len(reads)
    for ply, cell in enumerate(["C3", "B2", "A1"]):
        assert m.move(ply % 2, cell, ply).status_code == 200
        until(lambda ply=ply: all(len(r.names) >= 2 + ply for r in readers))
    for r in readers:
        r.join(10)
    assert all(r.names == ["state", "move", "move", "move"] for r in readers)
    assert len(built) == 3  # one per record entry, not one per listener (was 60)
    assert len(reads) - reads_before <= 3 * 3  # a read or so per move for all twenty (was one per listener per move)


@pytest.mark.app_config(MAX_LISTENERS_PER_MATCH=3, MAX_LISTENERS_PER_ADDRESS=2)
def test_listeners_are_capped_per_match_and_per_address(app: Flask, client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3})
    hub = get_hub(app)
    answers: list[int] = []

    def wait_from(address: str) -> threading.Thread:
        def run() -> None:
            resp = app.test_client().get(
                f"/v1/matches/{m.id}", query_string={"wait_ply": 0, "timeout_s": 20}, environ_base={"REMOTE_ADDR": address}
            )
            answers.append(resp.status_code)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    waiting = [wait_from("10.0.0.1"), wait_from("10.0.0.1")]
    until(lambda: hub.listeners == 2)
    over = client.get(f"/v1/matches/{m.id}", query_string={"wait_ply": 0}, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert over.status_code == 429 and over.json["error"]["code"] == "too_many_concurrent"
    assert over.json["error"]["details"] == {"limit": 2, "what": "listeners"} and over.headers["Retry-After"] == "5"
    waiting.append(wait_from("10.0.0.2"))
    until(lambda: hub.listeners == 3)
    for path in (f"/v1/matches/{m.id}/events", f"/v1/matches/{m.id}?wait_ply=0"):
        full = client.get(path, environ_base={"REMOTE_ADDR": "10.0.0.3"})
        assert full.status_code == 503 and full.json["error"]["code"] == "too_many_listeners"
        assert full.json["error"]["details"] == {"limit": 3} and full.headers["Retry-After"] == "5"
    # a plain read is no listener: never capped
    assert client.get(f"/v1/matches/{m.id}", environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 200
    assert m.move(0, "C3", 0).status_code == 200
    for thread in waiting:
        thread.join(10)
    assert answers == [200, 200, 200]
    assert hub.listeners == 0
    query = {"wait_ply": 5, "timeout_s": 0}
    again = client.get(f"/v1/matches/{m.id}", query_string=query, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert again.status_code == 200  # the seats were given back
