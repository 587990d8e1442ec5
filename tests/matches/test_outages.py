"""Clocks through an outage (issues 21 and 34; RULES R-T3): a seat whose move the service could not take
because its match store was out of reach, or the whole service was down, does not lose on time for it.

What service/matches/liveness.py promises, checked here on an injected clock (exact) and against a real
Redis frozen under a sweeper: every serving process beats every shard; a beat older than ``OUTAGE_S``
(3 s) is an outage, credited before any flag, however long, by whichever process meets it first, once;
each running turn gets ``now - max(beat, its start)``.  A real ``make run`` killed and started again:
tests/matches/test_crash_restart.py."""

from __future__ import annotations

import gc
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch

from service import create_app
from service.matches import db, liveness, sweeper
from service.matches.db import get_store
from service.matches.keys import shard_of
from service.matches.store import Store
from service.run import gunicorn_conf
from service.run.embedded import EmbeddedRedis

Start = Callable[..., EmbeddedRedis]
ClientFor = Callable[..., FlaskClient]


def test_an_outage_is_credited_to_the_clocks_it_stopped(private_redis: Start, client_for: ClientFor, tmp_path: Path) -> None:
    server = private_redis(tmp_path / "r")
    client = client_for(REDIS_URL=server.url, REDIS_TIMEOUT_S=0.5, REDIS_CONNECT_TIMEOUT_S=0.5)
    store = get_store(client.application)
    r = client.post("/v1/matches", json={"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 5, "bank_s": 0}})
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
        os.kill(server.process.pid, signal.SIGCONT)  # ...until its turn of 5 s ran out
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


# -- on an injected clock: exactly the outage, once ---------------------------------------------

FIVE_S = {"turn_s": 5, "bank_s": 0}


def served(store: Store, match_id: str, ms: int) -> None:
    """A serving process's beat on the match's shard at ``ms`` (what every worker and sweeper writes)."""
    store.r.set(store.beat_key(shard_of(match_id)), str(ms))


def moved_once(m: Match, store: Store, clock: FakeClock) -> int:
    """Seat 0 moves: seat 1's turn of 5 s begins now; its deadline."""
    assert m.move(0, "C3", 0).status_code == 200
    deadline = store.deadline(m.id)
    assert deadline == clock() + 5000
    return deadline


@pytest.mark.parametrize("outage_s", [3.001, 70, 2 * 86400])
def test_a_running_clock_gets_any_outage_back_before_its_flag(
    new_match: NewMatch, fake_clock: FakeClock, store: Store, outage_s: float
) -> None:
    """Issue 34 item 12: a seat was flagged through an outage of over 60 s (a request never credited a gap
    longer than that).  However long the outage, the running turn gets it back, exactly (R-T3), and then
    flags as usual at the deadline so moved (R-T1)."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    fake_clock.advance(1)
    served(store, m.id, fake_clock())  # the last beat before the service went down
    fake_clock.advance(outage_s)
    seen = m.get().json
    assert seen["state"]["status"] == "ongoing", seen  # not flagged: the outage is seat 1's no more
    credited = deadline + round(outage_s * 1000)
    assert store.deadline(m.id) == credited
    assert seen["clock"]["seats"]["1"]["remaining_s"] == 4.0  # 5 s less the second it had before the outage
    served(store, m.id, fake_clock())
    assert sweeper.sweep_once(store, fake_clock()) == 0
    fake_clock.ms = credited
    served(store, m.id, fake_clock())  # the service is up again: its beats are fresh
    assert m.state()["status"] == "ongoing"
    fake_clock.ms = credited + 1
    assert m.state()["end"] == "flag"
    flag = m.record()["moves"][-1]
    assert (flag["kind"], flag["seat"], flag["used_s"]) == ("flag", 1, 5.0)  # at the deadline: the outage is not time used


def test_an_outage_of_three_seconds_or_less_is_no_outage(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    """R-T3: more than 3 s without a beat; a beat exactly 3 s old is a service that was serving."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    served(store, m.id, fake_clock())
    fake_clock.advance(3)
    assert m.get().json["clock"]["seats"]["1"]["remaining_s"] == 2.0
    assert store.deadline(m.id) == deadline
    fake_clock.advance(0.001)  # now it is more than 3 s since the last beat (the GET above does not beat)
    assert m.get().json["clock"]["seats"]["1"]["remaining_s"] == 5.0
    assert store.deadline(m.id) == deadline + 3001


def test_a_turn_begun_after_the_last_beat_gets_its_own_outage_only(
    new_match: NewMatch, fake_clock: FakeClock, store: Store
) -> None:
    """Issue 34 item 13: measured from the last beat, a turn that began 0.58 s after it was credited 0.58 s
    more than the outage cost it.  Each running turn gets now - max(beat, its start)."""
    before = new_match("catchup", {"size": 3}, clock=FIVE_S)
    after = new_match("catchup", {"size": 3}, clock=FIVE_S)
    first = moved_once(before, store, fake_clock)
    fake_clock.advance(0.5)
    served(store, before.id, fake_clock())
    served(store, after.id, fake_clock())
    fake_clock.advance(0.58)
    second = moved_once(after, store, fake_clock)  # its turn began 0.58 s after the last beat
    fake_clock.advance(10)  # nobody served either shard since
    assert before.state()["status"] == after.state()["status"] == "ongoing"
    assert store.deadline(before.id) == first + 10_580  # since the beat: its turn ran through it all
    assert store.deadline(after.id) == second + 10_000  # since its start: the 0.58 s before were served


def test_an_outage_right_after_a_credit_is_credited_too(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    """The service down again before anything beat after a credit (a crash loop), or a beat left by an
    earlier version (``ms:r``): the second outage is the seat's no more than the first."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    store.r.set(store.beat_key(shard_of(m.id)), f"{fake_clock()}:r")
    fake_clock.advance(10)
    assert m.state()["status"] == "ongoing"  # credited by this read; nothing beats after it
    fake_clock.advance(10)
    assert m.state()["status"] == "ongoing"
    assert store.deadline(m.id) == deadline + 20_000


def test_an_outage_is_credited_once_whoever_meets_it_first(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    """Requests, a sweeper and a worker's beats all at once on a stale shard: one credit, the outage's."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    served(store, m.id, fake_clock())
    fake_clock.advance(70)
    barrier = threading.Barrier(10)
    keeper = liveness.Keeper(lambda: store, 1.0)
    one = sweeper.Sweeper(store)

    def each(i: int) -> Any:
        barrier.wait()
        if i == 0:
            return one.sweep(fake_clock())
        if i == 1:
            return [f.result() for f in keeper.round()]
        return m.get().json["state"]["status"]

    try:
        threads = [threading.Thread(target=each, args=(i,)) for i in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert store.deadline(m.id) == deadline + 70_000
        for _ in range(3):  # the service goes on: a second of beats, a sweeper's round, a read
            fake_clock.advance(1)
            [f.result() for f in keeper.round()]
            one.sweep(fake_clock())
            assert m.state()["status"] == "ongoing"
        assert store.deadline(m.id) == deadline + 70_000
    finally:
        one.close()
        keeper.stop()


@pytest.mark.app_config(OUTAGE_S=1.0, BEAT_S=0.25)
def test_the_threshold_is_a_setting(new_match: NewMatch, fake_clock: FakeClock, store: Store) -> None:
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    served(store, m.id, fake_clock())
    fake_clock.advance(1)
    assert m.state()["status"] == "ongoing" and store.deadline(m.id) == deadline
    fake_clock.advance(0.001)
    assert m.state()["status"] == "ongoing" and store.deadline(m.id) == deadline + 1001


def test_a_threshold_a_late_beat_could_cross_is_refused() -> None:
    for bad in ({"OUTAGE_S": 1.0, "BEAT_S": 0.6}, {"OUTAGE_S": 0}, {"BEAT_S": -1}):
        with pytest.raises(ValueError, match="OUTAGE_S"):
            create_app({"TESTING": True, **bad})


def test_a_worker_beats_from_its_boot_and_credits_first(
    app: Flask, new_match: NewMatch, fake_clock: FakeClock, store: Store
) -> None:
    """gunicorn's post_worker_init starts the worker's beats (service/run/gunicorn_conf.py): a stale shard is
    credited with no request at all, and from then on its beat is the worker's, renewed each BEAT_S."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    served(store, m.id, fake_clock())
    fake_clock.advance(30)

    class Worker:
        wsgi = app

    try:
        gunicorn_conf.post_worker_init(Worker())
        end = time.monotonic() + 10
        while store.deadline(m.id) == deadline:
            assert time.monotonic() < end, "the worker's beats did not credit the stale shard"
            time.sleep(0.02)
        assert store.deadline(m.id) == deadline + 30_000
        beats = store.r.get(store.beat_key(shard_of(m.id)))
        assert beats is not None and int(beats) == fake_clock()
        fake_clock.advance(0.5)
        end = time.monotonic() + 5
        while int(store.r.get(store.beat_key(shard_of(m.id))) or 0) != fake_clock():  # renewed
            assert time.monotonic() < end
            time.sleep(0.02)
    finally:
        db.close(app)  # stops the beats
        gunicorn_conf._yield = None
        gc.unfreeze()


@pytest.mark.parametrize("beats", [True, False])
def test_a_sweeper_that_comes_back_first_credits_before_it_flags(
    new_match: NewMatch, fake_clock: FakeClock, store: Store, beats: bool
) -> None:
    """Whichever process comes back first: a sweeper's round (with its beats, or ``flask sweep --once``
    without them) finds the turn's deadline long past, and credits the outage before it would flag."""
    m = new_match("catchup", {"size": 3}, clock=FIVE_S)
    deadline = moved_once(m, store, fake_clock)
    served(store, m.id, fake_clock())
    fake_clock.advance(70)
    one = sweeper.Sweeper(store, beats=beats)
    try:
        one.sweep(fake_clock())
    finally:
        one.close()
    assert store.deadline(m.id) == deadline + 70_000
    assert [e["kind"] for e in m.record()["moves"]] == ["move"]  # no flag


def test_the_beats_outlive_a_redis_that_cannot_be_reached() -> None:
    def unreachable() -> Store:
        raise redis.ConnectionError("the embedded Redis did not start")

    keeper = liveness.Keeper(unreachable, 0.05).start()
    try:
        time.sleep(0.2)
        assert keeper.thread is not None and keeper.thread.is_alive()  # and it tries again each round
        assert keeper.round() == []
    finally:
        keeper.stop()


def test_a_round_that_meets_the_stop_ends_quietly(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    """A worker's SIGTERM stops the beats while a round may be under way: that round submits no beat to the pool
    stop() shut down, and logs no error (before: "liveness: a round of beats failed", RuntimeError "cannot schedule
    new futures after shutdown", on a clean stop)."""
    keeper = liveness.Keeper(lambda: store, 60.0)
    keeper.stop()  # the pool is shut down, as when stop() comes during a round
    with caplog.at_level(logging.DEBUG, logger="service.matches.liveness"):
        assert keeper.round() == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    running = liveness.Keeper(lambda: store, 60.0)
    try:
        assert len(running.round()) == len(store.masters())  # a keeper not stopped beats every master
    finally:
        running.stop()
