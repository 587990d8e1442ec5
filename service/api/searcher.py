"""The built-in bots' searches (``POST /v1/games/{game}/suggest``) run
outside the worker's event loop: a small pool of searcher processes per app
process (issue 23, "The built-in bots as a service").

A search is CPU-bound Python (``mcts`` plays random games for its whole
budget); in a gevent worker it would hold the event loop, and every other
request of the worker would wait for it.  So searches run in processes of
their own, ``python -m umpire.think`` (the harness's bots), ``SUGGEST_PROCESSES``
(1) per app process, at a lower CPU priority (``SUGGEST_NICE``, 10) so that
plays and moves go first on a busy machine.  A worker talks to them over
pipes, waiting with ``select``, which gevent makes cooperative: a request
waiting for its search holds no thread and leaves the event loop free.  The
pool is service/api/procpool.py's: bounded, refusing at once when full.

**An answer within the budget plus** :data:`MARGIN_S` **, always** (issue 37,
item 11).  A search has a deadline, the moment its request began plus its
budget, and everything on the way counts against it:

* a request waits for a free searcher until its deadline at most; the queue
  is bounded too (``SUGGEST_QUEUE``, 2): one more request is refused at once;
* a searcher process says it is ready once it has imported the engine and the
  bots (a fresh process takes a few tenths of a second); one still starting
  at the deadline is not waited for (the pool starts its searchers ahead of
  the requests, ``SUGGEST_WARM``, so only a server's first seconds meet one);
* the searcher gets the deadline with the question (on ``CLOCK_MONOTONIC``,
  one clock for every process of the machine) and its bot stops thinking a
  little before it (umpire/think.py ``ANSWER_S``), every bot, whatever the
  board (each reads the clock within one step of its work);
* a searcher that has not answered by the deadline plus :data:`MARGIN_S` is
  abandoned, and its process replaced.

Each of these is :class:`Busy` (``503 search_busy`` with ``Retry-After``),
never a wait past the margin.

The protocol on the pipes is JSON lines: the searcher first writes
``{"ready": true}``; then the app writes ``{"game", "state", "bot",
"budget_s", "deadline"}`` (the state already checked by the request), the
searcher answers ``{"move", "spent_s"}`` or ``{"error"}``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from service.api import procpool
from service.api.procpool import BoundedPool, Busy, read_line, write_all

__all__ = ["MARGIN_S", "Busy", "Pool", "SearchFailed", "Suggestion", "clock"]

MARGIN_S = 0.05  # an answer (a move or 503) comes within the budget plus this, measured from the request's start


def clock() -> float:
    """Seconds on ``CLOCK_MONOTONIC``, the clock the app and its searchers share for deadlines."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class SearchFailed(Exception):
    """The searcher could not answer (a bug: the request's state was checked)."""


@dataclass(frozen=True)
class Suggestion:
    move: str
    spent_s: float  # the bot's own thinking time, measured in the searcher


class Searcher:
    """One searcher process (one question at a time, one line each way)."""

    def __init__(self, nice: int) -> None:
        self.proc = procpool.spawn(self, "umpire.think", nice)  # the harness's bots, in a process of their own
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.ready = False  # it has said so: the engine and the bots are imported

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, deadline: float) -> bool:
        """Has the process said it is ready, by ``deadline`` (``time.monotonic``)?
        False if not yet (it goes on starting); EOFError if it died."""
        if not self.ready:
            try:
                line = read_line(self.stdout, deadline)
            except TimeoutError:
                return False
            if not json.loads(line).get("ready"):
                raise EOFError("the searcher did not start")
            self.ready = True
        return True

    def ask(self, question: dict[str, Any], deadline: float) -> dict[str, Any]:
        """The answer to ``question`` by ``deadline`` (``time.monotonic``); TimeoutError after it."""
        write_all(self.stdin, json.dumps(question).encode() + b"\n", deadline)
        answer: dict[str, Any] = json.loads(read_line(self.stdout, deadline))
        return answer

    def __del__(self) -> None:  # an app (and its pool) dropped without close(): its process goes too, pipes closed
        self.close()

    def close(self) -> None:
        procpool.reap(self.proc)


class Pool:
    """``processes`` searchers and at most ``queue`` requests waiting for one
    (service/api/procpool.py); a waiting request gives up at its deadline, or
    after ``wait_s`` (503 too).  ``warm``: start the searchers now, and replace
    a failed one at once."""

    def __init__(self, processes: int = 1, queue: int = 2, wait_s: float = 10.0, nice: int = 10, warm: bool = False) -> None:
        self.pool: BoundedPool[Searcher] = BoundedPool(lambda: Searcher(nice), processes, queue, wait_s)
        if warm:
            self.pool.warm()

    @property
    def full(self) -> bool:
        return self.pool.full

    @property
    def inflight(self) -> int:
        return self.pool.inflight

    @inflight.setter
    def inflight(self, value: int) -> None:  # tests: a pool made full without a search
        self.pool.inflight = value

    def suggest(self, game: str, state: dict[str, Any], bot: str, budget_s: float, started: float | None = None) -> Suggestion:
        """The move ``bot`` chooses in ``state`` (checked, ongoing) by ``started``
        (a time of :func:`clock`, now if None) plus ``budget_s``, answered by
        then plus :data:`MARGIN_S`; :class:`Busy` when that cannot be."""
        deadline = (clock() if started is None else started) + budget_s
        local = time.monotonic() + (deadline - clock())  # the same moment on procpool's clock
        question = {"game": game, "state": state, "bot": bot, "budget_s": budget_s, "deadline": deadline}
        with self.pool.helper("searcher", local) as searcher:
            try:
                starting = not searcher.wait_ready(local)
                answer = {} if starting else searcher.ask(question, local + MARGIN_S)
            except TimeoutError:  # the searcher is closed as the block ends; a fresh one replaces it
                raise Busy(f"The search did not answer within {budget_s:g} s and a margin of {MARGIN_S:g} s.") from None
            except (EOFError, OSError, ValueError) as e:  # the searcher died: another replaces it
                raise SearchFailed(f"the searcher process failed: {e!r}") from e
        if starting:
            raise Busy("The searcher is still starting (a server's first seconds).")
        if "error" in answer:
            raise SearchFailed(str(answer["error"]))
        return Suggestion(str(answer["move"]), float(answer["spent_s"]))

    def wait_ready(self, timeout_s: float) -> bool:
        """A searcher ready within ``timeout_s`` (tests; a server's health could ask it too);
        False if none is (busy, or still starting)."""
        end = time.monotonic() + timeout_s
        try:
            with self.pool.helper("searcher", end) as searcher:
                return searcher.wait_ready(end)
        except Busy:
            return False

    def close(self) -> None:
        self.pool.close()
