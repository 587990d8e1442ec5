"""Who runs the embedded Redis owns it (issue 34 item 14; service/run/embedded.py): ``make run``'s clean stop
stops it; a ``make run`` that crashed (its process group killed) leaves a server the next one takes over,
after checking it is this folder's, and then stops like its own; a second ``make run`` on the same folder
shares the server without owning it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.run import embedded
from umpire.server import free_port

ROOT = Path(__file__).resolve().parent.parent


def info(url: str) -> dict[str, str] | None:
    client = redis.Redis.from_url(url, socket_timeout=2, decode_responses=True)
    try:
        return {k: str(v) for k, v in client.info("server").items()}
    except (redis.RedisError, OSError):
        return None
    finally:
        client.close()


def gone(pid: int, wait_s: float = 15.0) -> bool:
    """``pid`` has exited (or is a zombie left for a parent that is not this test) within ``wait_s``."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A data folder; whatever Redis is left answering on it at the end is killed."""
    data = tmp_path / "data"
    yield data
    found = info(f"unix://{data / 'redis.sock'}")
    if found is not None:
        os.kill(int(found["process_id"]), signal.SIGKILL)


def serve(folder: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER")}
    env.update(HOST="127.0.0.1", PORT=str(port), DATA_DIR=str(folder), SWEEPER="0", WEB_CONCURRENCY="1")
    with log.open("ab") as out:  # a session of its own: a process group, as a shell runs `make run`
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run.serve"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    end = time.monotonic() + 60
    while "embedded Redis at" not in log.read_text(errors="replace") or info(f"unix://{folder / 'redis.sock'}") is None:
        assert proc.poll() is None and time.monotonic() < end, log.read_text(errors="replace")
        time.sleep(0.1)
    return proc


def test_a_crashed_make_run_leaves_a_redis_the_next_one_owns_and_stops(folder: Path, tmp_path: Path) -> None:
    url = f"unix://{folder / 'redis.sock'}"
    first = serve(folder, free_port(), tmp_path / "first.log")
    client = redis.Redis.from_url(url, socket_timeout=2)
    client.set("umpire:kept", "1")
    client.close()
    server = info(url)
    assert server is not None
    os.killpg(first.pid, signal.SIGKILL)  # make run's whole process group, as a crash (or kill -9 -PGID)
    first.wait()
    # What is left is the server alone, nobody's: the next start takes it over.
    second = serve(folder, free_port(), tmp_path / "second.log")
    now = info(url)
    assert now is not None and (now["process_id"], now["run_id"]) == (server["process_id"], server["run_id"])  # the same
    assert redis.Redis.from_url(url).get("umpire:kept") == b"1"
    second.send_signal(signal.SIGTERM)  # a clean stop (Ctrl-C): it stops what it owns
    assert second.wait(30) == 0
    assert gone(int(server["process_id"])), "the clean stop of the make run that took it over left it running"
    assert info(url) is None
    assert "taken over (its owner died)" in (tmp_path / "second.log").read_text()


def test_an_orphan_taken_over_is_stopped_cleanly_with_the_fsync_asked_for(folder: Path) -> None:
    """An owner that dies at once (``os._exit``: no clean stop) releases the owner lock with its life."""
    crash = textwrap.dedent(f"""
        import os
        from service.run import embedded
        server = embedded.start({str(folder)!r}, own=True)
        assert server.owned
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", crash], cwd=ROOT, check=True, timeout=60)
    url = f"unix://{folder / 'redis.sock'}"
    left = info(url)
    assert left is not None
    taken = embedded.start(folder, appendfsync="always", own=True)
    try:
        assert taken.owned and taken.process is None and taken.pid == int(left["process_id"])
        assert redis.Redis.from_url(url, decode_responses=True).config_get("appendfsync") == {"appendfsync": "always"}
    finally:
        taken.stop()
    assert gone(int(left["process_id"]))
    assert info(url) is None


def test_a_second_start_on_the_folder_shares_and_only_the_owner_stops_it(folder: Path) -> None:
    owner = embedded.start(folder, own=True)
    try:
        assert owner.owned and owner.process is not None
        second = embedded.start(folder, own=True)  # another make run on the same folder, while the first runs
        assert not second.owned
        second.stop()
        assert info(owner.url) is not None  # still the first's
    finally:
        owner.stop()
    assert info(owner.url) is None
    third = embedded.start(folder, own=True)  # the lock is free again: a new owner
    try:
        assert third.owned
    finally:
        third.stop()


def test_a_server_that_is_not_the_folders_is_never_taken_over(folder: Path) -> None:
    """Something else answering on the folder's socket (not started with the folder's redis.conf) is shared,
    never stopped."""
    folder.mkdir(parents=True)
    sock = folder / "redis.sock"
    other = embedded.launch("--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no")
    try:
        end = time.monotonic() + 15
        while info(f"unix://{sock}") is None:
            assert time.monotonic() < end and other.poll() is None
            time.sleep(0.02)
        found = embedded.start(folder, own=True)
        assert not found.owned
        found.stop()
        assert other.poll() is None and info(f"unix://{sock}") is not None
    finally:
        other.kill()
        other.wait()


def test_serve_says_what_it_is_on_help_and_refuses_arguments_it_does_not_take(tmp_path: Path) -> None:
    """``python -m service.run.serve --help`` started a real server on 127.0.0.1:8000 (it read no argument);
    now it prints what it runs and where the settings are, and an argument it does not take is refused,
    each before any Redis or server starts (DATA_DIR stays empty)."""
    env = {**os.environ, "DATA_DIR": str(tmp_path / "data"), "PORT": "1"}
    helped = subprocess.run(
        [sys.executable, "-m", "service.run.serve", "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0 and helped.stdout.startswith("usage: python -m service.run.serve")
    assert "gunicorn" in helped.stdout and "docs/SETTINGS.md" in helped.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "service.run.serve", "--port", "9"], env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2 and "unrecognized arguments: --port 9" in refused.stderr
    assert not (tmp_path / "data").exists()
