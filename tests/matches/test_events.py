"""``GET /v1/matches/{id}/events`` (issue "Matches for programs"; API.md "Streams").

Through the test client, with streams that end (the match has finished, or
``EVENTS_LIFETIME_S`` is short): the ids follow the ply, every event once,
a reconnect with ``Last-Event-ID`` gets exactly what came after it.  Live, on
a real gunicorn with its gevent worker: a listener follows a match as it is
played, across a reconnect and a restart of the app; and a few hundred
listeners wait at once on one server.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from gamekit import random_move
from matchkit import FakeClock, Match, NewMatch, sse_events
from served import AppServer, Stream, call

from engine.registry import GAMES
from service.matches import events as events_module
from service.run import embedded


def stream(client: FlaskClient, match_id: str, last: str | None = None) -> list[tuple[str, str, Any]]:
    headers = {} if last is None else {"Last-Event-ID": last}
    r = client.get(f"/v1/matches/{match_id}/events", headers=headers)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-cache"
    text = r.get_data(as_text=True)
    assert text.startswith("retry: ")
    return sse_events(text)


def played(new_match: NewMatch) -> tuple[Match, list[dict[str, Any]]]:
    """A Catchup match of three moves, then seat 1 resigns; the answers of the moves."""
    m = new_match("catchup", {"size": 3}, players=None)
    answers = [m.move(0, "C3", 0).json, m.move(1, "B2 B3", 1).json, m.move(0, "C2 C4 D3", 2).json]
    assert m.resign(1).status_code == 200
    return m, answers


def test_every_event_once_with_ids_from_the_ply(client: FlaskClient, new_match: NewMatch) -> None:
    m, answers = played(new_match)
    events = stream(client, m.id, "0")  # from the start
    assert [(name, i) for name, i, _ in events] == [
        ("move", "1"),
        ("move", "2"),
        ("move", "3"),
        ("resign", "3.1"),
        ("end", "3.2"),
    ]
    for (_, _, data), answer in zip(events, answers, strict=False):
        assert (data["move"], data["state"], data["events"]) == (answer["move"], answer["state"], answer["events"])
        assert data["announcements"] == answer["announcements"] and data["clock"] == answer["clock"]
    end = events[-1][2]
    assert (end["winner"], end["end"], end["result"]) == (0, "resign", "1-0")
    assert end["state"] == m.state()


def test_a_reconnect_gets_exactly_what_it_missed(client: FlaskClient, new_match: NewMatch) -> None:
    m, _ = played(new_match)
    everything = stream(client, m.id, "0")
    for k, (_, event_id, _) in enumerate(everything[:-1]):
        assert stream(client, m.id, event_id) == everything[k + 1 :], event_id


def test_a_replay_is_sent_a_bounded_part_at_a_time(
    client: FlaskClient, new_match: NewMatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34, item 7: ten streams from ``Last-Event-ID: 0`` of a long record sent 66.6 MB each at
    once and stalled a worker.  A connection replays at most REPLAY_MAX events, in writes of at most
    CHUNK_BYTES (one event may be more), then ends telling the client to come back at once
    (``retry``); the next connection, from the last id it had, gets the rest: nothing lost or twice."""
    m, _ = played(new_match)
    monkeypatch.setattr(events_module, "REPLAY_MAX", 2)
    monkeypatch.setattr(events_module, "CHUNK_BYTES", 1)
    got: list[tuple[str, str, Any]] = []
    last = "0"
    for _ in range(5):
        r = client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": last}, buffered=False)
        writes = [bytes(w) for w in r.response]
        r.close()
        part = sse_events(b"".join(writes).decode())
        assert all(len(sse_events(w.decode())) <= 1 for w in writes)  # CHUNK_BYTES: one event a write at most
        got += part
        if part[-1][0] == "end":
            break
        assert len(part) == 2 and writes[-1] == b"retry: 100\n\n"  # REPLAY_MAX, then back at once
        last = part[-1][1]
    assert [(name, i) for name, i, _ in got] == [("move", "1"), ("move", "2"), ("move", "3"), ("resign", "3.1"), ("end", "3.2")]


