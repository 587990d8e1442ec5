"""The built-in bots' searches (``POST /v1/games/{game}/suggest``) run
outside the worker's event loop: a small pool of searcher processes per app
process (issue 23, "The built-in bots as a service").

A search is CPU-bound Python (``mcts`` plays random games for its whole
budget); in a gevent worker it would hold the event loop, and every other
request of the worker would wait for it.  So searches run in processes of
their own, ``python -m umpire.think`` (the harness's bots), started on first use,
``SUGGEST_PROCESSES`` (1) per app process, at a lower CPU priority
(``SUGGEST_NICE``, 10) so that plays and moves go first on a busy machine.
A worker talks to them over pipes, waiting with ``select``, which gevent
makes cooperative: a request waiting for its search holds no thread and
leaves the event loop free.  The pool is service/api/procpool.py's: bounded,
refusing at once when full.

The queue is bounded: ``SUGGEST_QUEUE`` (2) requests of each app process may
wait for a searcher beside those searching; one more is refused at once
(:class:`Busy`, answered ``503 search_busy`` with ``Retry-After``), never
left to stall.  A search that has not answered within its budget plus
``GRACE_S`` (or a queued request that found no searcher free within
:attr:`Pool.wait_s`) is abandoned and its process replaced.

The protocol on the pipes is JSON lines: the app writes ``{"game", "state",
"bot", "budget_s"}`` (the state already checked by the request), the
searcher answers ``{"move", "spent_s"}`` or ``{"error"}``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from service.api import procpool
from service.api.procpool import BoundedPool, Busy, read_line, write_all

__all__ = ["Busy", "Pool", "SearchFailed", "Suggestion"]

GRACE_S = 2.0  # over the budget before a search is deemed stuck (a slow machine)
STARTUP_S = 15.0  # more for the first search of a new searcher process (it imports the engine and the bots)


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
        self.fresh = True  # no question answered yet: the first one waits for the imports too

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask(self, question: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s + (STARTUP_S if self.fresh else 0.0)
        write_all(self.stdin, json.dumps(question).encode() + b"\n", deadline)
        answer: dict[str, Any] = json.loads(read_line(self.stdout, deadline))
        self.fresh = False
        return answer

    def __del__(self) -> None:  # an app (and its pool) dropped without close(): its process goes too, pipes closed
        self.close()

    def close(self) -> None:
        procpool.reap(self.proc)


class Pool:
    """``processes`` searchers and at most ``queue`` requests waiting for one
    (service/api/procpool.py); a waiting request gives up after ``wait_s`` (503 too)."""

    def __init__(self, processes: int = 1, queue: int = 2, wait_s: float = 10.0, nice: int = 10) -> None:
        self.pool: BoundedPool[Searcher] = BoundedPool(lambda: Searcher(nice), processes, queue, wait_s)

    @property
    def full(self) -> bool:
        return self.pool.full

    @property
    def inflight(self) -> int:
        return self.pool.inflight

    @inflight.setter
    def inflight(self, value: int) -> None:  # tests: a pool made full without a search
        self.pool.inflight = value

    def suggest(self, game: str, state: dict[str, Any], bot: str, budget_s: float) -> Suggestion:
        """The move ``bot`` chooses in ``state`` (checked, ongoing) within ``budget_s``;
        :class:`Busy` at once when the queue is full."""
        question = {"game": game, "state": state, "bot": bot, "budget_s": budget_s}
        with self.pool.helper("searcher") as searcher:
            try:
                answer = searcher.ask(question, budget_s + GRACE_S)
            except TimeoutError:
                raise Busy(f"The search did not answer within {budget_s + GRACE_S:g} s.") from None
            except (EOFError, OSError, ValueError) as e:  # the searcher died: the next request starts another
                raise SearchFailed(f"the searcher process failed: {e!r}") from e
        if "error" in answer:
            raise SearchFailed(str(answer["error"]))
        return Suggestion(str(answer["move"]), float(answer["spent_s"]))

    def close(self) -> None:
        self.pool.close()
