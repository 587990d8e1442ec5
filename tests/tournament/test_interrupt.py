"""Interrupting a tournament leaves nothing behind (issue 23, "What broke").

A real ``umpire tournament`` process in a process group of its own, as a
shell runs it, gets a real signal sent to the whole group (what Ctrl-C at a
terminal does, and what a supervisor's SIGTERM to a group does) while its
games are being played.  Before the fix the games in progress stayed open on
the server and later ended on time, a phantom result; SIGTERM exited at once
with no summary and left a self-started server, its Redis and its folder.
Now: the games in play end ``aborted`` (no winner), the bots and any server
the run started are stopped, the summary is printed, the exit status is
128 + the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from umpire.client import MatchClient
from umpire.results import read_results, read_settings
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parents[2]

# A bot that thinks a second a move (until a file "fast" exists beside its flag); the first
# move message it gets leaves the flag, so the test knows a game is in play on the server.
SLOW_BOT = """
import json, pathlib, random, sys, time
flag = pathlib.Path(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "slow", "protocol": 1, "want_legal": True}), flush=True)
    elif message["type"] == "move":
        flag.touch()
        if not (flag.parent / "fast").exists():
            time.sleep(1.0)
        print(json.dumps({"move": random.choice(message["legal_moves"])}), flush=True)