def test_a_reconnect_after_the_end_is_told_to_stop(client: FlaskClient, new_match: NewMatch) -> None:
    """Issue 23: a reconnect after ``end`` got 200 and an empty stream, so an
    EventSource reconnected every 2 s forever.  The SSE specification's "stop"
    is 204, at the end or past it (issue 37); an earlier id still gets what it
    missed, a fresh connection the state."""
    m, _ = played(new_match)
    *_, (_, end_id, _) = stream(client, m.id, "0")
    assert end_id == "3.2"
    for last in (end_id, None):
        headers = {"Last-Event-ID": end_id} if last else {}
        r = client.get(f"/v1/matches/{m.id}/events", headers=headers, query_string={} if last else {"last_event_id": end_id})
        assert r.status_code == 204 and r.get_data() == b""
    for past in ("3.3", "4", "77", "999"):  # issue 37: an id past the end (the match never had it) is told to stop too
        r = client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": past})
        assert r.status_code == 204 and r.get_data() == b"", past
    assert [name for name, _, _ in stream(client, m.id, "3.1")] == ["end"]
    assert [name for name, _, _ in stream(client, m.id)] == ["state"]
    ongoing = new_match("catchup", {"size": 3}, players=None)
    ongoing.move(0, "C3", 0)
    client.application.config["EVENTS_LIFETIME_S"] = 0.2
    r = client.get(f"/v1/matches/{ongoing.id}/events", headers={"Last-Event-ID": "1"})
    assert r.status_code == 200  # not over: the client may wait for more


@pytest.mark.parametrize("ending", ["abort at once", "flag", "adjudicate after a move"])
def test_the_end_is_found_from_the_record_however_the_match_ended(
    client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock, ending: str
) -> None:
    """The 204 compares a reconnect's id with the end event's, found from the record alone
    (service/matches/events.py ``end_event_id``): it is the id the stream gives its ``end``."""
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 1, "bank_s": 0})
    umpire = {"Authorization": f"Bearer {m.created['umpire']}"}
    if ending == "abort at once":
        assert client.post(f"/v1/matches/{m.id}/abort", headers=umpire).status_code == 200
    elif ending == "flag":
        assert m.move(0, "C3", 0).status_code == 200
        fake_clock.advance(1.5)  # seat 1 flags (R-T1)
    else:
        assert m.move(0, "C3", 0).status_code == 200
        body = {"winner": None, "reason": "agreed"}
        assert client.post(f"/v1/matches/{m.id}/adjudicate", json=body, headers=umpire).status_code == 200
    assert m.state()["status"] == "finished"
    *before, (name, end_id, _) = stream(client, m.id, "0")
    assert name == "end"
    r = client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": end_id})
    assert r.status_code == 204
    if before:
        assert [n for n, _, _ in stream(client, m.id, before[-1][1])] == ["end"]


