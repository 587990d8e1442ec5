"""Clocks in real seconds on a real Redis (R-T1, R-X6): a sweeper flags on time
with nobody asking, a waiting read wakes at the deadline, and ``make run``'s
``python -m service.run.serve`` (gunicorn, embedded Redis, sweeper) works end to end.
Settings are short (about a second) to keep the suite fast."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from matchkit import NewMatch
from served import call
from test_clocks import CRYSTAL, a_turn

from service.matches import sweeper
from service.matches.match import Live
from service.matches.record import iso
from service.matches.store import Store
from service.run import embedded
from umpire.server import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def running_sweeper(store: Store) -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=sweeper.run, args=(store, 0.05, stop), daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(5)


def raw_live(store: Store, match_id: str) -> Live:
    text = store.r.hget(store.key(match_id), "live")
    assert text is not None
    return Live.from_json(text)


def wait_until(check: Any, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_sweeper_flags_on_time_with_nobody_asking(new_match: NewMatch, store: Store, running_sweeper: None) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 0.5, "bank_s": 0.5})
    deadline_ms = raw_live(store, m.id).clock.deadline
    assert deadline_ms is not None
    # no API read from here on: only the sweeper can apply the flag
    wait_until(lambda: raw_live(store, m.id).state["status"] == "finished", 5)
    applied_ms = store.now_ms()
    live = raw_live(store, m.id)
    assert (live.state["end"], live.state["winner"]) == ("flag", 1)
    assert applied_ms - deadline_ms < 500  # applied promptly, not on some later read
    flag = m.record()["moves"][0]
    assert (flag["kind"], flag["at"]) == ("flag", iso(deadline_ms))


def test_crystal_proxy_and_pass_in_real_seconds(new_match: NewMatch, store: Store, running_sweeper: None) -> None:
    m = new_match("crystal", CRYSTAL, clock={"turn_s": 0.4, "bank_s": 0.4})
    # seat 1 flags at 0.8 s: a proxy window of 0.4 s, then the turn passes (R-X6)
    wait_until(lambda: raw_live(store, m.id).clock.proxy, 5)
    wait_until(lambda: raw_live(store, m.id).state["ply"] == 1, 5)
    live = raw_live(store, m.id)
    assert live.state["to_move"] == 0 and not live.clock.proxy
    kinds = [e["kind"] for e in m.record()["moves"]]
    assert kinds == ["flag", "pass"]
    # seat 0 moves in time; seat 1 (bank spent) now has the plain turn timer only
    r = m.move(0, a_turn(live.state), 1)
    assert r.status_code == 200
    assert r.json["clock"]["seats"]["1"]["bank_s"] == 0


def test_bank_use_rounded_to_the_step_in_real_seconds(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 0.2, "bank_s": 5, "step_s": 1})
    time.sleep(0.45)  # 0.25 s or so past the allowance: one whole step (R-T1)
    r = m.move(0, "C3", 0)
    assert r.status_code == 200 and r.json["clock"]["seats"]["0"]["bank_s"] == 4
    (entry,) = m.record()["moves"]
    assert entry["used_s"] >= 0.45 and entry["bank_charged_s"] == 1


def test_waiting_read_wakes_at_the_deadline_without_a_sweeper(new_match: NewMatch) -> None:
    m = new_match("catchup", {"size": 3}, clock={"turn_s": 0.5, "bank_s": 0})
    start = time.monotonic()
    r = m.get(wait_ply=0, timeout_s=10)
    took = time.monotonic() - start
    assert r.json["state"]["end"] == "flag"
    assert 0.3 < took < 2.0


# -- make run: python -m service.run.serve --------------------------------------------------------


class Served:
    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/v1"
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update(PORT=str(self.port), HOST="127.0.0.1", DATA_DIR=str(data_dir), WEB_CONCURRENCY="2", ACCESS_LOG="/dev/null")
        self.proc = subprocess.Popen([sys.executable, "-m", "service.run.serve"], cwd=ROOT, env=env)
        end = time.monotonic() + 30
        while True:
            try:
                if call(self.base, "GET", "/health")[0] == 200:
                    break
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < end, "service.run.serve did not come up"
            time.sleep(0.1)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(30)


def test_make_run_serves_sweeps_and_restarts_without_loss(tmp_path: Path) -> None:
    data = tmp_path / "data"
    served = Served(data)
    try:
        status, created = call(served.base, "POST", "/matches", {"game": "catchup", "options": {"size": 3}})
        assert status == 201
        keep, t0 = created["match_id"], created["seats"]["0"]
        assert call(served.base, "POST", f"/matches/{keep}/moves", {"move": "C3", "ply": 0}, t0)[0] == 200
        _, quick = call(served.base, "POST", "/matches", {"game": "catchup", "clock": {"turn_s": 0.3, "bank_s": 0}})
        mid = quick["match_id"]
        # the sweeper process applies the flag: look in Redis itself, not through a read that would settle it
        r = redis.Redis.from_url(f"unix://{data / 'redis.sock'}", decode_responses=True)
        key = f"umpire:{{s{mid[:2]}}}:m:{mid}"  # the match's hash, under its shard's tag (service/matches/store.py)
        wait_until(lambda: json.loads(r.hget(key, "live") or "{}")["state"]["status"] == "finished", 10)
        before = call(served.base, "GET", f"/matches/{keep}")[1]
        read_at = time.time()
    finally:
        assert served.stop() == 0
    assert not (data / "redis.sock").exists() or not _answers(data)  # Redis went down with it
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").exists()
    served = Served(data)
    try:
        after = call(served.base, "GET", f"/matches/{keep}")[1]
        down_ms = (time.time() - read_at) * 1000
        assert after["state"] == before["state"]
        # The deadline is intact, or moved later by the time the service was down (RULES R-T3: a stop
        # of more than 3 s without any serving process's beat is credited to the running clock), never earlier.
        shift = _ms(after["clock"]["deadline"]) - _ms(before["clock"]["deadline"])
        assert shift == 0 or 3000 < shift <= down_ms, (shift, down_ms)
    finally:
        assert served.stop() == 0


def _ms(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


def _answers(data: Path) -> bool:
    try:
        return bool(redis.Redis.from_url(f"unix://{data / 'redis.sock'}", socket_timeout=0.5).ping())
    except redis.RedisError:
        return False


def test_the_sweeper_logs_each_line_once_in_the_services_format(tmp_path: Path) -> None:
    """``flask sweep`` writes through the service's log handler (LOG_FORMAT=json: JSON
    lines), not also through a handler of its own (each line was written twice)."""
    server = embedded.start(tmp_path / "redis")
    env = {**os.environ, "REDIS_URL": server.url, "LOG_FORMAT": "json", "SWEEP_INTERVAL_S": "0.2"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "service", "sweep"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(3)  # it starts, says so, and sweeps a few times
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
        server.stop()
    said = [line for line in err.splitlines() if "sweeping" in line]
    assert len(said) == 1, err
    assert json.loads(said[0])["message"].startswith("sweeping")
