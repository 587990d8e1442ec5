"""The seconds after a crash, for real (issue 34 items 12 and 13; RULES R-T3): ``python -m service.run.serve``
(what ``make run`` runs) with its embedded Redis, a match with a 10 s turn, one move; the whole service and its
Redis killed with SIGKILL; started again with ``SWEEPER=0`` and a sweeper 3 s later (the order compose
allows; the app answers first).  The running turn gets the outage back before any flag, once, and exactly as
service/matches/liveness.py promises: never less than the time the service was down, at most one beat
interval (``BEAT_S``) more.
The same on an injected clock, exact and for outages of minutes and days: tests/matches/test_outages.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import redis
from served import call

from service.matches.keys import shard_of
from service.matches.record import iso
from service.matches.redisclient import make_client
from service.matches.store import Store
from umpire.server import free_port

ROOT = Path(__file__).resolve().parents[2]
BEAT_MS = 1000  # BEAT_S's default

SLACK_MS = 500  # a beat scheduled late on a loaded machine
# (Redis killed alone loses no write: it hands each to the system before it answers; only a crash of the machine
# under appendfsync everysec can lose the last beats, and with them make the credit up to a second longer.)


def environment(folder: Path, port: int, **env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER")}
    return {**base, "HOST": "127.0.0.1", "PORT": str(port), "DATA_DIR": str(folder), "WEB_CONCURRENCY": "2", **env}


def started(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A process in a session (and process group) of its own, as a shell runs `make run`."""
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def healthy(base: str, proc: subprocess.Popen[bytes], log: Path, wait_s: float = 60) -> None:
    end = time.monotonic() + wait_s
    while True:
        try:
            if call(base, "GET", "/v1/health")[0] == 200:
                return
        except OSError:
            pass
        assert proc.poll() is None and time.monotonic() < end, log.read_text(errors="replace")[-4000:]
        time.sleep(0.1)


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is gone but for its parent's wait
    except FileNotFoundError:
        return True


def stopped(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def cleaned(procs: list[subprocess.Popen[bytes]], folder: Path) -> Iterator[None]:
    """Whatever the test leaves running is stopped: the processes it started, then the folder's Redis."""
    try:
        yield
    finally:
        for proc in procs:
            stopped(proc)
        sock = folder / "redis.sock"
        if sock.exists():
            with suppress(redis.RedisError, OSError):
                redis.Redis(unix_socket_path=str(sock), socket_timeout=5).shutdown(nosave=False)


def redis_pid(url: str) -> int:
    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def test_a_crash_of_everything_is_credited_once_before_any_flag(tmp_path: Path) -> None:
    folder, log = tmp_path / "data", tmp_path / "serve.log"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"unix://{folder / 'redis.sock'}"
    serve = [sys.executable, "-m", "service.run.serve"]
    procs: list[subprocess.Popen[bytes]] = []
    with cleaned(procs, folder):
        procs.append(first := started(serve, environment(folder, port), log))  # with its sweeper
        healthy(base, first, log)
        status, made = call(
            base, "POST", "/v1/matches", {"game": "catchup", "options": {"size": 3}, "clock": {"turn_s": 10, "bank_s": 0}}
        )
        assert status == 201, made
        match_id, seats = made["match_id"], made["seats"]
        status, moved = call(base, "POST", f"/v1/matches/{match_id}/moves", {"move": "C3", "ply": 0}, seats["0"])
        assert status == 200, moved
        store = Store(make_client(url, 2.0), "umpire:")
        before = store.deadline(match_id)  # seat 1's turn of 10 s, begun at the move
        assert before is not None
        server = redis_pid(url)
        time.sleep(1.0)

        crashed_ms = time.time() * 1000  # the whole service and its Redis, at once, as a power cut would
        os.killpg(first.pid, signal.SIGKILL)
        os.kill(server, signal.SIGKILL)
        first.wait()
        end = time.monotonic() + 10
        while not gone(server):
            assert time.monotonic() < end
            time.sleep(0.05)
        store.r.close()
        time.sleep(12.0)  # down past seat 1's deadline

        restarted_ms = time.time() * 1000
        procs.append(app := started(serve, environment(folder, port, SWEEPER="0"), log))
        healthy(base, app, log)
        status, seen = call(base, "GET", f"/v1/matches/{match_id}")
        answered_ms = time.time() * 1000
        assert status == 200 and seen["state"]["status"] == "ongoing", seen  # issue 34 item 12: it was end: flag
        store = Store(make_client(url, 2.0), "umpire:")
        credited = store.deadline(match_id)
        assert credited is not None
        credit = credited - before
        lower, upper = restarted_ms - crashed_ms, answered_ms - crashed_ms + BEAT_MS + SLACK_MS
        print(f"credit {credit} ms; the service was down {lower:.0f} to {answered_ms - crashed_ms:.0f} ms")
        assert lower <= credit <= upper  # never less than the outage; at most a beat more

        time.sleep(3.0)  # the app serves alone for 3 s; then a sweeper comes back too
        sweep = [sys.executable, "-m", "flask", "--app", "service", "sweep"]
        procs.append(sweeper := started(sweep, environment(folder, port, REDIS_URL=url), tmp_path / "sweep.log"))
        time.sleep(3.0)
        assert sweeper.poll() is None, (tmp_path / "sweep.log").read_text()
        beat = store.r.get(store.beat_key(shard_of(match_id)))
        assert beat is not None and time.time() * 1000 - int(beat) < 3000  # the shard is served
        after = store.deadline(match_id)
        print(f"after the sweeper came back: {None if after is None else after - credited} ms more")
        assert after == credited  # issue 34 item 13: the sweeper credited it a second time

        wait_s = (credited - time.time() * 1000) / 1000 + 1.0
        assert wait_s > 0, "the turn should still be running"
        time.sleep(wait_s)
        status, record = call(base, "GET", f"/v1/matches/{match_id}/moves")
        flag: dict[str, Any] = record["moves"][-1]
        assert (status, record["end"], flag["kind"], flag["seat"]) == (200, "flag", "flag", 1)
        assert flag["at"] == iso(credited)  # the flag falls at the deadline the outage moved, as usual (R-T1)
        store.r.close()