def test_a_fresh_connection_starts_with_the_state(client: FlaskClient, new_match: NewMatch) -> None:
    m, _ = played(new_match)
    [(name, event_id, data)] = stream(client, m.id)  # finished: the state, and the stream ends
    assert (name, event_id) == ("state", "3.2")
    assert data["state"] == m.state() and data["match_id"] == m.id
    [(name, event_id, again)] = stream(client, m.id, "2.5")  # an id this match never had: where it stands
    assert (name, event_id, again["state"]) == ("state", "3.2", data["state"])


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.3, EVENTS_HEARTBEAT_S=0.1)
def test_an_ongoing_stream_ends_after_its_lifetime_with_heartbeats(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("bug")
    start = time.monotonic()
    r = client.get(f"/v1/matches/{m.id}/events")
    text = r.get_data(as_text=True)
    assert 0.25 <= time.monotonic() - start < 5
    assert [e[0] for e in sse_events(text)] == ["state"] and ": ping" in text


@pytest.mark.app_config(EVENTS_LIFETIME_S=0.5)
def test_flags_and_r_x6_passes_are_events(client: FlaskClient, new_match: NewMatch, fake_clock: FakeClock) -> None:
    seed = {"seed": "events", "colors": [["red", "green"], ["blue", "yellow"]], "first": 1}
    m = new_match("crystal", seed, clock={"turn_s": 1, "bank_s": 1})
    fake_clock.advance(2.5)  # seat 1 flags at 2 s (R-X6): a window of one turn timer, then the turn passes
    fake_clock.advance(1)
    assert m.get().json["ply"] == 1
    events = stream(client, m.id, "0")
    assert [(name, i) for name, i, _ in events] == [("flag", "0.1"), ("pass", "1")]
    assert events[0][2]["clock"]["proxy"] is True and events[1][2]["state"]["ply"] == 1


def test_bad_last_event_id_and_unknown_match(client: FlaskClient, new_match: NewMatch) -> None:
    m = new_match("plur", {"size": 2})
    r = client.get(f"/v1/matches/{m.id}/events", headers={"Last-Event-ID": "one"})
    assert (r.status_code, r.json["error"]["code"]) == (422, "invalid_header")
    assert client.get("/v1/matches/00nosuchmatchatall/events").status_code == 404


# -- live, on a real server ------------------------------------------------------------


@pytest.fixture
def redis_server(tmp_path: Path) -> Any:
    server = embedded.start(tmp_path / "redis")
    yield server
    server.stop()


def test_a_listener_follows_a_match_live_across_a_reconnect_and_an_app_restart(
    redis_server: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = AppServer(redis_server.url, tmp_path, workers=2).start()
    try:
        _, made = call(app.base, "POST", "/v1/matches", {"game": "too", "options": {"size": 3}})
        mid, tokens = made["match_id"], made["seats"]
        game, rnd = GAMES["too"], random.Random(1)
        listener = Stream.open(app.base, mid)
        request.addfinalizer(listener.close)
        listener.until(lambda: listener.events, 10)
        assert listener.events[0].name == "state" and listener.events[0].id == "0"
        state = made["state"]

        def move() -> None:
            nonlocal state
            status, answer = call(
                app.base, "POST", f"/v1/matches/{mid}/moves",
                {"move": random_move(game, game.load(state), rnd), "ply": state["ply"]}, tokens[str(state["to_move"])],
            )  # fmt: skip
            assert status == 200, answer
            state = answer["state"]

        for _ in range(5):
            move()
        listener.until(lambda: len(listener.events) == 6, 10)
        assert [e.id for e in listener.events] == ["0", "1", "2", "3", "4", "5"]
        listener.close()
        last = listener.events[-1].id
        for _ in range(3):  # played while nobody listens
            move()
        app.stop()  # the app goes away and comes back: the stream is Redis's, not a process's
        app = AppServer(redis_server.url, tmp_path, workers=1).start()
        again = Stream.open(app.base, mid, last)
        request.addfinalizer(again.close)
        while state["status"] == "ongoing":
            move()
        again.until(lambda: again.events and again.events[-1].name == "end", 15)
        ids = [e.id for e in again.events]
        assert ids == [*map(str, range(6, state["ply"] + 1)), f"{state['ply']}.1"]  # no gap, no duplicate
        assert again.events[-1].data["state"] == state
        again.until(lambda: again.closed, 5)  # the stream ends after the end
        assert again.closed
        again.close()
    finally:
        app.stop()


def test_a_few_hundred_listeners_at_once(redis_server: Any, tmp_path: Path) -> None:
    """One gevent worker holds them all (no thread per listener); one move reaches every one.
    (All from one address: over MAX_LISTENERS_PER_ADDRESS's default of 200, so it is raised here.)"""
    app = AppServer(redis_server.url, tmp_path, workers=1, MAX_LISTENERS_PER_ADDRESS="1000").start()
    listeners: list[Stream] = []
    try:
        _, made = call(app.base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": 3}})
        mid = made["match_id"]
        for _ in range(300):
            listeners.append(Stream.open(app.base, mid))
        deadline = time.monotonic() + 30
        for s in listeners:
            s.until(lambda s=s: s.events, max(0.1, deadline - time.monotonic()))
        assert all(s.events and s.events[0].name == "state" for s in listeners)
        start = time.monotonic()
        status, _ = call(app.base, "POST", f"/v1/matches/{mid}/moves", {"move": "C3", "ply": 0}, made["seats"]["0"])
        assert status == 200
        assert time.monotonic() - start < 5  # the move is not starved by the waiting listeners
        deadline = time.monotonic() + 30
        for s in listeners:
            s.until(lambda s=s: len(s.events) == 2, max(0.1, deadline - time.monotonic()))
        assert all([e.id for e in s.events] == ["0", "1"] for s in listeners)
    finally:
        for s in listeners:
            s.close()
        app.stop()
