"""gunicorn's settings (service/run/gunicorn_conf.py): the gevent worker's yield after each request
(issue 20, "the tail").

The yield must let the event loop go round (poll its sockets) before the greenlet that answered reads
its connection's next request.  ``gevent.sleep(0)`` did not: it resumed the greenlet within the same
turn of the loop.  ``bench overhead`` measured what that cost: a Catchup ``play``'s p99 at 16
connections 13-27 ms with ``sleep(0)``, 9-10 ms with a turn, at the same throughput (BENCHMARKS.md
"Cost per request").  These count the loop's turns (libev's iteration counter), not time.
"""

from __future__ import annotations

import gc
import io
import logging
from typing import Any

import gevent  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker

from service.run import gunicorn_conf
from service.web import metrics, requestlog


def _turns_taken(give_way: Any) -> int:
    loop = gevent.get_hub().loop

    def run() -> int:
        before = loop.iteration
        give_way()
        return int(loop.iteration - before)

    turns: int = gevent.spawn(run).get(timeout=5)
    return turns


def test_next_turn_resumes_only_after_the_loop_went_round() -> None:
    assert _turns_taken(gunicorn_conf.next_turn) == 1
    # What the yield was before: back within the same turn, the sockets never polled in between.
    assert _turns_taken(lambda: gevent.sleep(0)) == 0


def test_after_each_request_a_gevent_worker_waits_for_the_next_turn() -> None:
    worker = GeventWorker.__new__(GeventWorker)  # only its class matters to the hook
    try:
        gunicorn_conf.post_worker_init(worker)
        assert _turns_taken(lambda: gunicorn_conf.post_request(worker, None, {}, None)) == 1
        assert requestlog._loop is gevent.get_hub().loop  # and the answers' lines are written a turn at a time
        assert metrics._later is gevent.spawn_later  # and their timings within metrics.FLUSH_S
    finally:
        gunicorn_conf._yield = None
        requestlog._loop = None
        metrics.stop_batching()
        gc.unfreeze()  # post_worker_init froze this test process's objects


def test_other_workers_do_not_yield() -> None:
    class SyncLike:
        pass

    try:
        gunicorn_conf.post_worker_init(SyncLike())
        assert gunicorn_conf._yield is None and requestlog._loop is None
        assert _turns_taken(lambda: gunicorn_conf.post_request(SyncLike(), None, {}, None)) == 0
    finally:
        gc.unfreeze()


class Writes(io.StringIO):
    """A stream that keeps each write apart."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_the_answers_lines_of_one_turn_of_the_loop_are_written_in_one_write_in_order() -> None:
    """service/web/requestlog.py ``batch_lines`` (issue 20, "Cost per request": a write a line was 2.6% of a
    gevent worker's time).  Lines written by several greenlets in one turn leave in one write, at the turn's
    end, in the order written; another record first flushes them, so the log keeps its order; what is left
    when the worker exits is written by ``worker_exit``."""
    stream = Writes()
    handler = requestlog.configure("text", stream)
    try:
        requestlog.batch_lines(gevent.get_hub().loop)
        handler.write_line("first")
        assert stream.writes == []  # still this turn
        gevent.sleep(0.001)  # the loop goes round
        assert stream.writes == ["first\n"]
        gevent.joinall([gevent.spawn(handler.write_line, f"line {k}") for k in range(5)], timeout=5)
        gevent.sleep(0.001)
        assert stream.writes[1:] == ["line 0\nline 1\nline 2\nline 3\nline 4\n"]

        handler.write_line("answered")
        logging.getLogger("service.test").warning("a record")
        assert stream.getvalue().splitlines()[-2:][0] == "answered"
        assert "a record" in stream.getvalue().splitlines()[-1]

        handler.write_line("the last answer")
        gunicorn_conf.worker_exit(None, None)
        assert stream.writes[-1] == "the last answer\n"
        gevent.sleep(0.001)
        assert stream.writes[-1] == "the last answer\n"  # written once
    finally:
        requestlog._loop = None
        requestlog.configure("text")  # back to standard error


def test_without_batching_each_line_is_written_at_once() -> None:
    stream = Writes()
    handler = requestlog.configure("text", stream)
    try:
        handler.write_line("one")
        handler.write_line("two")
        assert stream.writes == ["one\n", "two\n"]
    finally:
        requestlog.configure("text")
