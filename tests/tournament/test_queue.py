"""A tournament shared by workers through Redis Streams (issue 23, "Past one
machine"): ``umpire tournament --queue`` publishes and gathers, ``umpire
worker --queue`` plays.  Real processes on loopback, on one Redis and on a
three-master Redis Cluster: one worker is killed with SIGKILL in the middle
of a game; its game is taken over after the claim timeout and played by
another, no game is counted twice, and the dead worker's match is aborted on
the server rather than left to end on time.  An SPRT that decides stops every
worker; a coordinator stopped midway gathers, resumed, what the workers
finished meanwhile."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.run import embedded
from umpire.client import MatchClient
from umpire.results import read_results, read_settings
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parents[2]
ADMIN = "queue-admin-token"

# a bot that takes 0.2 s a move, so that a game lasts long enough to be killed in
SLOWISH = """
import json, random, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "slowish", "protocol": 1, "want_legal": True}), flush=True)
    elif message["type"] == "move":
        time.sleep(0.2)
        print(json.dumps({"move": random.choice(message["legal_moves"])}), flush=True)
"""


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(workers=2, threads=16, admin_token=ADMIN) as s:
        yield s


@pytest.fixture(scope="module", params=["redis", "cluster"])
def queue(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "redis":
        one = embedded.start(folder)
        yield one.url
        one.stop()
    else:
        cluster = embedded.start_cluster(folder)
        yield cluster.url.replace("redis://", "redis+cluster://", 1)
        cluster.stop()


def umpire(*args: str, log: Path | None = None) -> subprocess.Popen[str]:
    """``umpire ARGS`` as a process: a worker's stderr (what it plays) to ``log``, a coordinator's stdout piped."""
    worker = args[0] == "worker"
    with open(log if log is not None else os.devnull, "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "umpire", *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL if worker else subprocess.PIPE, stderr=err, text=True,
        )  # fmt: skip


def ongoing(server: EmbeddedServer, tag: str) -> list[dict[str, object]]:
    api = MatchClient(server.url)
    _, found = api.request("GET", f"/v1/matches?status=ongoing&tag={tag}", headers={"Authorization": f"Bearer {ADMIN}"})
    api.close()
    return list(found["matches"])


def wait_for(path: Path, text: str, proc: subprocess.Popen[str], limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while text not in (path.read_text() if path.exists() else ""):
        assert proc.poll() is None, path.read_text()
        assert time.monotonic() < deadline, f"{text!r} never came"
        time.sleep(0.05)


def test_workers_share_the_games_one_killed_mid_game(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    bot = tmp_path / "slowish.py"
    bot.write_text(SLOWISH)
    out = tmp_path / "results.jsonl"
    coordinator = umpire(
        "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random", f"cmd:{sys.executable} {bot}",
        "--games", "8", "--out", str(out), "--server", server.url, "--admin-token", ADMIN, "--queue", queue,
        "--claim-timeout", "2", "--quiet", "--seed", "4",
    )  # fmt: skip
    logs = [tmp_path / f"w{i}.log" for i in range(3)]
    wait_for_published = time.monotonic() + 30
    while read_settings(out) is None if out.exists() else True:
        assert time.monotonic() < wait_for_published and coordinator.poll() is None
        time.sleep(0.05)
    workers = [umpire("worker", "--queue", queue, "--name", f"w{i}", log=logs[i]) for i in range(3)]
    wait_for(logs[0], "w0: game", workers[0])
    time.sleep(0.5)  # a few moves into it
    killed_key = logs[0].read_text().split("w0: game ")[-1].split()[0]
    workers[0].send_signal(signal.SIGKILL)  # no goodbye: its claim simply stops being renewed
    workers[0].wait(10)
    stdout, _ = coordinator.communicate(timeout=180)
    assert coordinator.returncode == 0
    codes = [w.wait(30) for w in workers[1:]]
    assert codes == [0, 0]  # the others leave once the schedule is complete
    lines = read_results(out)
    keys = [line["key"] for line in lines]
    assert sorted(keys) == sorted(set(keys)) and len(keys) == 8  # every game once
    taken_over = next(line for line in lines if line["key"] == killed_key)
    assert taken_over["worker"] in ("w1", "w2")
    assert {line["worker"] for line in lines} <= {"w0", "w1", "w2"} and len({line["worker"] for line in lines}) >= 2
    assert "random vs slowish" in stdout and "pentanomial [LL, LD, WL+DD, WD, WW]" in stdout
    header = read_settings(out)
    assert header is not None
    assert ongoing(server, f"tournament-{header['tournament']}") == []  # the dead worker's match was aborted


def test_the_sprt_stops_every_worker_and_the_coordinator_resumes(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    out = tmp_path / "sprt.jsonl"
    args = ["tournament", "--game", "catchup", "--option", "size=3", "--bots", "greedy", "random", "--games", "400",
            "--out", str(out), "--server", server.url, "--admin-token", ADMIN, "--queue", queue, "--quiet",
            "--seed", "6", "--sprt", "0", "20", "0.05", "0.05"]  # fmt: skip
    coordinator = umpire(*args)
    deadline = time.monotonic() + 30
    while not (out.exists() and read_settings(out) is not None):
        assert time.monotonic() < deadline and coordinator.poll() is None
        time.sleep(0.05)
    workers = [umpire("worker", "--queue", queue, "--name", f"s{i}") for i in range(2)]
    # the coordinator stops early (Ctrl-C) while the workers play on
    while len(read_results(out)) < 2:
        assert time.monotonic() < deadline + 60
        time.sleep(0.05)
    coordinator.send_signal(signal.SIGINT)
    coordinator.communicate(timeout=30)
    assert coordinator.returncode == 130
    time.sleep(1.0)
    # resumed with the file alone, it gathers what was played meanwhile and runs the SPRT to its end
    again = umpire("tournament", "--resume", str(out), "--server", server.url, "--admin-token", ADMIN, "--queue", queue,
                   "--quiet")  # fmt: skip
    stdout, _ = again.communicate(timeout=120)
    assert again.returncode == 0
    assert "SPRT (trinomial) elo0 0, elo1 20" in stdout and "H1 accepted" in stdout
    assert [w.wait(30) for w in workers] == [0, 0]  # the SPRT stopped every worker
    lines = read_results(out)
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys)) and len(keys) < 100
    header = read_settings(out)
    assert header is not None
    assert ongoing(server, f"tournament-{header['tournament']}") == []
