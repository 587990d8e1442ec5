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
from typing import Any

import gevent  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker

from service import create_app
from service.run import gunicorn_conf
from service.web import requestlog


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


def _unstamped(line: str) -> str:
    """A text line without its time and its duration: ``info [id] GET /path 200``."""
    return " ".join(line.split()[1:-2])


def test_each_answers_line_is_written_as_it_leaves() -> None:
    """One line per answer, through logging, written when the answer leaves (issue 33: no batching of lines)."""
    client = create_app({"LOG_FORMAT": "text"}).test_client()
    stream = io.StringIO()
    requestlog.configure("text", stream)
    try:
        client.get("/v1/games", headers={"X-Request-ID": "one"})
        assert [_unstamped(line) for line in stream.getvalue().splitlines()] == ["info [one] GET /v1/games 200"]
        client.get("/v1/games", headers={"X-Request-ID": "two"})
        lines = stream.getvalue().splitlines()
        assert [_unstamped(line) for line in lines] == [f"info [{k}] GET /v1/games 200" for k in ("one", "two")]
    finally:
        requestlog.configure("text")


def test_gunicorn_takes_a_request_line_long_enough_for_the_apps_own_414() -> None:
    """The app refuses a target over MAX_TARGET_BYTES in the error shape; gunicorn's limit on the request line
    (its setting, within its documented range) must let such a line through to the app."""
    from gunicorn.config import Config

    from service.web.requestlog import MAX_TARGET_BYTES

    config = Config()
    config.set("limit_request_line", gunicorn_conf.limit_request_line)
    assert MAX_TARGET_BYTES + len("DELETE  HTTP/1.1") < config.limit_request_line <= 8190


def test_a_flask_app_that_is_not_the_umpire_boots_under_these_settings() -> None:
    """``bench overhead``'s yardstick (bench/bare.py, a bare Flask route) is served with these same settings: a
    Flask app without the umpire's settings keeps no liveness beats, and its worker boots."""
    from flask import Flask

    class SyncLike:
        wsgi = Flask("bare")

    try:
        gunicorn_conf.post_worker_init(SyncLike())
        assert "umpire.liveness" not in SyncLike.wsgi.extensions
    finally:
        gc.unfreeze()
