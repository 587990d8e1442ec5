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
from typing import Any

import gevent  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker

from service.run import gunicorn_conf


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
    finally:
        gunicorn_conf._yield = None
        gc.unfreeze()  # post_worker_init froze this test process's objects


def test_other_workers_do_not_yield() -> None:
    class SyncLike:
        pass

    try:
        gunicorn_conf.post_worker_init(SyncLike())
        assert gunicorn_conf._yield is None
        assert _turns_taken(lambda: gunicorn_conf.post_request(SyncLike(), None, {}, None)) == 0
    finally:
        gc.unfreeze()
