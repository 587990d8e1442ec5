"""Every answer timed in ``umpire_http_request_duration_seconds`` (service/web/metrics.py), one ``observe`` each
as the request log's middleware tells it: counted by the time the answer has left, so a scrape right after
counts it; and a client cannot make series without end."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry

from service import create_app
from service.web import metrics

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


def test_an_answer_is_counted_once_it_has_left_and_a_scrape_says_so() -> None:
    client = create_app({}).test_client()
    labels = {"method": "GET", "route": "/v1/games", "status": "200"}
    before = samples(REGISTRY, NAME, labels)
    for _ in range(3):
        assert client.get("/v1/games").status_code == 200
    after = samples(REGISTRY, NAME, labels)
    assert after["count"] == before["count"] + 3 and after["sum"] > before["sum"]
    assert after["+Inf"] == before.get("+Inf", 0.0) + 3
    text = client.get("/metrics").get_data(as_text=True)
    assert f'{NAME}_count{{method="GET",route="/v1/games",status="200"}} {before["count"] + 3}' in text


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