"""


def marked_processes(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (everything the run started inherits it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def start(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], Path, Path, str]:
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT)
    thinking = tmp_path / "thinking"
    out = tmp_path / "results.jsonl"
    temp = tmp_path / "tmp"
    temp.mkdir()
    marker = f"UMPIRE_TEST_RUN={tmp_path.name}-{time.monotonic_ns()}"
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT), marker.split("=")[0]: marker.split("=")[1]}
    args = [
        sys.executable, "-m", "umpire", "tournament", "--game", "catchup", "--option", "size=3",
        "--bots", f"cmd:{sys.executable} {bot} {thinking}", "random", "--games", "6", "--concurrency", "2",
        "--clock", "turn=30,bank=0,step=1", "--out", str(out), *extra,
    ]  # fmt: skip
    # a process group of its own, as a shell's job: the signal goes to the whole group
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 90
    while not thinking.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no game started"
        time.sleep(0.05)
    time.sleep(0.3)  # both games under way
    return proc, out, temp, marker


def interrupt(proc: subprocess.Popen[str], sig: int) -> tuple[int, str, str]:
    os.killpg(proc.pid, sig)
    stdout, stderr = proc.communicate(timeout=60)
    return proc.returncode, stdout, stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_self_started_server_is_left_with_nothing(tmp_path: Path, sig: int) -> None:
    proc, out, temp, marker = start(tmp_path)
    code, stdout, stderr = interrupt(proc, sig)
    assert code == 128 + sig, stderr
    assert "aborted on the server:" in stderr and "could not abort" not in stderr, stderr
    assert f"interrupted: umpire tournament --resume {out}" in stderr
    if read_results(out):
        assert "Rating list" in stdout  # the summary of what was played
    # no bot, no server, no Redis of the run is left, nor its temporary folder
    deadline = time.monotonic() + 10
    while marked_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked_processes(marker) == []
    assert [p.name for p in temp.iterdir()] == []


def test_an_external_server_keeps_no_match_of_the_run_going(tmp_path: Path) -> None:
    """Issue 37 item 2: without the server's admin token the harness could not abort its games
    ("no_admin_token"), which later ended by flag.  It aborts each with the match's own umpire
    token, from its creation's answer: the server's admin token is the test's, never the run's.
    Item 3: ``--resume FILE`` alone started an embedded server instead of the run's, played one
    game at a time instead of two, and stopped appending to ``--records``, ``--log`` and
    ``--report-every``: the file keeps the run, and the resume is that run."""
    admin = "test-admin-token"
    records, log = tmp_path / "games.txt", tmp_path / "bots.log"
    with EmbeddedServer(workers=1, threads=8, admin_token=admin) as server:
        extra = ["--server", server.url, "--records", str(records), "--log", str(log), "--report-every", "1"]
        proc, out, _, marker = start(tmp_path, *extra)
        code, _, stderr = interrupt(proc, signal.SIGINT)
        assert code == 130, stderr
        assert "aborted on the server:" in stderr and "could not abort" not in stderr, stderr
        header = read_settings(out)
        assert header is not None
        tag = f"tournament-{header['tournament']}"
        api = MatchClient(server.url)
        headers = {"Authorization": f"Bearer {admin}"}
        _, ongoing = api.request("GET", f"/v1/matches?status=ongoing&tag={tag}", headers=headers)
        assert ongoing["matches"] == []
        _, finished = api.request("GET", f"/v1/matches?status=finished&tag={tag}", headers=headers)
        aborted = [m for m in finished["matches"] if m["end"] == "aborted"]
        assert aborted and all(m["winner"] is None for m in aborted)
        recorded = {line["match_id"] for line in read_results(out)}
        assert {m["match_id"] for m in aborted}.isdisjoint(recorded)  # aborted games are not results
        assert len(aborted) + len(recorded) == len(finished["matches"])  # nothing else of the run
        # what was aborted is played again by a resume that needs no other flag, from another folder
        (tmp_path / "fast").touch()
        before = len(read_results(out))
        logged = len(log.read_text().splitlines())
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "umpire", "tournament", "--resume", str(out)],
            cwd=elsewhere, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "starting an embedded server" not in done.stderr
        assert f"2 at a time, on {server.url}" in done.stderr  # its server, its concurrency
        lines = read_results(out)
        keys = [line["key"] for line in lines]
        assert sorted(keys) == sorted(set(keys)) and len(keys) == 6
        assert {line["server"] for line in lines} == {server.url}
        assert done.stderr.count("-- after ") == 6 - before - 1  # --report-every 1, but not after the last game
        assert records.read_text().count('[Game "catchup"]') == 6  # every game's record, in the run's file
        assert len(log.read_text().splitlines()) > logged and list(elsewhere.iterdir()) == []
        api.close()
    assert marked_processes(marker) == []


def test_a_match_aborted_under_its_game_is_no_result(tmp_path: Path) -> None:
    """Issue 37 item 1's second half: "an aborted match is never a result".  An umpire aborts a
    match on the server while its game is played: the game is not recorded (it was recorded as
    ``end aborted``, a draw), the run says so, and a resume plays it."""
    import threading

    from umpire.config import Settings
    from umpire.tournament import run

    admin = "abort-admin-token"
    (tmp_path / "fast").touch()  # not a second a move: 0.3 s, time enough to abort its game
    slowish = tmp_path / "slowish.py"
    slowish.write_text(SLOW_BOT.replace("flag.touch()", "flag.touch(); time.sleep(0.3)"))
    thinking = tmp_path / "thinking"
    settings = Settings("catchup", {"size": 3}, [f"cmd:{sys.executable} {slowish} {thinking}", "random"], 2, seed=2)
    out = tmp_path / "aborted.jsonl"
    with EmbeddedServer(workers=1, threads=8, admin_token=admin) as server:
        api = MatchClient(server.url)
        headers = {"Authorization": f"Bearer {admin}"}
        aborted: list[str] = []

        def umpire_aborts_one() -> None:
            deadline = time.monotonic() + 60
            while not thinking.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            _, found = api.request("GET", "/v1/matches?status=ongoing&tag=umpire-tournament", headers=headers)
            match_id = found["matches"][0]["match_id"]
            status, _ = api.request("POST", f"/v1/matches/{match_id}/abort", headers=headers)
            api.close()  # this thread's connection
            assert status == 200
            aborted.append(match_id)

        umpire = threading.Thread(target=umpire_aborts_one)
        umpire.start()
        outcome = run(settings, MatchClient(server.url), out, progress=False)
        umpire.join(10)
        assert aborted
        lines = read_results(out)
        assert aborted[0] not in {line["match_id"] for line in lines}
        assert all(line["end"] != "aborted" for line in lines) and len(lines) == 1
        assert len(outcome.failures) == 1 and "was aborted on the server: no result; --resume plays it" in outcome.failures[0]
        again = run(settings, MatchClient(server.url), out, resume=True, progress=False)
        assert len(again.lines) == 2 and not again.failures
        api.close()
