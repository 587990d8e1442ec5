"""A tournament shared by workers through Redis Streams (issue 23, "Past one
machine"; issue 37, "Wrong results"): ``umpire tournament --queue`` publishes
and gathers, ``umpire worker --queue`` plays.  Real processes on loopback, on
one Redis (through its unix socket, as ``make run``'s) and on a three-master
Redis Cluster.

One worker is killed with SIGKILL in the middle of a game: its game is taken
over after the claim timeout and played by another, no game is counted twice,
and the dead worker's match is aborted on the server rather than left to end
on time.  One worker is stopped with SIGSTOP and let go on with SIGCONT once
its game was taken over: its aborted match is no result, the taker's is.  An
SPRT that decides stops every worker; a coordinator stopped midway gathers,
resumed from its file alone, what the workers finished meanwhile.  Every run
is its own (the same settings twice are two runs), several runs are served at
once, a finished run's keys expire, and the queue keeps no admin token.
"""

from __future__ import annotations

import json
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
from umpire.queue import FINISHED_TTL_S, RUNS, Keys, connect
from umpire.results import read_results, read_run, read_settings
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parents[2]
ADMIN = "queue-admin-token"  # the server's, for the test's own look at its matches: the harness never gets it

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
        assert one.url.startswith("unix://")  # as make run's Redis: a unix socket only (issue 37 item 7)
        yield one.url
        one.stop()
    else:
        cluster = embedded.start_cluster(folder)
        yield cluster.url.replace("redis://", "redis+cluster://", 1)
        cluster.stop()


def umpire(*args: str, log: Path | None = None) -> subprocess.Popen[str]:
    """``umpire ARGS`` as a process: its stderr to ``log`` (what a worker plays), a coordinator's stdout piped."""
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


def published(out: Path, coordinator: subprocess.Popen[str]) -> str:
    """Wait until the coordinator has published (its results file names the run); the run's id."""
    deadline = time.monotonic() + 30
    while not (out.exists() and read_settings(out) is not None):
        assert time.monotonic() < deadline and coordinator.poll() is None
        time.sleep(0.05)
    run = read_run(out)
    assert run is not None
    return str(run["id"])


def tournament(out: Path, queue: str, server: EmbeddedServer, *extra: str, log: Path | None = None) -> subprocess.Popen[str]:
    return umpire(
        "tournament", "--game", "catchup", "--option", "size=3", "--out", str(out), "--server", server.url,
        "--queue", queue, "--quiet", *extra, log=log,
    )  # fmt: skip


