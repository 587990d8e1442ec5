"""The answers' timings kept in memory and written together (service/web/metrics.py ``batch_timings``; issue 20,
"Cost per request": in multiprocess mode each ``observe`` was two writes to a shared file under a lock).  What
the histogram holds once they are written must be what one ``observe`` per answer would have left; they must
be written within ``FLUSH_S``, before a scrape, and when the worker exits; and a series made otherwise than
prometheus_client's own turns the batching off rather than being written wrong."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import gevent  # type: ignore[import-untyped]
import pytest
from gunicorn.workers.ggevent import GeventWorker
from prometheus_client import REGISTRY, CollectorRegistry, Histogram

from service import create_app
from service.run import gunicorn_conf
from service.web import metrics, requestlog
from service.web.requestlog import OBSERVERS

NAME = "umpire_http_request_duration_seconds"


def samples(registry: CollectorRegistry, name: str, labels: dict[str, str]) -> dict[str, float]:
    """One series' samples: each bucket's count (by its ``le``), the count and the sum (0 for a series not made)."""
    out = {"count": 0.0, "sum": 0.0}
    for family in registry.collect():
        for sample in family.samples:
            if not sample.name.startswith(name) or {k: v for k, v in sample.labels.items() if k != "le"} != labels:
                continue
            kind = sample.name.removeprefix(name)
            if kind == "_bucket":
                out[sample.labels["le"]] = sample.value
            elif kind in ("_count", "_sum"):
                out[kind[1:]] = sample.value
    return out


@pytest.fixture
def scheduled() -> Iterator[list[tuple[float, Callable[[], None]]]]:
    """Batching on, with the writes it asks for kept here (run by the test) rather than on a timer."""
    asked: list[tuple[float, Callable[[], None]]] = []
    metrics.batch_timings(lambda seconds, write: asked.append((seconds, write)))
    try:
        yield asked
    finally:
        metrics.stop_batching()


# Times on and around the buckets' bounds (a time equal to a bound is within it), past the last, and zero.
TIMES = [0.0, 0.0005, 0.00050001, 0.001, 0.0013, 0.002, 0.0049, 0.005, 0.02, 0.3, 1.0, 1.5, 2.0, 5.0, 5.01, 60.0, 0.0005]


def test_kept_timings_leave_the_histogram_as_one_observe_each(scheduled: list[Any]) -> None:
    app = create_app({})
    (done,) = app.extensions[OBSERVERS]
    labels = {"method": "PATCH", "route": "(none)", "status": "299"}
    metrics.REQUESTS.labels(*labels.values())  # the series made, at nothing
    before = samples(REGISTRY, NAME, labels)
    for seconds in TIMES:
        done("PATCH", None, 299, seconds)
    assert samples(REGISTRY, NAME, labels) == before  # kept, not written yet
    assert [s for s, _ in scheduled] == [metrics.FLUSH_S]  # one write asked for, FLUSH_S after the first

    reference = CollectorRegistry()
    one_by_one = Histogram(NAME, "reference", list(labels), buckets=metrics.BUCKETS, registry=reference)
    for seconds in TIMES:
        one_by_one.labels(*labels.values()).observe(seconds)
    scheduled[0][1]()  # the write
    after = samples(REGISTRY, NAME, labels)
    expected = samples(reference, NAME, labels)
    assert len(expected) == len(metrics.BUCKETS) + 3  # every bucket, +Inf, the count and the sum
    assert {k: after[k] - before.get(k, 0.0) for k in after if k != "sum"} == {k: v for k, v in expected.items() if k != "sum"}
    assert after["sum"] - before["sum"] == pytest.approx(expected["sum"], rel=1e-12)

    done("PATCH", None, 299, 0.01)  # kept again: a new write asked for
    assert len(scheduled) == 2


def test_a_scrape_writes_what_its_process_kept_first(scheduled: list[Any]) -> None:
    client = create_app({}).test_client()
    labels = {"method": "GET", "route": "/v1/games", "status": "200"}
    before = samples(REGISTRY, NAME, labels)["count"]
    for _ in range(3):
        assert client.get("/v1/games").status_code == 200
    assert samples(REGISTRY, NAME, labels)["count"] == before
    text = client.get("/metrics").get_data(as_text=True)
    assert samples(REGISTRY, NAME, labels)["count"] == before + 3
    assert f'{NAME}_count{{method="GET",route="/v1/games",status="200"}} {before + 3}' in text


@pytest.mark.parametrize("keeper", ["metrics", "request log"])
def test_under_gevent_the_timings_are_written_within_their_flush(keeper: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gevent worker's own ways (service/run/gunicorn_conf.py), each with gevent.spawn_later: the metrics
    keep the timings (a short FLUSH_S here); the request log keeps each answer and tells the metrics of it with
    the others (service/web/requestlog.py ``batch_lines``), within its FLUSH_S, and before a scrape answers,
    so that a scrape counts every answer the worker has given."""
    monkeypatch.setattr(metrics, "FLUSH_S", 0.02)
    client = create_app({}).test_client()
    labels = {"method": "GET", "route": "/v1/games", "status": "200"}
    if keeper == "metrics":
        keep, stop, wait_s = metrics.batch_timings, metrics.stop_batching, 0.1
    else:
        keep, stop, wait_s = requestlog.batch_lines, requestlog.stop_batching, requestlog.FLUSH_S * 1.5
    keep(gevent.spawn_later)
    try:
        before = samples(REGISTRY, NAME, labels)["count"]
        assert client.get("/v1/games").status_code == 200
        assert samples(REGISTRY, NAME, labels)["count"] == before  # kept: not written yet
        gevent.sleep(wait_s)
        assert samples(REGISTRY, NAME, labels)["count"] == before + 1
        assert client.get("/v1/games").status_code == 200
        scraped = client.get("/metrics").get_data(as_text=True)
        line = next(ln for ln in scraped.splitlines() if ln.startswith(f"{NAME}_count") and 'route="/v1/games"' in ln
                    and 'status="200"' in ln and 'method="GET"' in ln)  # fmt: skip
        assert float(line.split()[-1]) == before + 2  # the second, still kept when the scrape came, counted
    finally:
        stop()


