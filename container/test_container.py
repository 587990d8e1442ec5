"""The image and docker-compose.yml, run for real with podman (``make container``, part of
``make test``; issue 21).

1. The image runs as its non-root user with the embedded Redis on its /data volume: a match is
   played, the container restarted, and the match is found again as it was.
2. The compose file's cluster profile (three masters, a replica each, REDIS_DURABILITY=replica)
   serves matches through two app replicas; a master's container is killed mid-load, its replica
   takes over, the killed one comes back as a replica, and every move acknowledged (200) is found
   in its match's record afterwards.

Published ports are on 127.0.0.1; containers talk on the compose project's own network.  Every
wait is bounded.  ``UMPIRE_IMAGE``, ``BASE_IMAGE`` and ``PODMAN_COMPOSE`` come from the Makefile.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
IMAGE = os.environ.get("UMPIRE_IMAGE", "localhost/umpire:test")
BASE = os.environ.get("BASE_IMAGE", "localhost/umpire-base:bookworm")
COMPOSE = os.environ.get("PODMAN_COMPOSE", "podman-compose")
PROJECT = "umpirecheck"


def podman(*args: str, check: bool = True, timeout: float = 120) -> str:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: {done.stderr[-2000:]}")
    return done.stdout.strip()


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None, key: str | None = None) -> Any:
    """(status, JSON) of one request; status 0 when no answer came."""
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if key:
        req.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
    except OSError:
        return 0, None


def wait_healthy(base: str, wait_s: float = 90) -> None:
    end = time.monotonic() + wait_s
    while call(base, "GET", "/v1/health")[0] != 200:
        assert time.monotonic() < end, f"{base} not healthy after {wait_s} s"
        time.sleep(0.5)


def play(base: str, match: dict[str, Any], moves: int) -> dict[str, Any]:
    """Up to ``moves`` moves of a Plur match (first legal move), each acknowledged; returns the last state."""
    game = GAMES["plur"]
    state = match["state"]
    for _ in range(moves):
        position = game.load(state)
        if game.is_over(position):
            break
        move = game.legal_moves(position).moves[0]
        status, answer = call(
            base, "POST", f"/v1/matches/{match['match_id']}/moves", {"move": move, "ply": state["ply"]},
            match["seats"][str(state["to_move"])],
        )  # fmt: skip
        assert status == 200, answer
        state = answer["state"]
    return state


# -- 1. the image ------------------------------------------------------------------------------


def test_the_image_runs_as_its_user_and_keeps_matches_on_its_volume() -> None:
    name, volume, port = f"{PROJECT}-solo", f"{PROJECT}-solo-data", 18471
    podman("rm", "-f", name, check=False)
    podman("volume", "rm", "-f", volume, check=False)
    try:
        podman("run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8000", "-v", f"{volume}:/data", IMAGE)
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base)
        assert podman("exec", name, "id", "-u") == "10001"  # the image's user, not root
        assert "redis-server" in podman("exec", name, "sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
        status, match = call(base, "POST", "/v1/matches", {"game": "plur", "options": {"size": 3}})
        assert status == 201, match
        state = play(base, match, 5)
        podman("restart", "--time", "20", name, timeout=90)
        wait_healthy(base)
        status, again = call(base, "GET", f"/v1/matches/{match['match_id']}")
        assert status == 200 and again["state"] == state  # found again, on the volume
        status, rec = call(base, "GET", f"/v1/matches/{match['match_id']}/moves")
        assert [e["ply"] for e in rec["moves"]] == list(range(5))
    finally:
        podman("rm", "-f", "--time", "5", name, check=False)
        podman("volume", "rm", "-f", volume, check=False)


# -- 2. compose: the cluster profile ------------------------------------------------------------


def compose(*args: str, timeout: float = 300) -> None:
    env = {
        **os.environ,
        "BASE_IMAGE": BASE,
        "REDIS_IMAGE": BASE,  # redis-server 7 from the Debian archive stands in for redis:7-alpine
        "UMPIRE_IMAGE": IMAGE,
        "CLUSTER_NODE_TIMEOUT_MS": "2000",
    }
    files = ["-f", str(ROOT / "docker-compose.yml"), "-f", str(ROOT / "container" / "podman-4.3.yml")]
    done = subprocess.run(
        [COMPOSE, "-p", PROJECT, *files, "--profile", "cluster", *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


@pytest.fixture
def cluster() -> Iterator[list[str]]:
    compose("down", "-v", "--timeout", "5")
    try:
        compose("up", "-d", "redis-cluster-init")
        end = time.monotonic() + 120
        while not (
            status := podman("ps", "-a", "--filter", f"name={PROJECT}_redis-cluster-init_1", "--format", "{{.Status}}")
        ).startswith("Exited"):
            assert time.monotonic() < end, status
            time.sleep(1)
        assert status.startswith("Exited (0)"), podman("logs", f"{PROJECT}_redis-cluster-init_1", check=False)
        compose("up", "-d", "--no-deps", "app-cluster", "app-cluster-2", "sweeper-cluster")
        bases = ["http://127.0.0.1:8100", "http://127.0.0.1:8101"]
        for base in bases:
            wait_healthy(base)
        yield bases
    finally:
        # the app's containers have anonymous /data volumes (the image's VOLUME) that down -v leaves behind
        ids = podman("ps", "-a", "-q", "--filter", f"label=io.podman.compose.project={PROJECT}", check=False).split()
        mounts = podman("inspect", "--format", "{{range .Mounts}}{{.Name}} {{end}}", *ids, check=False).split() if ids else []
        compose("down", "-v", "--timeout", "5")
        for volume in mounts:
            if not volume.startswith(PROJECT):  # the named ones went with down -v
                podman("volume", "rm", "-f", volume, check=False)


def roles() -> dict[str, str]:
    out = {}
    for i in range(1, 7):
        name = f"{PROJECT}_redis-{i}_1"
        said = podman("exec", name, "redis-cli", "role", check=False, timeout=10).splitlines()
        out[name] = said[0] if said else "down"
    return out


def test_compose_cluster_loses_no_acknowledged_move_when_a_master_dies(cluster: list[str]) -> None:
    acknowledged: dict[str, dict[int, str]] = {}
    answers: dict[str, int] = {}
    stop = threading.Event()
    lock = threading.Lock()

    def bot(index: int) -> None:
        game = GAMES["plur"]
        while not stop.is_set():
            base = cluster[index % 2]
            status, match = call(base, "POST", "/v1/matches", {"game": "plur", "options": {"size": 3}})
            if status != 201:
                time.sleep(0.2)
                continue
            mid, state = match["match_id"], match["state"]
            with lock:
                acknowledged[mid] = {}
            while not stop.is_set() and state["status"] == "ongoing":
                base = cluster[(index + state["ply"]) % 2]  # moves alternate between the two app replicas
                move = game.legal_moves(game.load(state)).moves[0]
                key = uuid.uuid4().hex
                for _ in range(100):  # sent again (same ply, same key) until answered
                    status, answer = call(
                        base, "POST", f"/v1/matches/{mid}/moves", {"move": move, "ply": state["ply"]},
                        match["seats"][str(state["to_move"])], key,
                    )  # fmt: skip
                    code = answer["error"]["code"] if status >= 400 and isinstance(answer, dict) else ""
                    with lock:
                        answers[f"{status} {code}".strip()] = answers.get(f"{status} {code}".strip(), 0) + 1
                    if status == 200 or stop.is_set():
                        break
                    time.sleep(0.2)
                if status != 200:
                    break
                with lock:
                    acknowledged[mid][state["ply"]] = answer["move"]
                state = answer["state"]

    threads = [threading.Thread(target=bot, args=(i,), daemon=True) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(4)
    before = roles()
    victim = next(name for name, role in before.items() if role == "master")
    podman("kill", victim)  # SIGKILL: the master dies mid-load
    end = time.monotonic() + 60
    while sum(role == "master" for name, role in roles().items() if name != victim) < 3:  # its replica took over
        assert time.monotonic() < end, roles()
        time.sleep(0.5)
    time.sleep(2)
    podman("start", victim)  # back, as a replica of the new master (which then takes writes again)
    end = time.monotonic() + 60
    while roles()[victim] != "slave":
        assert time.monotonic() < end, roles()
        time.sleep(0.5)
    time.sleep(5)
    stop.set()
    for t in threads:
        t.join(30)
    moves = sum(len(a) for a in acknowledged.values())
    lost = 0
    for mid, acked in acknowledged.items():
        status, rec = call(cluster[0], "GET", f"/v1/matches/{mid}/moves")
        assert status == 200, rec
        kept = {e["ply"]: e["move"] for e in rec["moves"] if e["kind"] == "move"}
        lost += sum(1 for ply, move in acked.items() if kept.get(ply) != move)
    print(f"\ncompose cluster: {len(acknowledged)} matches, {moves} moves acknowledged, {lost} lost; answers {answers}")
    assert moves > 50 and lost == 0
    assert set(answers) <= {"200", "503 unavailable", "503 outcome_unknown", "0"}, answers
