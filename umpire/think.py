"""The searcher process behind ``POST /v1/games/{game}/suggest``: ``python -m
umpire.think NICE`` says it is ready once it has imported the games and the
bots, then reads one question a line (game, state, bot, budget, deadline) and
answers one line (the move and the time spent), by the built-in bots of the
tournament harness (umpire/bots/), asked as the harness asks them.

The deadline is a time of ``CLOCK_MONOTONIC`` (the app's clock too): the bot
thinks until ``ANSWER_S`` before it at most, whatever the budget says, so a
question read late (this process was starting, or busy) is answered on time,
with less thought.

The service starts it (service/api/searcher.py) and speaks only this protocol to
it, so that the service never imports the harness (tests/tournament/test_layering.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import Any

from umpire.bots import TIMED, BotFactory, Turn

ANSWER_S = 0.005  # the bot stops this long before the deadline: the answer is still to be written (service/api/searcher.py)


def think(question: dict[str, Any]) -> dict[str, Any]:
    """One search, as a searcher process runs it: the built-in bot of the
    tournament harness (umpire/bots/), asked as the harness asks it, and
    thinking until ``ANSWER_S`` before the question's deadline at most."""
    start = time.perf_counter()
    left = float(question["deadline"]) - time.clock_gettime(time.CLOCK_MONOTONIC) - ANSWER_S
    game, bot, budget_s = str(question["game"]), str(question["bot"]), float(question["budget_s"])
    spec = f"{bot}:{budget_s!r}" if bot in TIMED else bot
    player = BotFactory(spec, game).make(limit_s=max(0.0, left))
    state = question["state"]
    turn = Turn(game=game, options={}, seat=int(state.get("to_move") or 0), state=state, ply=0, match_id="")
    answer = player.choose(turn)
    spent = time.perf_counter() - start
    player.close()
    if answer.move is None:
        return {"error": f"the {bot} bot gave no move"}
    return {"move": answer.move, "spent_s": round(spent, 4)}


def _serve(nice: int) -> None:
    """The searcher process: questions on standard input, answers on standard output, until EOF."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    import engine.registry  # noqa: F401 - the games, loaded once before the first question

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    stdout.write(b'{"ready": true}\n')
    stdout.flush()
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            answer = think(json.loads(line))
        except Exception as e:
            answer = {"error": f"{type(e).__name__}: {e}"}
        stdout.write(json.dumps(answer).encode() + b"\n")
        stdout.flush()


if __name__ == "__main__":
    _serve(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