def test_a_gevent_worker_batches_and_writes_what_is_left_as_it_exits() -> None:
    worker = GeventWorker.__new__(GeventWorker)  # only its class matters to the hook
    client = create_app({}).test_client()
    labels = {"method": "GET", "route": "/v1/games", "status": "200"}
    try:
        gunicorn_conf.post_worker_init(worker)
        assert metrics._later is gevent.spawn_later
        before = samples(REGISTRY, NAME, labels)["count"]
        assert client.get("/v1/games").status_code == 200
        gunicorn_conf.worker_exit(None, worker)
        assert samples(REGISTRY, NAME, labels)["count"] == before + 1
    finally:
        gunicorn_conf._yield = None
        requestlog.stop_batching()
        metrics.stop_batching()
        gc.unfreeze()  # post_worker_init froze this test process's objects


class Elsewise:
    """A series of another make: told each timing, with none of the parts the batching writes."""

    def __init__(self) -> None:
        self.told: list[float] = []

    def observe(self, seconds: float) -> None:
        self.told.append(seconds)


def test_a_series_made_otherwise_turns_the_batching_off(monkeypatch: pytest.MonkeyPatch, scheduled: list[Any]) -> None:
    assert metrics.can_batch(metrics.REQUESTS.labels("GET", "/v1/games", "200"))
    assert not metrics.can_batch(Elsewise())
    series = Elsewise()

    class Family:
        def labels(self, *values: str) -> Elsewise:
            return series

    monkeypatch.setattr(metrics, "REQUESTS", Family())
    app = create_app({})
    (done,) = app.extensions[OBSERVERS]
    done("GET", None, 200, 0.25)
    done("GET", None, 200, 0.5)
    assert series.told == [0.25, 0.5] and metrics._later is None and not scheduled


def test_made_up_methods_make_one_series_not_one_each() -> None:
    """gunicorn lets any method of 3 to 20 characters with no lower-case letter through, and the app answers
    it 405: each used to make a series of its own for the life of the process (20,000 of them: 134 MB of
    metrics files, an 8 s scrape).  Issue 20, "Hold under attack"."""
    client = create_app({}).test_client()

    def families() -> set[str]:
        return {
            sample.labels["method"]
            for family in REGISTRY.collect()
            for sample in family.samples
            if sample.name == f"{NAME}_count"
        }

    labels = {"method": metrics.OTHER, "route": "(none)", "status": "405"}
    before_methods, before = families(), samples(REGISTRY, NAME, labels)["count"]
    made_up = [f"MADEUP{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(200)]
    for method in made_up:
        assert client.open("/v1/games", method=method).status_code == 405
    assert families() - before_methods <= {metrics.OTHER}
    assert samples(REGISTRY, NAME, labels)["count"] == before + len(made_up)
    assert client.open("/v1/games", method="DELETE").status_code == 405
    assert "DELETE" in families()  # HTTP's own methods keep their names
