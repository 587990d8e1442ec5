"""Games per second with one worker and with several: ``python -m bench workers``.

A tournament shared through Redis Streams (``umpire tournament --queue``,
umpire/queue.py) between a bot that thinks ``BENCH_THINK_S`` (0.05 s) a
move, as slow bots do, and ``random``, side-3 Catchup, on an embedded server
(python -m service.run.serve) and an embedded Redis for the queue; the same
``BENCH_GAMES`` (24) games played by 1, 2 and 4 ``umpire worker`` processes
on this machine.  Printed: the time from the first published game to the last
result, games per second, and the speed-up against one worker.  Workers
scale with machines; on one machine only while the bots wait rather than
compute (as here: each worker's bot sleeps).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from service.run import embedded
from umpire.results import read_results
from umpire.server import EmbeddedServer

ROOT = Path(__file__).resolve().parent.parent
BOT = """
import json, os, random, sys, time
think = float(os.environ.get("BENCH_THINK_S", "0.05"))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "thinker", "protocol": 1, "want_legal": True}), flush=True)
    elif message["type"] == "move":
        time.sleep(think)
        print(json.dumps({"move": random.choice(message["legal_moves"])}), flush=True)
"""


def measure(workers: int, games: int, server: str, queue: str, folder: Path) -> float:
    bot = folder / "thinker.py"
    bot.write_text(BOT)
    out = folder / f"w{workers}.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    umpire = [sys.executable, "-m", "umpire"]
    coordinator = subprocess.Popen(
        [*umpire, "tournament", "--game", "catchup", "--option", "size=3", "--bots", "random",
         f"cmd:{sys.executable} {bot}", "--games", str(games), "--server", server, "--queue", queue, "--out", str(out),
         "--quiet", "--seed", str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    while not out.exists():
        time.sleep(0.02)
    start = time.perf_counter()
    procs = [
        subprocess.Popen([*umpire, "worker", "--queue", queue, "--name", f"b{i}"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i in range(workers)
    ]  # fmt: skip
    coordinator.wait(600)
    elapsed = time.perf_counter() - start
    for p in procs:
        p.wait(60)
    assert coordinator.returncode == 0 and len(read_results(out)) == games
    return elapsed


def main() -> None:
    games = int(os.environ.get("BENCH_GAMES", "24"))
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        folder = Path(tmp)
        redis = embedded.start(folder / "queue")
        try:
            with EmbeddedServer(workers=2, threads=16) as server:
                base = None
                think = os.environ.get("BENCH_THINK_S", "0.05")
                print(f"{games} games of side-3 Catchup, random vs a bot thinking {think} s a move, through --queue")
                print(f"{'workers':>7}  {'seconds':>8}  {'games/s':>8}  {'speed-up':>8}")
                for n in (1, 2, 4):
                    elapsed = measure(n, games, server.url, redis.url, folder)
                    base = base or elapsed
                    print(f"{n:>7}  {elapsed:>8.2f}  {games / elapsed:>8.2f}  {base / elapsed:>7.2f}x", flush=True)
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
