"""``GET /metrics`` (issue "Scale out and operate"): Prometheus figures that
stay right when several gunicorn workers serve one match store.  In one
process through the test client; then on a real gunicorn with two workers
and the multiprocess folder, every scrape (whichever worker answers) counts
every move, and the waiting listeners of both workers."""

from __future__ import annotations

import re
import shutil
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from matchkit import NewMatch
from served import AppServer, Stream, call

from service.run import embedded


def figure(text: str, name: str, **labels: str) -> float:
    """The value of one series in Prometheus text (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        m = re.match(rf"^{re.escape(name)}(?:\{{(.*)\}})? ([0-9.e+-]+)$", line)
        if m and ",".join(sorted((m.group(1) or "").split(","))) == want:
            return float(m.group(2))
    return 0.0


def test_moves_flags_and_requests_are_counted(client: FlaskClient, new_match: NewMatch) -> None:
    before = client.get("/metrics").get_data(as_text=True)
    m = new_match("catchup", {"size": 3})
    assert m.move(0, "C3", 0).status_code == 200
    assert m.move(1, "C3", 1).status_code == 422
    r = client.get("/metrics")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    text = r.get_data(as_text=True)
    for verdict, n in (("accepted", 1), ("illegal", 1)):
        assert (
            figure(text, "umpire_moves_total", game="catchup", verdict=verdict)
            - figure(before, "umpire_moves_total", game="catchup", verdict=verdict)
            == n
        )
    # requests by route (the URL rule, not one series per match) and status
    route = "/v1/matches/<match_id>/moves"
    assert figure(text, "umpire_http_request_duration_seconds_count", method="POST", status="422", route=route) >= 1
    assert m.id not in text
    assert figure(text, "umpire_redis_seconds_count", op="commit") >= 2


@pytest.fixture
def redis_server(tmp_path: Path) -> Any:
    server = embedded.start(tmp_path / "redis")
    yield server
    server.stop()


def test_several_workers_report_one_sum(redis_server: Any, tmp_path: Path) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    app = AppServer(redis_server.url, tmp_path, workers=2, PROMETHEUS_MULTIPROC_DIR=str(folder)).start()
    streams: list[Stream] = []
    try:
        _, made = call(app.base, "POST", "/v1/matches", {"game": "plur", "options": {"size": 3}})
        mid, seats = made["match_id"], made["seats"]
        for _ in range(6):
            streams.append(Stream.open(app.base, mid))
        for s in streams:
            s.until(lambda s=s: s.events, 10)
        for ply, cell in enumerate(["A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1"]):
            assert call(app.base, "POST", f"/v1/matches/{mid}/moves", {"move": cell, "ply": ply}, seats[str(ply % 2)])[0] == 200
        # Each answer is timed as it leaves (service/web/metrics.py): a scrape counts every move, whichever
        # worker took it and whichever answers.
        route = "/v1/matches/<match_id>/moves"
        for _ in range(6):  # each scrape is answered by whichever worker takes it: always the same sums
            with urllib.request.urlopen(app.base + "/metrics", timeout=10) as r:
                text = r.read().decode()
            assert figure(text, "umpire_moves_total", game="plur", verdict="accepted") == 8
            assert figure(text, "umpire_listeners") == 6  # the six streams, on whichever worker they wait
            assert figure(text, "umpire_http_request_duration_seconds_count", method="POST", status="200", route=route) == 8
    finally:
        for s in streams:
            s.close()
        app.stop()
        shutil.rmtree(folder, ignore_errors=True)
