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
import time
from typing import Any

import gevent  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker

from service import create_app
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
        assert requestlog._later is gevent.spawn_later  # and the answers' lines are written within requestlog.FLUSH_S
        assert metrics._later is gevent.spawn_later  # and their timings within metrics.FLUSH_S
    finally:
        gunicorn_conf._yield = None
        requestlog.stop_batching()
        metrics.stop_batching()
        gc.unfreeze()  # post_worker_init froze this test process's objects


def test_other_workers_do_not_yield() -> None:
    class SyncLike:
        pass

    try:
        gunicorn_conf.post_worker_init(SyncLike())
        assert gunicorn_conf._yield is None and requestlog._later is None
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


def test_the_answers_lines_are_written_together_within_a_tenth_of_a_second_in_order(monkeypatch: Any) -> None:
    """service/web/requestlog.py ``batch_lines`` (issue 20, "Cost per request": an answer's line made and
    written as it left cost a request about 20 µs of a gevent worker's CPU).  Answers leave with no line made
    or written; within ``FLUSH_S`` of the first, all their lines leave in one write, in order, the same lines
    as without batching; another record first writes them, so the log keeps its order; so many waiting
    are written at once; what is left when the worker exits is written by ``worker_exit``, once."""
    client = create_app({"LOG_FORMAT": "text"}).test_client()
    stream = Writes()
    requestlog.configure("text", stream)
    monkeypatch.setattr(logging.root, "handlers", [])  # as in a server: pytest's capture is not on the way
    try:
        assert client.get("/v1/games", headers={"X-Request-ID": "unbatched"}).status_code == 200
        unbatched = stream.writes[-1]
        stream.writes.clear()
        requestlog.batch_lines(gevent.spawn_later)
        assert client.get("/v1/games", headers={"X-Request-ID": "first"}).status_code == 200
        assert stream.writes == []  # kept: no line made or written yet
        gevent.sleep(requestlog.FLUSH_S / 2)
        assert stream.writes == []
        gevent.sleep(requestlog.FLUSH_S)
        assert len(stream.writes) == 1 and _unstamped(stream.writes[0]) == _unstamped(unbatched).replace("unbatched", "first")

        def ask(k: int) -> None:
            assert client.get("/v1/health/nowhere", headers={"X-Request-ID": f"line-{k}"}).status_code == 404

        gevent.joinall([gevent.spawn(ask, k) for k in range(5)], timeout=5)
        gevent.sleep(requestlog.FLUSH_S * 1.5)
        assert len(stream.writes) == 2
        assert [line.split()[2] for line in stream.writes[1].splitlines()] == [f"[line-{k}]" for k in range(5)]

        client.get("/v1/games", headers={"X-Request-ID": "answered"})
        logging.getLogger("service.test").warning("a record")
        assert "[answered] GET /v1/games 200" in stream.getvalue().splitlines()[-2]
        assert "a record" in stream.getvalue().splitlines()[-1]

        monkeypatch.setattr(requestlog, "MOST_KEPT", 3)
        for k in range(3):
            client.get("/v1/games", headers={"X-Request-ID": f"many-{k}"})
        assert stream.writes[-1].count("\n") == 3  # written at the third, before any time passed

        client.get("/v1/games", headers={"X-Request-ID": "the-last"})
        gunicorn_conf.worker_exit(None, None)
        assert "[the-last]" in stream.writes[-1]
        writes = len(stream.writes)
        gevent.sleep(requestlog.FLUSH_S * 1.5)
        assert len(stream.writes) == writes  # written once
    finally:
        requestlog.stop_batching()
        requestlog.configure("text")  # back to standard error


def test_kept_answers_with_another_handler_on_the_way_are_records_stamped_when_they_left(monkeypatch: Any) -> None:
    """When the service's handler is not the lines' only way out (here a handler on the root logger), the kept
    answers leave as records, each its usual way, with its own fields and the time it left, not the write's."""
    client = create_app({"LOG_FORMAT": "json"}).test_client()
    captured: list[logging.LogRecord] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            captured.append(record)

    monkeypatch.setattr(logging.root, "handlers", [Capture()])
    requestlog.configure("json", io.StringIO())
    try:
        requestlog.batch_lines(gevent.spawn_later)
        before = time.time()
        client.get("/v1/games", headers={"X-Request-ID": "kept"})
        left = time.time()
        gevent.sleep(requestlog.FLUSH_S / 2)
        assert captured == []
        gevent.sleep(requestlog.FLUSH_S)
        (record,) = captured
        assert (record.request_id, record.method, record.path, record.status) == ("kept", "GET", "/v1/games", 200)  # type: ignore[attr-defined]
        assert before <= record.created <= left and record.getMessage() == "GET /v1/games 200"
    finally:
        requestlog.stop_batching()
        requestlog.configure("text")


def _unstamped(line: str) -> str:
    """A text line without its time and its duration: ``info [id] GET /path 200``."""
    return " ".join(line.split()[1:-2])


def test_without_batching_each_line_is_written_at_once() -> None:
    client = create_app({"LOG_FORMAT": "text"}).test_client()
    stream = Writes()
    requestlog.configure("text", stream)
    try:
        client.get("/v1/games", headers={"X-Request-ID": "one"})
        client.get("/v1/games", headers={"X-Request-ID": "two"})
        assert [_unstamped(line) for line in stream.writes] == [f"info [{k}] GET /v1/games 200" for k in ("one", "two")]
    finally:
        requestlog.configure("text")


def test_a_write_still_waiting_when_the_batching_stops_is_not_made_later_into_what_comes_after() -> None:
    """``stop_batching`` writes what is kept and cancels the write that was waiting for it (the request log's and
    the metrics'): left waiting, it fired into the next batch and wrote its first line early (it did, when
    tests/test_metrics_batching.py ran before this file)."""
    fired: list[str] = []
    for keep, stop, schedule in (
        (
            requestlog.batch_lines,
            requestlog.stop_batching,
            lambda: requestlog.schedule(requestlog._pending, gevent.spawn_later, 0.05, lambda: fired.append("log")),
        ),
        (
            metrics.batch_timings,
            metrics.stop_batching,
            lambda: requestlog.schedule(metrics._pending, gevent.spawn_later, 0.05, lambda: fired.append("metrics")),
        ),
    ):
        keep(gevent.spawn_later)
        schedule()
        stop()
        gevent.sleep(0.1)
    assert fired == []
    requestlog.batch_lines(gevent.spawn_later)
    try:
        requestlog.schedule(requestlog._pending, gevent.spawn_later, 0.01, lambda: fired.append("ran"))
        gevent.sleep(0.05)
        assert fired == ["ran"]  # one that was not cancelled runs, and is then dropped as more come
    finally:
        requestlog.stop_batching()