def test_workers_share_the_games_one_killed_mid_game(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    bot = tmp_path / "slowish.py"
    bot.write_text(SLOWISH)
    out = tmp_path / "results.jsonl"
    coordinator = tournament(
        out, queue, server, "--bots", "random", f"cmd:{sys.executable} {bot}", "--games", "8", "--claim-timeout", "2",
        "--seed", "4",
    )  # fmt: skip
    published(out, coordinator)
    logs = [tmp_path / f"w{i}.log" for i in range(3)]
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
    assert "random vs slowish" in stdout and "Ptnml(0-2): [" in stdout
    header = read_settings(out)
    assert header is not None
    # the dead worker's match was aborted, with the umpire token it had noted: nobody gave an admin token
    assert ongoing(server, f"tournament-{header['tournament']}") == []
    assert "left in play by a worker that stopped" in logs[1].read_text() + logs[2].read_text()


def test_a_stopped_workers_aborted_game_is_never_a_result(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    """Issue 37 item 1: a worker stopped (SIGSTOP) mid-game and let go on (SIGCONT) after its game
    was taken over reported its aborted match first, recorded as ``end aborted`` (a draw, in a
    game with no draws), and the taker's real result was thrown away.  Now its claim is fenced:
    the taker's delivery is the claim, the stopped worker's renewal, note and result are refused,
    and an aborted match is no result anyway."""
    bot = tmp_path / "slowish.py"
    bot.write_text(SLOWISH)
    out = tmp_path / "stopped.jsonl"
    coordinator = tournament(
        out, queue, server, "--bots", f"cmd:{sys.executable} {bot}", "random", "--games", "2", "--claim-timeout", "2",
        "--seed", "8",
    )  # fmt: skip
    published(out, coordinator)
    logs = [tmp_path / f"p{i}.log" for i in range(2)]
    first = umpire("worker", "--queue", queue, "--name", "p0", log=logs[0])
    wait_for(logs[0], "p0: game", first)
    time.sleep(0.5)  # a few moves into it
    key = logs[0].read_text().split("p0: game ")[-1].split()[0]
    first.send_signal(signal.SIGSTOP)
    try:
        taker = umpire("worker", "--queue", queue, "--name", "p1", log=logs[1])
        wait_for(logs[1], f"p1: game {key}", taker, limit_s=90)  # after the claim timeout, its game taken over
        assert "left in play by a worker that stopped" in logs[1].read_text()
    finally:
        first.send_signal(signal.SIGCONT)  # at once: the taker's game has hardly begun
    stdout, _ = coordinator.communicate(timeout=180)
    assert coordinator.returncode == 0
    assert first.wait(60) == 0 and taker.wait(60) == 0
    lines = read_results(out)
    assert sorted(line["key"] for line in lines) == ["0v1#0", "0v1#1"]
    assert all(line["end"] != "aborted" and line["winner"] is not None for line in lines)  # R-C4: no draws
    assert next(line for line in lines if line["key"] == key)["worker"] == "p1"
    stopped = [line for line in logs[0].read_text().splitlines() if f"game {key}" in line][1:]
    assert stopped and all("taken over by another worker" in x or "aborted on the server: no result" in x for x in stopped)
    assert "0-0-0" not in stdout and "Draws: 0" in stdout


def test_a_claim_is_fenced(tmp_path: Path, queue: str) -> None:
    """The scripts that renew a claim, note its match and hand its result in act only for the
    worker and delivery that hold the entry now (issue 37 item 1, driven by hand)."""
    from umpire.queue import FINISH, GROUP, RENEW

    r = connect(queue)
    k = Keys(f"fence-{time.monotonic_ns()}")
    r.set(k.config, "{}", ex=60)
    r.xgroup_create(k.games, GROUP, id="0", mkstream=True)
    entry = r.xadd(k.games, {"key": "0v1#0"})
    renew, finish = r.register_script(RENEW), r.register_script(FINISH)
    [[_, [(got, _)]]] = r.xreadgroup(GROUP, "slow", {k.games: ">"}, count=1)
    assert got == entry
    assert renew(keys=[k.games], args=[entry, "slow", 1]) == 1
    time.sleep(0.05)
    taken = r.xautoclaim(k.games, GROUP, "taker", min_idle_time=10, start_id="0-0", count=1)[1]
    assert [e[0] for e in taken] == [entry]
    assert r.xpending_range(k.games, GROUP, entry, entry, 1)[0]["times_delivered"] == 2
    keys = [k.games, k.playing, k.config, k.done, k.results]
    # the stopped worker, back: it cannot renew (and take the entry back), nor hand its result in
    assert renew(keys=[k.games], args=[entry, "slow", 1]) == -1
    assert finish(keys=keys, args=[entry, "slow", 1, "0v1#0", '{"winner": null}']) == -1
    assert r.xlen(k.results) == 0 and r.scard(k.done) == 0
    # even under the same name, an older delivery is not the claim
    assert finish(keys=keys, args=[entry, "taker", 1, "0v1#0", '{"winner": null}']) == -1
    assert finish(keys=keys, args=[entry, "taker", 2, "0v1#0", '{"winner": 1}']) == 1
    assert [json.loads(f["line"]) for _, f in r.xrange(k.results)] == [{"winner": 1}]
    assert r.xpending(k.games, GROUP)["pending"] == 0
    assert 0 < r.ttl(k.results) <= 60 and 0 < r.ttl(k.done) <= 60  # they expire with the run
    for key in k.every():
        r.delete(key)


def test_the_sprt_stops_every_worker_and_the_coordinator_resumes(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    out, said = tmp_path / "sprt.jsonl", tmp_path / "coordinator.log"
    # an admin token given as before: not needed, and never kept in the queue
    coordinator = tournament(
        out, queue, server, "--bots", "greedy", "random", "--games", "400", "--seed", "6",
        "--sprt", "0", "20", "0.05", "0.05", "--sprt-model", "logistic", "--admin-token", ADMIN, log=said,
    )  # fmt: skip
    run_id = published(out, coordinator)
    workers = [umpire("worker", "--queue", queue, "--name", f"s{i}") for i in range(2)]
    # the coordinator stops early (Ctrl-C) while the workers play on
    deadline = time.monotonic() + 90
    while len(read_results(out)) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    coordinator.send_signal(signal.SIGINT)
    coordinator.communicate(timeout=30)
    assert coordinator.returncode == 130
    assert "--admin-token is no longer needed" in said.read_text()
    # issue 37 item 13: it said both "the workers play on" and "--resume plays the missing games"
    assert f"interrupted: the workers play on; umpire tournament --resume {out} gathers what they finish" in said.read_text()
    assert "plays the missing games" not in said.read_text()
    time.sleep(1.0)
    # resumed from the file alone (its server, its queue: the file keeps them), it gathers what was
    # played meanwhile and runs the SPRT to its end
    again = umpire("tournament", "--resume", str(out), "--quiet")
    stdout, _ = again.communicate(timeout=120)
    assert again.returncode == 0
    assert "SPRT (logistic, trinomial) elo0 0, elo1 20" in stdout and "H1 accepted" in stdout
    assert "LLR: " in stdout and "[0.00, 20.00]" in stdout
    assert [w.wait(30) for w in workers] == [0, 0]  # the SPRT stopped every worker
    lines = read_results(out)
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys)) and len(keys) < 100
    assert {line["run"] for line in lines} == {run_id}  # one run, named by the file
    header = read_settings(out)
    assert header is not None
    assert ongoing(server, f"tournament-{header['tournament']}") == []
    # its keys go, and the queue never kept the server's admin token
    r = connect(queue)
    assert r.zscore(RUNS, run_id) is None
    assert all(r.ttl(key) <= FINISHED_TTL_S for key in Keys(run_id).every())
    assert ADMIN not in json.dumps(r.get(Keys(run_id).config))


def test_every_run_is_its_own_and_several_are_served(tmp_path: Path, queue: str, server: EmbeddedServer) -> None:
    """Issue 37 items 4 and 5: the same settings and seed again "finished" at once from the earlier
    run's results, none played; and a second tournament on the queue waited until the first was
    over.  Now every run has its own identity and keys, and a worker serves every run on the
    queue, a game from each in turn, saying which."""
    same = ["--bots", "random", "greedy", "--games", "4", "--seed", "3"]
    first_out = tmp_path / "first.jsonl"
    first = tournament(first_out, queue, server, *same)
    first_run = published(first_out, first)
    log = tmp_path / "worker.log"
    worker = umpire("worker", "--queue", queue, "--name", "solo", log=log)
    first.communicate(timeout=120)
    assert first.returncode == 0 and worker.wait(60) == 0
    r = connect(queue)
    assert r.zscore(RUNS, first_run) is None and 0 < r.ttl(Keys(first_run).config) <= FINISHED_TTL_S
    # the same tournament again, beside another one: two runs at once, one worker
    again_out, other_out = tmp_path / "again.jsonl", tmp_path / "other.jsonl"
    again = tournament(again_out, queue, server, *same)
    other = tournament(other_out, queue, server, "--bots", "greedy", "random", "--games", "4", "--seed", "5")
    runs = {published(again_out, again), published(other_out, other)}
    assert first_run not in runs and len(runs) == 2
    worker = umpire("worker", "--queue", queue, "--name", "solo", log=log)
    for coordinator in (again, other):
        coordinator.communicate(timeout=180)
        assert coordinator.returncode == 0
    assert worker.wait(60) == 0
    played = read_results(again_out)
    assert len(played) == 4 and {line["run"] for line in played} == runs - {read_run(other_out)["id"]}  # type: ignore[index]
    assert {line["match_id"] for line in played}.isdisjoint(line["match_id"] for line in read_results(first_out))
    assert len(read_results(other_out)) == 4
    said = log.read_text()
    assert all(f"solo: serving run {run}: catchup" in said for run in runs)
    games = [line.split(" of run ")[1] for line in said.splitlines() if line.startswith("solo: game ")][-8:]
    assert sorted(games) == sorted([*runs] * 4)
    assert games[0] != games[1]  # a game of each in turn, not one run after the other


def test_a_stopped_worker_says_what_it_stopped(tmp_path: Path, queue: str) -> None:
    """Issue 37 item 13: an idle worker given SIGTERM said "its game in play was aborted"."""
    log = tmp_path / "idle.log"
    idle = umpire("worker", "--queue", queue, "--name", "idle", log=log)
    time.sleep(1.5)
    idle.send_signal(signal.SIGTERM)
    assert idle.wait(30) == 128 + signal.SIGTERM
    said = log.read_text()
    assert "it had no game in play" in said and "aborted" not in said
